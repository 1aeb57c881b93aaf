//! `lesson-effect`: evidence that the lesson-effect measurement (behaviour §3.4) is sound.
//! Simulated review streams with a known effect (none, −30 %, −70 %), with and without a drift in
//! every theme's habits, 200 runs each: how often the 90 % intervals hold the truth. Then an A/A
//! replay of the corpus's real comments (nothing published, "publication" dates at random): the
//! verdict per repository and overall, which should be "no effect" or "too early" in ≥ 90 %; and
//! the training split pooled as one repository (more pull requests than any), replayed with as
//! many draws of the dates as simulated runs.

use std::path::PathBuf;

use anyhow::Result;

use gitlore::domain::effect::Verdict;
use gitlore::knowledge::effect::simulate::{Stream, coverage};
use gitlore::knowledge::filter::NoiseRules;
use gitlore_bench::scorecard::aa_replay::{RESERVED, Replayed, analyse_repo};
use gitlore_bench::scorecard::pool;
use gitlore_lab::corpus::{Corpus, Record, Split};

#[derive(Debug, clap::Args)]
pub struct LessonEffectArgs {
    /// The labelled corpus directory.
    #[arg(long, default_value = "tests/fixtures/corpus")]
    corpus: PathBuf,
    /// Simulated runs per stream.
    #[arg(long, default_value_t = 200)]
    runs: usize,
    /// Seed of the simulations and of the replay's publication dates.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The simulated repository: 200 pull requests touching the lesson's paths in each window, 10 %
/// of them raising it before; 400 reviewed pull requests, 30 % raising an unpublished theme.
fn stream(effect: f64, drift: f64) -> Stream {
    Stream {
        pull_requests: 200,
        raise_share: 0.10,
        effect,
        drift,
        control_pull_requests: 400,
        control_share: 0.30,
    }
}

pub fn run(args: LessonEffectArgs) -> Result<()> {
    println!(
        "simulated streams, {} runs each (90 % intervals)",
        args.runs
    );
    println!(
        "{:<8} {:>6} {:>16} {:>18} {:>14} {:>18}",
        "effect", "drift", "ratio covers", "vs control covers", "ratio fewer", "vs control fewer"
    );
    for drift in [1.0, 0.8] {
        for effect in [1.0, 0.7, 0.3] {
            let c = coverage(&stream(effect, drift), args.runs, args.seed);
            let share = |n: usize| 100.0 * n as f64 / c.runs as f64;
            println!(
                "{:<8} {:>6} {:>15.1}% {:>17.1}% {:>13.1}% {:>17.1}%",
                format!("{:+.0}%", (effect - 1.0) * 100.0),
                format!("{:+.0}%", (drift - 1.0) * 100.0),
                share(c.ratio_covered),
                share(c.relative_covered),
                share(c.fewer),
                share(c.relative_fewer),
            );
        }
    }
    let corpus = Corpus::load(&args.corpus)?;
    let rules = NoiseRules::new(None, None, &[]);
    println!();
    println!("A/A replay of the corpus (nothing published; publication dates at random)");
    println!(
        "{:<34} {:>8} {:>9} {:>10} {:>12}",
        "repository", "lessons", "measured", "too early", "verdict"
    );
    let mut replays = Vec::new();
    for repo in corpus.repos() {
        if RESERVED.contains(&repo) {
            continue;
        }
        let records: Vec<&Record> = corpus.records.iter().filter(|r| r.repo == repo).collect();
        let replayed = analyse_repo(&records, &rules)?.replay(args.seed);
        print_row(&replayed);
        replays.push(replayed);
    }
    let tally = |verdict: Option<Verdict>| replays.iter().filter(|r| r.verdict == verdict).count();
    let (none, early, no_effect) = (
        tally(None),
        tally(Some(Verdict::TooEarly)),
        tally(Some(Verdict::NoEffect)),
    );
    let (fewer, more) = (tally(Some(Verdict::Fewer)), tally(Some(Verdict::More)));
    let quiet = none + early + no_effect;
    println!(
        "overall: {} repositories: {no_effect} no effect, {early} too early, {none} without a \
         lesson, {fewer} fewer, {more} more: \"no effect\" or \"too early\" in {quiet} ({:.1}%, \
         target ≥ 90%)",
        replays.len(),
        100.0 * quiet as f64 / replays.len().max(1) as f64,
    );
    let lessons: Vec<Verdict> = replays
        .iter()
        .flat_map(|r| r.report.lessons.iter().map(|l| l.ratio.verdict))
        .collect();
    let count = |v: Verdict| lessons.iter().filter(|l| **l == v).count();
    println!(
        "lessons: {} — {} too early, {} no effect, {} fewer, {} more",
        lessons.len(),
        count(Verdict::TooEarly),
        count(Verdict::NoEffect),
        count(Verdict::Fewer),
        count(Verdict::More),
    );
    let train = corpus.split(Split::Train);
    let train_repos: Vec<&str> = corpus
        .repos()
        .into_iter()
        .filter(|r| corpus.split_of(r) == Split::Train && !RESERVED.contains(r))
        .collect();
    let pooled = pool(&train, &train_repos, "corpus/training-pooled");
    let pooled: Vec<&Record> = pooled.iter().collect();
    let pooled = analyse_repo(&pooled, &rules)?;
    println!();
    println!("the training split pooled as one repository, first draw:");
    print_row(&pooled.replay(args.seed));
    let draws: Vec<Option<Verdict>> = (0..args.runs as u64)
        .map(|draw| pooled.replay(args.seed.wrapping_add(draw)).verdict)
        .collect();
    let said = |verdict: Verdict| draws.iter().filter(|v| **v == Some(verdict)).count();
    println!(
        "{} draws of publication dates: {} no effect, {} too early, {} fewer, {} more: \
         \"no effect\" or \"too early\" in {:.1}%",
        draws.len(),
        said(Verdict::NoEffect),
        said(Verdict::TooEarly),
        said(Verdict::Fewer),
        said(Verdict::More),
        100.0 * (said(Verdict::NoEffect) + said(Verdict::TooEarly)) as f64
            / draws.len().max(1) as f64,
    );
    Ok(())
}

fn print_row(replayed: &Replayed) {
    let measured = replayed
        .report
        .summary
        .as_ref()
        .map_or(0, |summary| summary.lessons);
    let verdict = replayed.verdict.map_or("no lesson", Verdict::as_str);
    let ratio = replayed
        .report
        .summary
        .as_ref()
        .and_then(|s| {
            s.relative
                .estimate
                .map(|e| (e, s.relative.low, s.relative.high))
        })
        .map(|(e, low, high)| {
            let high = high.map_or("inf".to_string(), |h| format!("{h:.2}"));
            format!("  ratio {e:.2} [{low:.2}, {high}]")
        })
        .unwrap_or_default();
    println!(
        "{:<34} {:>8} {:>9} {:>10} {:>12}{ratio}",
        replayed.repo,
        replayed.report.lessons.len(),
        measured,
        replayed.report.lessons.len() - measured,
        verdict,
    );
}
