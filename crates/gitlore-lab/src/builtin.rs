//! The built-in classifier (behaviour §2): offline, deterministic, fast.
//!
//! Two linear models ([`model`], trained from the labelled corpus of real review comments by
//! [`train`]) read the features of `features`: words, word pairs, code tokens, the comment's
//! shape, where it sits, and the evidence of the hand-written rules (`rules`), so the rules still
//! count where they are sure. The label model gives every comment with words, code or a
//! suggestion block at least one label (when none reaches its threshold, the one closest to
//! it); the noise model says whether a comment with prose is content-free, for the noise filter.

mod features;
mod lexicon;
pub mod model;
mod rules;
mod text;
pub mod train;

use std::sync::LazyLock;

use sha2::{Digest, Sha256};

use crate::CommentText;
use crate::label::{Classification, Label, Scored};
use features::Hashed;
use model::{LABELS, Model, NOISE};
use text::{Text, Zone};

/// The version of the hand-written rules and features the models read. Bump it by hand with any
/// change to `rules`, `lexicon`, `text` or `features` that changes what a comment is read as (not
/// for a comment, a rename or a faster match): with the digest of both model files it makes
/// [`version`].
pub const RULES_VERSION: u32 = 1;

/// The built-in classifier's version: [`RULES_VERSION`] and a digest of both model files. A
/// stored classification made by another version is redone once (the version is part of the
/// stored key, with the body's hash).
pub fn version() -> &'static str {
    static VERSION: LazyLock<String> = LazyLock::new(|| {
        let mut digest = Sha256::new();
        digest.update(model::LABELS_TSV.as_bytes());
        digest.update(model::NOISE_TSV.as_bytes());
        let hex = hex::encode(digest.finalize());
        format!("builtin-v{RULES_VERSION}-{}", &hex[..12])
    });
    &VERSION
}

/// What the built-in models read in one comment.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// The noise model calls the body content-free (the rules of `filter` decide the rest).
    pub content_free: bool,
    /// The labels, most confident first; none for a comment with no words.
    pub labels: Classification,
}

/// Reads one comment with the shipped models. Deterministic.
pub fn read(text: &CommentText) -> Reading {
    read_with(&LABELS, &NOISE, text)
}

/// Classifies one comment with the shipped label model.
pub fn classify(text: &CommentText) -> Classification {
    read(text).labels
}

/// Reads one comment with `labels` (a model whose outputs are the ten labels in canonical order)
/// and `noise` (a model with one output). The body is tokenized and featurized once: the noise
/// model reads the body's features, the label model those and where the comment sits.
pub fn read_with(labels: &Model, noise: &Model, text: &CommentText) -> Reading {
    let parsed = Text::parse(text.body);
    let has_prose = parsed.tokens.iter().any(|token| token.zone == Zone::Prose);
    // A suggestion block alone (even an empty one, which deletes lines) proposes a change.
    if !has_prose && parsed.tokens.is_empty() && !text.body.contains("```suggestion") {
        return Reading {
            content_free: false,
            labels: Vec::new(),
        };
    }
    // About three features a token (word, stem, pair) and a few of shape: one allocation.
    let mut features = Hashed(Vec::with_capacity(3 * parsed.tokens.len() + 32));
    features::extract_noise(text, &parsed, &mut features);
    features.dedup();
    let content_free = has_prose
        && noise
            .probabilities(&features)
            .first()
            .zip(noise.thresholds.first())
            .is_some_and(|(p, threshold)| p >= threshold);
    if let Some(path) = text.path {
        let body_features = features.0.len();
        features::place(path, text.diff_hunk, &mut features);
        features.dedup_from(body_features);
    }
    Reading {
        content_free,
        labels: choose(labels, &labels.probabilities(&features)),
    }
}

/// The labels at or above their thresholds, or the one closest to its threshold when none is.
fn choose(model: &Model, probabilities: &[f32]) -> Classification {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_the_rules_version_and_the_models_digest_not_the_source_text() {
        let mut digest = Sha256::new();
        digest.update(model::LABELS_TSV.as_bytes());
        digest.update(model::NOISE_TSV.as_bytes());
        let models = hex::encode(digest.finalize());
        assert_eq!(
            version(),
            format!("builtin-v{RULES_VERSION}-{}", &models[..12])
        );
    }

    fn labels(body: &str, path: Option<&str>) -> Vec<Label> {
        let text = CommentText {
            body,
            path,
            diff_hunk: None,
        };
        classify(&text).into_iter().map(|s| s.label).collect()
    }

    #[test]
    fn reads_plain_review_remarks() {
        assert_eq!(labels("nit: trailing whitespace", None)[0], Label::Nitpick);
        let freed = labels(
            "Shouldn't this be freed here? It leaks on the error path.",
            None,
        );
        assert!(
            freed.contains(&Label::Bug) && freed.contains(&Label::Question),
            "{freed:?}"
        );
        assert!(labels("Why a channel of 100?", None).contains(&Label::Question));
    }

    #[test]
    fn code_spans_do_not_trigger_prose_rules() {
        assert!(labels("The secret token leaks into the log.", None).contains(&Label::Security));
        assert!(!labels("Rename `token_count` to `n_tokens`.", None).contains(&Label::Security));
    }

    #[test]
    fn every_comment_with_words_code_or_a_suggestion_gets_a_label() {
        assert!(!labels("Hmm, interesting.", None).is_empty());
        // When no label reaches its threshold, the one closest to it is chosen, and only it.
        let none_reached = choose(&LABELS, &[0.0; Label::ALL.len()]);
        assert_eq!(none_reached.len(), 1, "{none_reached:?}");
        assert!(labels("", None).is_empty());
        assert!(labels("  \n", None).is_empty());
        let code = labels("```rust\nlet secret_token = test_nice();\n```", None);
        assert!(
            !code.is_empty() && !code.contains(&Label::Security),
            "{code:?}"
        );
        assert!(!labels("```suggestion\n```", Some("docs/index.md")).is_empty());
    }

    #[test]
    fn content_free_remarks_are_read_as_such() {
        let read_body = |body| {
            read(&CommentText {
                body,
                ..Default::default()
            })
        };
        assert!(read_body("Thanks, merging once CI is green.").content_free);
        assert!(!read_body("This leaks the file handle when the read fails.").content_free);
    }

    #[test]
    fn confidences_are_sorted_and_in_range() {
        let scored = classify(&CommentText {
            body: "nit: nice, but is this slow? It allocates on every call.",
            ..Default::default()
        });
        assert!(scored.len() >= 2, "{scored:?}");
        assert!(
            scored
                .windows(2)
                .all(|w| w[0].confidence >= w[1].confidence)
        );
        assert!(scored.iter().all(|s| (0.0..=1.0).contains(&s.confidence)));
    }
}
