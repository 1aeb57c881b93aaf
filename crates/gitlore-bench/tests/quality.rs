//! The noise filter and the classifier on the labelled corpus of real review comments
//! (`tests/fixtures/corpus/`): floors a little below the figures `gitlore-bench quality` prints,
//! on the test split that nothing is tuned on and by leaving each training repository out; and
//! the shipped model files are exactly what `gitlore-bench train` makes of the training split.

use std::path::Path;

use gitlore_bench::quality::{self, Models};
use gitlore_lab::builtin::model::{LABELS_TSV, Model, NOISE_TSV};
use gitlore_lab::builtin::train::Options;
use gitlore_lab::corpus::{Corpus, Split};

/// Measured on the test split: macro-F1 0.553 (0.491 with twenty-one training repositories, 0.557
/// with thirty-one, 0.535 with thirty-nine: one of its five security comments fewer found, the
/// other nine labels' mean 0.556 to 0.558; 0.553 with forty-five), noise precision 0.957 and
/// recall 0.884, 96.2 % of substantive comments labelled (0.956, 0.862 and 96.2 % before the
/// noise rules of 2026-11-29 and the noise model trained again after them, threshold 0.85 to
/// 0.825; 0.946, 0.891 and 95.2 % with thirty-nine training repositories, threshold 0.775). Short of every target
/// but noise precision (0.75, 0.95, 0.92, 97 %); see the corpus README.
const TEST_MACRO_F1: f64 = 0.53;
const TEST_NOISE_PRECISION: f64 = 0.94;
const TEST_NOISE_RECALL: f64 = 0.85;
const TEST_LABELLED: f64 = 0.94;
/// Measured: 0.537 pooled over the forty-five training repositories, each left out in turn (0.539
/// over thirty-nine, 0.504 over thirty-one); noise recall 0.854 at precision 0.958.
const LEAVE_ONE_OUT_MACRO_F1: f64 = 0.51;

fn corpus() -> Corpus {
    Corpus::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/corpus"))
        .expect("the corpus loads and passes its checks")
}

#[test]
fn the_corpus_is_large_varied_and_split_by_repository() {
    let corpus = corpus();
    assert!(corpus.records.len() >= 1_500, "{}", corpus.records.len());
    assert!(corpus.repos().len() >= 12);
    assert!(corpus.themes.len() >= 40);
    let test: Vec<&str> = corpus
        .repos()
        .into_iter()
        .filter(|repo| corpus.split_of(repo) == Split::Test)
        .collect();
    assert!(test.len() >= 4, "{test:?}");
    for reserved in [
        "django/django",
        "rust-lang/rust",
        "rust-lang/cargo",
        "tinygrad/tinygrad",
    ] {
        assert!(
            !corpus.repos().contains(&reserved),
            "{reserved} is reserved"
        );
    }
    assert!(!corpus.repos().contains(&"kubernetes/kubernetes"));
}

#[test]
fn the_test_split_stays_above_its_floors() {
    let corpus = corpus();
    let scores = quality::score(&corpus.split(Split::Test), Models::shipped());
    let figures = format!(
        "macro-F1 {:.3}, noise P {:.3} R {:.3}, labelled {:.3}",
        scores.macro_f1(),
        scores.noise.precision(),
        scores.noise.recall(),
        scores.labelled_share()
    );
    assert!(scores.macro_f1() >= TEST_MACRO_F1, "{figures}");
    assert!(
        scores.noise.precision() >= TEST_NOISE_PRECISION,
        "{figures}"
    );
    assert!(scores.noise.recall() >= TEST_NOISE_RECALL, "{figures}");
    assert!(scores.labelled_share() >= TEST_LABELLED, "{figures}");
}

#[test]
fn a_repository_left_out_of_training_stays_above_its_floor() {
    let corpus = corpus();
    let (pooled, _) = quality::leave_one_repo_out(&corpus.split(Split::Train), Options::default());
    assert!(
        pooled.macro_f1() >= LEAVE_ONE_OUT_MACRO_F1,
        "{:.3}",
        pooled.macro_f1()
    );
}

#[test]
fn the_shipped_models_are_what_training_makes_of_the_training_split() {
    let corpus = corpus();
    let (labels, noise) = quality::train_models(&corpus.split(Split::Train), Options::default());
    let shipped_labels = Model::parse(LABELS_TSV).unwrap();
    let shipped_noise = Model::parse(NOISE_TSV).unwrap();
    assert!(
        labels.to_tsv("") == shipped_labels.to_tsv(""),
        "labels.tsv is stale: run `gitlore-bench train`"
    );
    assert!(
        noise.to_tsv("") == shipped_noise.to_tsv(""),
        "noise.tsv is stale: run `gitlore-bench train`"
    );
}

#[test]
fn the_second_labeller_is_scored_against_the_first_as_the_classifier_is() {
    let mut corpus = corpus();
    assert_eq!(corpus.second_pass.len(), 200);
    // Measured: macro-F1 0.791, noise precision 0.955 and recall 0.964, 94.4 % labelled.
    let people = quality::second_labeller(&corpus);
    assert_eq!(people.comments, 200);
    let macro_f1 = people.macro_f1();
    assert!((0.75..0.85).contains(&macro_f1), "{macro_f1:.3}");
    // A second pass that copies the first agrees with it entirely.
    for second in &mut corpus.second_pass {
        let first = corpus
            .records
            .iter()
            .find(|r| r.id == second.id)
            .expect("every second-pass id is a record");
        second.noise = first.noise.clone();
        second.labels = first.labels.clone();
    }
    let copied = quality::second_labeller(&corpus);
    assert_eq!(copied.macro_f1(), 1.0);
    assert_eq!(
        (copied.noise.precision(), copied.noise.recall()),
        (1.0, 1.0)
    );
}
