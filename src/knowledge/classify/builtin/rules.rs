//! The hand-written rules of the built-in classifier: evidence per label from keyword and phrase
//! rules over the reviewer's prose (`lexicon`), a few API names in code spans and blocks, the shape
//! of sentences (questions, rhetorical "shouldn't this…?" questions that assert a problem, polite
//! requests that are not questions), and where an inline comment sits (a test file, a docs file, a
//! comment line in the diff). The linear model reads this evidence as features of its own.
//!
//! Identifiers in code spans never trigger prose rules: "rename `token_count`" is about naming,
//! not about secrets.

use super::super::{CommentText, Label};
use super::lexicon::{CODE_RULES, Lexicon, PROSE_RULES, RULE_COUNT};
use super::text::{Text, Zone};

/// Evidence per label (cue units: 1.0 is one clear cue, negative cancels) for one comment.
pub fn evidence(text: &CommentText, parsed: &Text) -> [f32; Label::ALL.len()] {
    let mut evidence = [0.0_f32; Label::ALL.len()];
    rule_evidence(parsed, &mut evidence);
    sentence_evidence(parsed, &mut evidence);
    if let Some(path) = text.path {
        path_evidence(path, &mut evidence);
    }
    if text.diff_hunk.is_some_and(ends_on_code_comment) {
        evidence[Label::Documentation as usize] += COMMENT_LINE_CUE;
    }
    evidence
}

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
