//! `gitlore-bench`: the performance harness that prints the figures of behaviour §9.
//!
//! - `ingress`: webhook requests per second and latency of `gitlore serve` against a minimal
//!   Probot app, with every delivery durably stored.
//! - `ingest`: review-comment events processed per second by the worker (parse, classify, store).
//! - `analysis`: wall time and peak memory of embedding and clustering 10k and 100k comments.
//! - `history`: git history analysis of a generated 20,000-commit repository, full and
//!   incremental; with `--repo PATH`, of a real repository, with its revert count checked.
//! - `quality`: the noise filter's and the classifier's figures on the labelled corpus of real
//!   review comments; `findings`: gold themes recovered and evidence precision of the findings
//!   analysed from the same corpus; `train` fits the classifier on the corpus's training split;
//!   `llm-quality`: the configured LLM classifier's figures on the same corpus, or those of a
//!   model's recorded answers (`--cassettes`; `cassettes add` records them).
//! - `noise-rules`: each noise rule's hits and mistakes on the training split, and what switching
//!   it off does; `title-cuts`: what switching each of the built-in titles' cuts off does to the
//!   training split's findings.
//! - `lesson-effect`: simulated review streams with a known effect estimated within their 90 %
//!   intervals, and an A/A replay of the corpus's real comments showing no effect.
//! - `test-lengths`: median and 90th-percentile length of the integration tests, and their
//!   assertion count.

mod analysis;
mod findings;
mod history;
mod ingest;
mod ingress;
mod lesson_effect;
mod llm_quality;
mod noise_rules;
mod quality;
mod recorded;
mod test_lengths;
mod title_cuts;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(about = "Measures gitlore against the targets of behaviour §9")]
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
    /// Full and incremental git history analysis of a generated repository (or `--repo PATH`).
    History(history::HistoryArgs),
    /// The findings scorecard on the labelled corpus: gold themes recovered, evidence precision.
    Findings(findings::FindingsArgs),
    /// The scorecard of the noise filter and the classifier on the labelled corpus.
    Quality(quality::QualityArgs),
    /// Each noise rule's hits and mistakes on the training split, and the effect of switching it off.
    NoiseRules(noise_rules::NoiseRulesArgs),
    /// What switching each of the built-in titles' cuts off does to the training split's findings.
    TitleCuts(title_cuts::TitleCutsArgs),
    /// The scorecard of the configured LLM classifier (`GITLORE_LLM_*`) on the labelled corpus.
    LlmQuality(llm_quality::LlmQualityArgs),
    /// Recorded answers of a model (cassettes) for the LLM benches.
    #[command(subcommand)]
    Cassettes(CassettesCommand),
    /// Trains the built-in classifier on the corpus's training split and writes its model file.
    Train(quality::TrainArgs),
    /// Whether the lesson-effect figures are sound: simulated streams with a known effect, and an
    /// A/A replay of the corpus's real comments.
    LessonEffect(lesson_effect::LessonEffectArgs),
    /// Median and 90th-percentile length of the tests in `tests/*.rs`, and their assertions.
    TestLengths(test_lengths::TestLengthsArgs),
}

#[derive(Debug, Subcommand)]
enum CassettesCommand {
    /// Stores a model's answers to the requests `--misses` collected, unedited, as cassettes.
    Add(recorded::AddArgs),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Ingress(args) => ingress::run(args),
        Command::Ingest(args) => ingest::run(args),
        Command::Analysis { sizes } => analysis::run(&sizes),
        Command::History(args) => history::run(args),
        Command::Findings(args) => findings::run(args),
        Command::LessonEffect(args) => lesson_effect::run(args),
        Command::Quality(args) => quality::run(args),
        Command::LlmQuality(args) => llm_quality::run(args),
        Command::NoiseRules(args) => noise_rules::run(args),
        Command::TitleCuts(args) => title_cuts::run(args),
        Command::Cassettes(CassettesCommand::Add(args)) => recorded::add(args),
        Command::Train(args) => quality::train(args),
        Command::TestLengths(args) => test_lengths::run(args),
    }
}
