//! `gitlore-bench`: the performance harness that prints the figures of SPEC §9.
//!
//! - `ingest`: review-comment events processed per second by the worker (parse, classify, store).

mod ingest;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(about = "Measures gitlore against the targets of SPEC §9")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Review-comment events processed per second by the delivery worker.
    Ingest(ingest::IngestArgs),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Ingest(args) => ingest::run(args),
    }
}
