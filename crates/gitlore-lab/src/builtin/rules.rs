//! The hand-written rules of the built-in classifier: evidence per label from keyword and phrase
//! rules over the reviewer's prose (`lexicon`), a few API names in code spans and blocks, and the
//! shape of sentences (questions, rhetorical "shouldn't this…?" questions that assert a problem,
//! polite requests that are not questions). The linear model reads this evidence as features of
//! its own; where a comment sits is a feature of its own too (`features`).
//!
//! Identifiers in code spans never trigger prose rules: "rename `token_count`" is about naming,
//! not about secrets.

use super::lexicon::{CODE_RULES, Lexicon, PROSE_RULES, RULE_COUNT};
use super::text::{Text, Zone};
use crate::label::Label;

/// Evidence per label (cue units: 1.0 is one clear cue, negative cancels) for one comment body.
pub fn evidence(parsed: &Text) -> [f32; Label::ALL.len()] {
    let mut evidence = [0.0_f32; Label::ALL.len()];
    rule_evidence(parsed, &mut evidence);
    sentence_evidence(parsed, &mut evidence);
    evidence
}

/// Multiplier (unitless) for rules matched in quoted text: often someone else's words.
const QUOTE_WEIGHT: f32 = 0.5;
/// Evidence (cue units) for a sentence ending in "?" that is not a polite request.
const QUESTION_CUE: f32 = 1.5;
/// Evidence (cue units) that a "shouldn't/isn't/won't … ?" question asserts a problem; weak,
/// because "shouldn't this be `pub(crate)`?" is about style: it needs another bug cue.
const RHETORICAL_BUG_CUE: f32 = 0.6;

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
