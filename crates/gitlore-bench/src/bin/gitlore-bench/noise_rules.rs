//! `noise-rules`: each noise rule's hits and mistakes on the corpus's training split, and what
//! switching it off alone does to noise precision and recall (`gitlore_bench::quality::ablation`).
//! Never the test split: choosing rules on it would be tuning on it.

use std::path::{Path, PathBuf};

use anyhow::Result;

use gitlore::knowledge::switches::Named;
use gitlore_bench::quality::{self, ablation};
use gitlore_lab::corpus::{Corpus, Split};

use crate::quality::DEFAULT_CORPUS;

#[derive(Debug, clap::Args)]
pub struct NoiseRulesArgs {
    /// The labelled corpus directory.
    #[arg(long, default_value = DEFAULT_CORPUS)]
    corpus: PathBuf,
    /// Read the comments with the shipped noise model (fast, but it has seen the training split)
    /// instead of one trained without each comment's repository.
    #[arg(long)]
    shipped: bool,
}

/// Prints one line per rule.
pub fn run(args: NoiseRulesArgs) -> Result<()> {
    let corpus = Corpus::load(Path::new(&args.corpus))?;
    let records = corpus.split(Split::Train);
    let held;
    let (reads, how) = if args.shipped {
        (ablation::shipped(&records), "the shipped noise model")
    } else {
        held = quality::held_out_predictions(&records, Default::default());
        (
            ablation::held_out(&held),
            "noise models trained without each repository",
        )
    };
    let (on, effects) = ablation::ablate(&reads);
    println!(
        "training split, {} comments ({} noise), read by {how}; every rule on: noise P {:.3} R {:.3}",
        reads.len(),
        on.support(),
        on.precision(),
        on.recall()
    );
    println!(
        "{:<26} {:>7} {:>6} {:>8} {:>6}   off: {:>7} {:>7}",
        "rule", "decides", "wrong", "flipped", "right", "noise P", "R"
    );
    for effect in effects {
        println!(
            "{:<26} {:>7} {:>6} {:>8} {:>6}   off: {:>7.3} {:>7.3}",
            effect.rule.name(),
            effect.decided,
            effect.decided_wrong,
            effect.flipped,
            effect.flipped_right,
            effect.off.precision(),
            effect.off.recall()
        );
    }
    println!(
        "decides: comments the rule decides with every rule on (an override: keeps out of the noise); wrong: of those, against the corpus; flipped: comments whose verdict changes with the rule alone off; right: of those, the rule had right"
    );
    Ok(())
}
