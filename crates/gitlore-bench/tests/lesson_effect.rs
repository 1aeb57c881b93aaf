//! Evidence that the lesson-effect measurement (behaviour §3.4) is sound: simulated review
//! streams with a known effect are estimated within their 90 % intervals, and an A/A replay of
//! the corpus's real comments (nothing published) shows no effect. `gitlore-bench lesson-effect`
//! prints the same figures.

use std::path::Path;

use gitlore::domain::effect::Verdict;
use gitlore::knowledge::effect::simulate::{Stream, coverage};
use gitlore::knowledge::filter::NoiseRules;
use gitlore_bench::scorecard::aa_replay::{RESERVED, analyse_repo};
use gitlore_lab::corpus::{Corpus, Record};

const RUNS: usize = 200;
/// Runs whose interval must hold the truth: 90 % of them.
const COVERED: usize = RUNS * 9 / 10;

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

#[test]
fn known_effects_are_estimated_within_their_intervals() {
    for drift in [1.0, 0.8] {
        for effect in [1.0, 0.7, 0.3] {
            let c = coverage(&stream(effect, drift), RUNS, 7);
            assert!(
                c.ratio_covered >= COVERED && c.relative_covered >= COVERED,
                "effect {effect}, drift {drift}: {c:?}"
            );
        }
    }
}

#[test]
fn a_strong_effect_is_found_and_no_effect_is_seldom_called_one() {
    let strong = coverage(&stream(0.3, 0.8), RUNS, 11);
    assert!(strong.relative_fewer >= RUNS * 3 / 4, "{strong:?}");
    let none = coverage(&stream(1.0, 0.8), RUNS, 11);
    assert!(none.relative_fewer <= RUNS / 10, "{none:?}");
}

#[test]
fn the_corpus_replayed_with_nothing_published_shows_no_effect() {
    let corpus =
        Corpus::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/corpus"))
            .unwrap();
    let rules = NoiseRules::new(None, None, &[]);
    let mut quiet = 0;
    let mut repos = 0;
    for repo in corpus.repos() {
        assert!(!RESERVED.contains(&repo), "{repo} is reserved");
        let records: Vec<&Record> = corpus.records.iter().filter(|r| r.repo == repo).collect();
        let replayed = analyse_repo(&records, &rules).unwrap().replay(1);
        repos += 1;
        if matches!(
            replayed.verdict,
            None | Some(Verdict::NoEffect | Verdict::TooEarly)
        ) {
            quiet += 1;
        }
    }
    assert!(quiet * 10 >= repos * 9, "{quiet} of {repos} quiet");
}
