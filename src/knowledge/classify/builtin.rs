//! The built-in classifier (SPEC §2): offline, deterministic, allocation-light.
//!
//! Evidence for each label is summed from keyword and phrase rules over the reviewer's prose
//! (`lexicon`), a few API names in code spans and blocks, the shape of sentences (questions,
//! rhetorical "shouldn't this…?" questions that assert a problem, polite requests that are not
//! questions), and where an inline comment sits (a test file, a docs file, a comment line in the
//! diff). Evidence `e` becomes a confidence `1 - exp(-e)`.
//!
//! Identifiers in code spans never trigger prose rules: "rename `token_count`" is about naming,
//! not about secrets.

mod lexicon;
mod text;

use super::{Classification, CommentText, Label, Scored};
use lexicon::{CODE_RULES, Lexicon, PROSE_RULES, RULE_COUNT};
use text::{Text, Zone};

/// Confidence (0..=1) from which a label is predicted; [`classify`] reports only labels at or
/// above it. 0.5 is reached by about 0.7 cue units: one clear cue, or two weak ones.
pub const THRESHOLD: f32 = 0.5;

/// Multiplier (unitless) for rules matched in quoted text: often someone else's words.
const QUOTE_WEIGHT: f32 = 0.5;
/// Evidence (cue units) for a sentence ending in "?" that is not a polite request.
const QUESTION_CUE: f32 = 1.5;
/// Evidence (cue units) that a "shouldn't/isn't/won't … ?" question asserts a problem; weak,
/// because "shouldn't this be `pub(crate)`?" is about style: it needs another bug cue.
const RHETORICAL_BUG_CUE: f32 = 0.6;
/// Evidence (cue units) that a comment on a test file is about testing; weak, since a typo in a
/// test is still a typo.
const TEST_PATH_CUE: f32 = 0.6;
/// Evidence (cue units) that a comment on a docs file (README, *.md, docs/) is about docs.
const DOCS_PATH_CUE: f32 = 0.8;
/// Evidence (cue units) that a comment on a code comment line of the diff is about docs.
const COMMENT_LINE_CUE: f32 = 0.4;

/// Words opening a "could you …?" request: asking for a change, not asking a question.
const REQUEST_VERBS: &[&str] = &[
    "add", "use", "move", "put", "make", "split", "rename", "remove", "drop", "extract", "change",
    "update", "fix", "borrow", "stream", "hoist", "mock", "inject", "write", "include", "pass",
    "return", "switch", "replace", "keep", "avoid", "wrap", "handle", "cover", "run", "revert",
    "link", "reuse", "get", "have", "turn", "sort", "check", "call", "merge", "batch",
];

/// Negated auxiliaries that open a question asserting a problem ("doesn't this overflow?").
const NEGATED_AUXILIARIES: &[&str] = &[
    "shouldn't",
    "isn't",
    "doesn't",
    "won't",
    "wouldn't",
    "aren't",
    "don't",
    "can't",
    "didn't",
];

/// Classifies one comment. Deterministic; labels at or above [`THRESHOLD`], most confident first,
/// ties in canonical label order.
pub fn classify(text: &CommentText) -> Classification {
    let parsed = Text::parse(text.body);
    let mut evidence = [0.0_f32; Label::ALL.len()];
    rule_evidence(&parsed, &mut evidence);
    sentence_evidence(&parsed, &mut evidence);
    if let Some(path) = text.path {
        path_evidence(path, &mut evidence);
    }
    if text.diff_hunk.is_some_and(ends_on_code_comment) {
        evidence[Label::Documentation as usize] += COMMENT_LINE_CUE;
    }
    let mut labels: Classification = Label::ALL
        .into_iter()
        .map(|label| Scored {
            label,
            confidence: confidence(evidence[label as usize]),
        })
        .filter(|scored| scored.confidence >= THRESHOLD)
        .collect();
    labels.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
    labels
}

/// Maps evidence (cue units, may be negative) to a confidence in `0.0..1.0`.
fn confidence(evidence: f32) -> f32 {
    1.0 - (-evidence.max(0.0)).exp()
}

/// Adds the evidence of every lexicon rule whose phrase occurs, each rule once.
fn rule_evidence(text: &Text, evidence: &mut [f32; Label::ALL.len()]) {
    let mut counted = [0_u64; RULE_COUNT.div_ceil(64)];
    let (prose, code): (&Lexicon, &Lexicon) = (&PROSE_RULES, &CODE_RULES);
    for (at, token) in text.tokens.iter().enumerate() {
        let (rules, weight) = match token.zone {
            Zone::Prose => (prose, 1.0),
            Zone::Quote => (prose, QUOTE_WEIGHT),
            Zone::Code => (code, 1.0),
        };
        for entry in rules.starting_with(text.word(token)) {
            let (slot, bit) = (entry.id / 64, 1_u64 << (entry.id % 64));
            if counted[slot] & bit != 0 || !phrase_continues(text, at, &entry.rest) {
                continue;
            }
            counted[slot] |= bit;
            for &(label, cue) in entry.weights {
                evidence[label as usize] += cue * weight;
            }
        }
    }
}

/// Whether the tokens after `at` are `rest`, in the same zone and sentence.
fn phrase_continues(text: &Text, at: usize, rest: &[&str]) -> bool {
    let first = &text.tokens[at];
    rest.iter().enumerate().all(|(offset, word)| {
        text.tokens.get(at + 1 + offset).is_some_and(|next| {
            next.zone == first.zone && next.sentence == first.sentence && text.word(next) == *word
        })
    })
}

/// Questions (unless they are polite requests) and rhetorical questions that assert a bug.
fn sentence_evidence(text: &Text, evidence: &mut [f32; Label::ALL.len()]) {
    let (mut question, mut rhetorical) = (false, false);
    for (index, sentence) in text.sentences.iter().enumerate() {
        if !sentence.question {
            continue;
        }
        let end = text
            .sentences
            .get(index + 1)
            .map_or(text.tokens.len(), |s| s.first as usize);
        let tokens = &text.tokens[sentence.first as usize..end];
        if tokens.first().is_none_or(|t| t.zone != Zone::Prose) {
            continue;
        }
        let mut words = tokens
            .iter()
            .filter(|t| t.zone == Zone::Prose)
            .map(|t| text.word(t));
        let first = words.clone().next();
        let (mut before, mut last, mut asks_for_change, mut please) = ("", "", false, false);
        for word in words.by_ref() {
            asks_for_change |= matches!(before, "can" | "could" | "would" | "will")
                && matches!(last, "you" | "we")
                && REQUEST_VERBS.contains(&word);
            please |= word == "please";
            (before, last) = (last, word);
        }
        question |= !asks_for_change && !please;
        rhetorical |= first.is_some_and(|word| NEGATED_AUXILIARIES.contains(&word));
    }
    if question {
        evidence[Label::Question as usize] += QUESTION_CUE;
    }
    if rhetorical {
        evidence[Label::Bug as usize] += RHETORICAL_BUG_CUE;
    }
}

/// Test files and docs files.
fn path_evidence(path: &str, evidence: &mut [f32; Label::ALL.len()]) {
    let name = path.rsplit('/').next().unwrap_or_default();
    let in_dir = |dirs: &[&str]| {
        path.rsplit('/')
            .skip(1)
            .any(|dir| dirs.iter().any(|d| dir.eq_ignore_ascii_case(d)))
    };
    let name = name.to_ascii_lowercase();
    let stem = name.split('.').next().unwrap_or_default();
    let is_test = in_dir(&["tests", "test", "__tests__", "spec", "testdata"])
        || stem.starts_with("test_")
        || stem.ends_with("_test")
        || (stem.ends_with("test") && name.ends_with(".java"))
        || [".test.", ".spec."]
            .iter()
            .any(|marker| name.contains(marker));
    if is_test {
        evidence[Label::Testing as usize] += TEST_PATH_CUE;
    }
    let is_docs = in_dir(&["docs", "doc"])
        || [".md", ".rst", ".adoc"]
            .iter()
            .any(|ext| name.ends_with(ext))
        || stem == "readme"
        || stem == "changelog";
    if is_docs {
        evidence[Label::Documentation as usize] += DOCS_PATH_CUE;
    }
}

/// Whether the line the comment is on (the hunk's last line) is a code comment.
fn ends_on_code_comment(hunk: &str) -> bool {
    let Some(line) = hunk.lines().next_back() else {
        return false;
    };
    let code = line.get(1..).unwrap_or_default().trim_start();
    code.starts_with("//")
        || code.starts_with("/*")
        || code.starts_with("* ")
        || code.starts_with("\"\"\"")
        || code.starts_with("-- ")
        || (code.starts_with("# ") || code == "#")
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
        assert!(
            scored
                .iter()
                .all(|s| (THRESHOLD..1.0).contains(&s.confidence))
        );
    }
}
