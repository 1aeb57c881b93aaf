//! `gitlore-bench`: the performance harness that prints the figures of SPEC §9.
//!
//! - `ingress`: webhook requests per second and latency of `gitlore serve` against a minimal
//!   Probot app, with every delivery durably stored.
//! - `ingest`: review-comment events processed per second by the worker (parse, classify, store).
//! - `analysis`: wall time and peak memory of embedding and clustering 10k and 100k comments.
//! - `history`: git history analysis of a generated 20,000-commit repository, full and
//!   incremental.

mod analysis;
mod history;
mod ingest;
mod ingress;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(about = "Measures gitlore against the targets of SPEC §9")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Webhook ingress of `gitlore serve` against a minimal Probot app, side by side.
    Ingress(ingress::IngressArgs),
    /// Review-comment events processed per second by the delivery worker.
    Ingest(ingest::IngestArgs),
    /// Embed + cluster time and peak memory with the built-in components.
    Analysis {
        /// Corpus sizes to measure, one run each.
        #[arg(default_values_t = [10_000, 100_000])]
        sizes: Vec<usize>,
    },
    /// Full and incremental git history analysis of a generated repository.
    History(history::HistoryArgs),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Ingress(args) => ingress::run(args),
        Command::Ingest(args) => ingest::run(args),
        Command::Analysis { sizes } => analysis::run(&sizes),
        Command::History(args) => history::run(args),
    }
}
