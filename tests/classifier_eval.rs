//! Measures the built-in classifier on the labelled development set
//! (`tests/fixtures/classifier_dev.jsonl`): per-label precision, recall and F1, macro-F1, on the
//! whole set and on the held-out quarter (every 4th line, not looked at while tuning rules), plus
//! a throughput figure. Run with `--nocapture` (and `--release` for a meaningful throughput).
//! `CLASSIFIER_EVAL_ERRORS=1` also prints the mistakes on the development (non-held-out) lines.

use std::time::Instant;

use gitlore::knowledge::classify::builtin::classify;
use gitlore::knowledge::classify::{CommentText, Label};
use serde::Deserialize;

/// Macro-F1 floors, a little below the measured figures (see the report in the test output).
const FULL_MACRO_F1_FLOOR: f64 = 0.88;
const HELD_OUT_MACRO_F1_FLOOR: f64 = 0.82;

#[derive(Deserialize)]
struct Example {
    id: String,
    body: String,
    path: Option<String>,
    diff_hunk: Option<String>,
    labels: Vec<Label>,
}

impl Example {
    fn text(&self) -> CommentText<'_> {
        CommentText {
            body: &self.body,
            path: self.path.as_deref(),
            diff_hunk: self.diff_hunk.as_deref(),
        }
    }
}

fn load() -> Vec<Example> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/classifier_dev.jsonl"
    );
    let raw = std::fs::read_to_string(path).expect("the dev set is readable");
    raw.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("bad line {line}: {e}")))
        .collect()
}

/// Prints the per-label table of one split and returns its macro-F1.
fn report(name: &str, examples: &[&Example]) -> f64 {
    let mut counts = [(0_u32, 0_u32, 0_u32); Label::ALL.len()]; // (tp, fp, fn)
    for example in examples {
        let predicted: Vec<Label> = classify(&example.text()).iter().map(|s| s.label).collect();
        for label in Label::ALL {
            let (tp, fp, fn_) = &mut counts[label as usize];
            match (predicted.contains(&label), example.labels.contains(&label)) {
                (true, true) => *tp += 1,
                (true, false) => *fp += 1,
                (false, true) => *fn_ += 1,
                (false, false) => {}
            }
        }
    }
    println!(
        "\n{name}: {} comments\n{:<14} {:>5} {:>5} {:>5} {:>4}",
        examples.len(),
        "label",
        "P",
        "R",
        "F1",
        "n"
    );
    let mut f1_sum = 0.0;
    for label in Label::ALL {
        let (tp, fp, fn_) = counts[label as usize];
        let ratio = |num: u32, den: u32| {
            if den == 0 {
                0.0
            } else {
                f64::from(num) / f64::from(den)
            }
        };
        let (p, r) = (ratio(tp, tp + fp), ratio(tp, tp + fn_));
        let f1 = if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        };
        f1_sum += f1;
        println!(
            "{:<14} {p:>5.2} {r:>5.2} {f1:>5.2} {:>4}",
            label.as_str(),
            tp + fn_
        );
    }
    let macro_f1 = f1_sum / Label::ALL.len() as f64;
    println!("{:<14} {:>17.3}", "macro-F1", macro_f1);
    macro_f1
}

fn print_errors(examples: &[&Example]) {
    for example in examples {
        let mut predicted: Vec<Label> = classify(&example.text()).iter().map(|s| s.label).collect();
        predicted.sort();
        if predicted != example.labels {
            println!(
                "{} want {:?} got {:?}: {}",
                example.id, example.labels, predicted, example.body
            );
        }
    }
}

#[test]
fn builtin_classifier_is_useful_on_the_dev_set() {
    let examples = load();
    assert!(examples.len() >= 300);
    let all: Vec<&Example> = examples.iter().collect();
    let split = |held: bool| -> Vec<&Example> {
        let indexed = examples.iter().enumerate();
        indexed
            .filter(|(index, _)| (index % 4 == 3) == held)
            .map(|(_, e)| e)
            .collect()
    };
    let (held_out, dev) = (split(true), split(false));
    if std::env::var_os("CLASSIFIER_EVAL_ERRORS").is_some() {
        print_errors(&dev);
    }
    report("development (3/4)", &dev);
    let held_out_f1 = report("held-out (every 4th line)", &held_out);
    let full_f1 = report("full set", &all);
    assert!(full_f1 >= FULL_MACRO_F1_FLOOR, "full macro-F1 {full_f1:.3}");
    assert!(
        held_out_f1 >= HELD_OUT_MACRO_F1_FLOOR,
        "held-out macro-F1 {held_out_f1:.3}"
    );
}

#[test]
fn prints_classifier_throughput() {
    let examples = load();
    // Typical comments are ~200 characters: pair each example with the next one.
    let bodies: Vec<String> = examples
        .iter()
        .zip(examples.iter().cycle().skip(1))
        .map(|(a, b)| format!("{} {}", a.body, b.body))
        .collect();
    let rounds = 100;
    let start = Instant::now();
    let mut labelled = 0_usize;
    for _ in 0..rounds {
        for (example, body) in examples.iter().zip(&bodies) {
            labelled += classify(&CommentText {
                body,
                ..example.text()
            })
            .len();
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let mean_chars = bodies.iter().map(|b| b.chars().count()).sum::<usize>() / bodies.len();
    println!(
        "\nclassifier throughput: {:.0} comments/s single-threaded (mean body {mean_chars} chars)",
        (rounds * bodies.len()) as f64 / seconds,
    );
    assert!(labelled > 0);
}
