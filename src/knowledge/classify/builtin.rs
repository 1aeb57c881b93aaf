//! The built-in classifier (SPEC §2): offline, deterministic, fast.
//!
//! A linear model ([`model`], trained from the labelled corpus of real review comments by
//! [`train`]) reads the features of [`features`]: words, word pairs, code tokens, the comment's
//! shape, where it sits, and the evidence of the hand-written rules ([`rules`]), so the rules
//! still count where they are sure. Every comment with text gets at least one label: when no
//! label reaches its threshold, the one closest to it is given.

mod features;
mod lexicon;
pub mod model;
mod rules;
mod text;
pub mod train;

use super::{Classification, CommentText, Label, Scored};
use features::Hashed;
use model::{LABELS, Model};
use text::{Text, Zone};

/// Classifies one comment with the shipped model. Deterministic; labels most confident first,
/// ties in canonical label order. A comment with no words (empty, or code only) gets none.
pub fn classify(text: &CommentText) -> Classification {
    classify_with(&LABELS, text)
}

/// Classifies one comment with `model`, a model whose outputs are the ten labels in canonical
/// order.
pub fn classify_with(model: &Model, text: &CommentText) -> Classification {
    let parsed = Text::parse(text.body);
    if !parsed.tokens.iter().any(|token| token.zone == Zone::Prose) {
        return Vec::new();
    }
    let probabilities = model.probabilities(&hashed_features(text, &parsed));
    let mut labels: Classification = Label::ALL
        .into_iter()
        .filter(|label| probabilities[*label as usize] >= model.thresholds[*label as usize])
        .map(|label| Scored {
            label,
            confidence: probabilities[label as usize],
        })
        .collect();
    if labels.is_empty() {
        let closest = Label::ALL.into_iter().max_by(|a, b| {
            let ratio = |l: &Label| probabilities[*l as usize] / model.thresholds[*l as usize];
            ratio(a).total_cmp(&ratio(b)).then(b.cmp(a))
        });
        labels.extend(closest.map(|label| Scored {
            label,
            confidence: probabilities[label as usize],
        }));
    }
    labels.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
    labels
}

/// Whether `noise` (a model with one output, such as [`model::NOISE`]) calls a comment body
/// content-free. A body with no words is left to the rules.
pub fn content_free(noise: &Model, body: &str) -> bool {
    let parsed = Text::parse(body);
    if !parsed.tokens.iter().any(|token| token.zone == Zone::Prose) {
        return false;
    }
    let text = CommentText {
        body,
        ..CommentText::default()
    };
    let probabilities = noise.probabilities(&hashed_features(&text, &parsed));
    probabilities
        .first()
        .zip(noise.thresholds.first())
        .is_some_and(|(p, threshold)| p >= threshold)
}

fn hashed_features(text: &CommentText, parsed: &Text) -> Hashed {
    let mut features = Hashed::default();
    features::extract(text, parsed, &mut features);
    features.dedup();
    features
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(body: &str, path: Option<&str>) -> Vec<Label> {
        let text = CommentText {
            body,
            path,
            diff_hunk: None,
        };
        classify(&text).into_iter().map(|s| s.label).collect()
    }

    #[test]
    fn reads_the_examples_of_the_spec() {
        assert_eq!(labels("nit: trailing whitespace", None), [Label::Nitpick]);
        assert_eq!(labels("nice!", None), [Label::Praise]);
        let freed = labels(
            "Shouldn't this be freed here? It leaks on the error path.",
            None,
        );
        assert!(
            freed.contains(&Label::Bug) && freed.contains(&Label::Question),
            "{freed:?}"
        );
        let case = labels(
            "Please add a case for the empty list.",
            Some("tests/parse.rs"),
        );
        assert_eq!(case, [Label::Testing]);
    }

    #[test]
    fn code_spans_do_not_trigger_prose_rules() {
        assert!(labels("The secret token leaks into the log.", None).contains(&Label::Security));
        assert!(!labels("Rename `token_count` to `n_tokens`.", None).contains(&Label::Security));
    }

    #[test]
    fn empty_and_code_only_bodies_get_no_label() {
        assert!(labels("", None).is_empty());
        assert!(labels("```rust\nlet secret_token = test_nice();\n```", None).is_empty());
    }

    #[test]
    fn polite_requests_are_not_questions() {
        assert!(!labels("Could you add a test for this?", None).contains(&Label::Question));
        assert!(labels("Why a channel of 100?", None).contains(&Label::Question));
    }

    #[test]
    fn confidences_are_sorted_and_in_range() {
        let scored = classify(&CommentText {
            body: "nit: nice, but is this slow?",
            ..Default::default()
        });
        assert!(scored.len() >= 2);
        assert!(
            scored
                .windows(2)
                .all(|w| w[0].confidence >= w[1].confidence)
        );
        assert!(scored.iter().all(|s| (0.0..1.0).contains(&s.confidence)));
    }
}
