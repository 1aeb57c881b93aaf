//! `title-cuts`: what switching each of the built-in titles' cuts off alone does to the findings
//! of the corpus's training split: titles changed, findings, gold themes recovered, evidence
//! precision, titles accepted and their similarity to the gold titles. Read with the shipped
//! models: a cut changes how a title is chosen, not how a comment is read. Never the test split:
//! choosing cuts on it would be tuning on it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Result;

use gitlore::knowledge::filter::NoiseRules;
use gitlore::knowledge::switches::Named;
use gitlore::knowledge::synthesize::title::Cut;
use gitlore_bench::scorecard::{self, RepoScore, Setup};
use gitlore_lab::corpus::{Corpus, Record, Split};

use crate::quality::DEFAULT_CORPUS;

#[derive(Debug, clap::Args)]
pub struct TitleCutsArgs {
    /// The labelled corpus directory.
    #[arg(long, default_value = DEFAULT_CORPUS)]
    corpus: PathBuf,
}

/// The training split's findings with `off` switched off: their scores summed, and each
/// finding's title by its id.
fn findings_with(
    corpus: &Corpus,
    rules: &NoiseRules,
    off: &[String],
) -> Result<(RepoScore, HashMap<String, String>)> {
    let mut total = RepoScore::default();
    let mut titles = HashMap::new();
    for repo in corpus.repos() {
        if corpus.split_of(repo) != Split::Train {
            continue;
        }
        let records: Vec<&Record> = corpus.records.iter().filter(|r| r.repo == repo).collect();
        let gold: Vec<_> = corpus.themes.iter().filter(|t| t.repo == repo).collect();
        let setup = Setup {
            title_cuts_off: off,
            ..Setup::default()
        };
        let published = scorecard::publish_with(&records, rules, &setup)?;
        total.add(&scorecard::score(repo, &records, &gold, &published));
        for (finding, _) in &published.findings {
            titles.insert(format!("{repo} {}", finding.id), finding.title.clone());
        }
    }
    Ok((total, titles))
}

/// Prints one line with every cut on, then one per cut switched off.
pub fn run(args: TitleCutsArgs) -> Result<()> {
    let corpus = Corpus::load(Path::new(&args.corpus))?;
    let rules = NoiseRules::new(None, None, &[]);
    let (on, on_titles) = findings_with(&corpus, &rules, &[])?;
    println!(
        "training split, read by the shipped models; titles changed: of the findings with every cut on, those whose title differs or that are gone"
    );
    println!(
        "{:<12} {:>8} {:>8} {:>8} {:>9} {:>9} {:>9}",
        "cut off", "changed", "findings", "gold", "precision", "accepted", "title sim"
    );
    let line = |name: &str, changed: usize, score: &RepoScore| {
        println!(
            "{:<12} {:>8} {:>8} {:>8} {:>9.3} {:>9.3} {:>9.3}",
            name,
            changed,
            score.findings,
            score.by_finding,
            score.evidence_precision(),
            score.accepted_titles(),
            score.mean_title_similarity()
        );
    };
    line("(none)", 0, &on);
    for cut in Cut::ALL {
        let (off, titles) = findings_with(&corpus, &rules, &[cut.name().to_string()])?;
        let changed = on_titles
            .iter()
            .filter(|(id, title)| titles.get(*id) != Some(title))
            .count();
        line(cut.name(), changed, &off);
    }
    Ok(())
}
