//! The LLM path on a capable model's recorded answers (`tests/fixtures/cassettes/`, replayed by the
//! stand-in endpoint of `gitlore::llm::cassettes`): the classifier's and the findings' scorecards on
//! the corpus's test split, as `gitlore-bench` prints them, are regression tests on real answers.
//! Every request must find its answer: a changed prompt or request is reported, not scored.

use std::process::Command;

const CASSETTES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/cassettes"
);
const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/corpus");

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

/// `args` followed by `--repo R` for each of `repos`.
fn with_repos<'a>(args: &[&'a str], repos: &[&'a str]) -> Vec<&'a str> {
    let named = repos.iter().flat_map(|repo| ["--repo", *repo]);
    args.iter().copied().chain(named).collect()
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
    // The figures measured when the cassettes were recorded (targets: macro-F1 0.82, noise
    // precision 0.95 and recall 0.92; the second labeller reaches 0.79).
    assert!(figure(all, "macro-F1") >= 0.823, "{all}");
    assert!(figure(all, "noise P") >= 0.964, "{all}");
    assert!(figure(all, " R") >= 0.971, "{all}");
    assert!(figure(all, "labelled") >= 0.966, "{all}");
    let first = out.lines().next().unwrap();
    assert!(
        figure(first, "tokens (") <= 150_000.0,
        "tokens per 1,000 comments classified: {first}"
    );
}

#[test]
fn the_recorded_synthesis_recovers_the_test_split_s_gold_themes_as_measured() {
    let repos = [
        "apache/kafka",
        "curl/curl",
        "nodejs/node",
        "pandas-dev/pandas",
        "tokio-rs/tokio",
    ];
    let out = bench(&with_repos(&["findings", "--configured-models"], &repos));
    println!("{out}");
    let total = out.lines().find(|l| l.starts_with("  test: ")).unwrap();
    // The figures measured when the cassettes were recorded (targets: 80% of gold themes,
    // evidence precision 0.85, no finding citing noise).
    assert!(figure(total, "test:") >= 87.0, "{total}");
    assert!(figure(total, "evidence precision") >= 0.763, "{total}");
    assert!(total.contains(", 0 findings citing noise"), "{total}");
}

/// The training sample's repositories, recorded for developing the LLM path on.
const TRAINING_SAMPLE: [&str; 8] = [
    "BurntSushi/ripgrep",
    "bevyengine/bevy",
    "hashicorp/vault",
    "home-assistant/core",
    "prettier/prettier",
    "python/cpython",
    "rails/rails",
    "sympy/sympy",
];

#[test]
fn the_recorded_training_sample_scores_as_measured() {
    let out = bench(&with_repos(
        &["llm-quality", "--split", "train"],
        &TRAINING_SAMPLE,
    ));
    let all = out.lines().find(|l| l.starts_with("all ")).unwrap();
    assert!(figure(all, "macro-F1") >= 0.886, "{all}");
    assert!(figure(all, "noise P") >= 0.976, "{all}");
    assert!(figure(all, " R") >= 0.930, "{all}");

    let out = bench(&with_repos(
        &["findings", "--configured-models"],
        &TRAINING_SAMPLE,
    ));
    let total = out.lines().find(|l| l.starts_with("  train: ")).unwrap();
    assert!(figure(total, "train:") >= 71.0, "{total}");
    assert!(figure(total, "evidence precision") >= 0.787, "{total}");
    assert!(total.contains(", 1 finding citing noise"), "{total}");
}
