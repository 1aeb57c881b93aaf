//! `findings`: the findings scorecard on the labelled corpus, per split and per repository — gold
//! themes recovered by a theme and by a finding, evidence precision, findings citing noise.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;

use gitlore::knowledge::corpus::{Corpus, Split};
use gitlore::knowledge::filter::NoiseRules;
use gitlore::scorecard::{self, RepoScore};

#[derive(Debug, clap::Args)]
pub struct FindingsArgs {
    /// The labelled corpus directory.
    #[arg(long, default_value = "tests/fixtures/corpus")]
    corpus: PathBuf,
    /// Also print each finding's title and the corpus ids it cites.
    #[arg(long)]
    verbose: bool,
}

pub fn run(args: FindingsArgs) -> Result<()> {
    let corpus = Corpus::load(&args.corpus)?;
    let rules = NoiseRules::new(None, None, &[]);
    let started = Instant::now();
    println!(
        "{:<28} {:>5} {:>5} {:>8} {:>10} {:>7} {:>9} {:>8} {:>10} {:>6}",
        "repository",
        "split",
        "gold",
        "themes",
        "by theme",
        "purity",
        "findings",
        "by find",
        "precision",
        "noisy"
    );
    for split in [Split::Train, Split::Test] {
        let mut total = RepoScore {
            repo: format!("all {}", split.as_str()),
            ..RepoScore::default()
        };
        for repo in corpus.repos() {
            if corpus.split_of(repo) != split {
                continue;
            }
            let records: Vec<_> = corpus.records.iter().filter(|r| r.repo == repo).collect();
            let gold: Vec<_> = corpus.themes.iter().filter(|t| t.repo == repo).collect();
            let published = scorecard::publish(&records, &rules)?;
            let score = scorecard::score(repo, &records, &gold, &published);
            print_row(&score, split);
            if args.verbose {
                for (finding, cited) in &published.findings {
                    let ids: Vec<&str> = cited
                        .iter()
                        .map(|id| id.as_deref().unwrap_or("?"))
                        .collect();
                    println!("    - {} [{}]", finding.title, ids.join(" "));
                }
            }
            total.add(&score);
        }
        print_row(&total, split);
        println!(
            "  {}: {:.0}% of gold themes recovered by a finding, evidence precision {:.3}, {} findings citing noise, theme purity {:.3}",
            split.as_str(),
            100.0 * total.recovered_share(),
            total.evidence_precision(),
            total.citing_noise,
            total.purity()
        );
    }
    println!("({:.1} s)", started.elapsed().as_secs_f64());
    Ok(())
}

fn print_row(score: &RepoScore, split: Split) {
    println!(
        "{:<28} {:>5} {:>5} {:>8} {:>10} {:>7.3} {:>9} {:>8} {:>10.3} {:>6}",
        score.repo,
        split.as_str(),
        score.gold_themes,
        score.themes,
        score.by_theme,
        score.purity(),
        score.findings,
        score.by_finding,
        score.evidence_precision(),
        score.citing_noise
    );
}
