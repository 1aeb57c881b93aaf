//! Whether a finding's title is a whole sentence of advice a maintainer could sign: the title
//! measure of the findings scorecard (issue 48), and the gate the built-in selection ranks its
//! candidates by. It judges a title as published, whoever made it.

use super::norms::states_a_norm;
use crate::knowledge::embed::builtin;

use super::words::{
    ADVICE_PHRASES, ADVICE_VERBS, COURTESIES, DANGLING, DEICTIC, EMOJI_CODES, FIRST_PERSON,
    FUNCTION_WORDS, HEDGES, REASSURANCES, REPLY_OPENERS, SMILEYS, TITLE_CHARS, WRITER_PHRASES,
    words_of,
};

/// Words a title needs, and words of it that name something (as the built-in embedder reads
/// words).
const MIN_WORDS: usize = 3;
const MIN_CONTENT_WORDS: usize = 2;

/// Conjunctions, connectives and subjectless modals a sentence cannot open with and stay whole
/// ("But you should …", "Should also be …", "Needs a test").
const LEADING_CONJUNCTIONS: &[&str] = &[
    "and",
    "but",
    "or",
    "nor",
    "so",
    "because",
    "which",
    "although",
    "though",
    "whereas",
    "therefore",
    "thus",
    "hence",
    "otherwise",
    "also",
    "should",
    "must",
    "needs",
    "need",
];

/// Whether `title` is a whole sentence of advice.
///
/// Whole: at most [`TITLE_CHARS`], a few words naming something, not cut (no `…`), brackets,
/// code spans and quotes closed, no leading conjunction, not ending on a function word or on a
/// word that points out of sight ("Remove this"), no link, issue reference, mention, emoji code
/// or smiley, prose rather than code. Advice: an imperative, a request, a modal or a statement of
/// a rule ([`ADVICE_VERBS`], [`ADVICE_PHRASES`] once [`HEDGES`] are dropped, or a norm
/// ([`states_a_norm`])); not a question, not a reassurance, not a reply, not about the writer nor
/// to the person.
pub fn whole_sentence_of_advice(title: &str) -> bool {
    title.chars().count() <= TITLE_CHARS
        && is_whole(title)
        && gives_advice(title)
        && !is_personal(title)
}

/// The words of a lower-cased `sentence`, none empty.
fn words_in(lower: &str) -> Vec<&str> {
    words_of(lower)
        .into_iter()
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether `sentence` reads as a whole sentence (see [`whole_sentence_of_advice`]), at any length.
fn is_whole(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    let words = words_in(&lower);
    let (Some(first), Some(last)) = (words.first(), words.last()) else {
        return false;
    };
    let balanced =
        |open: char, close: char| sentence.matches(open).count() == sentence.matches(close).count();
    let even = |mark: char| sentence.matches(mark).count().is_multiple_of(2);
    let unquoted: Vec<&str> = lower
        .split_whitespace()
        .filter(|w| !w.contains('`'))
        .collect();
    let prose = unquoted
        .iter()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_alphabetic() || c == '\''))
        .count();
    let refers_or_decorates = unquoted.iter().any(|w| {
        refers_elsewhere(w) || EMOJI_CODES.contains(w.trim_matches(|c: char| ",.;!?()".contains(c)))
    }) || sentence.split_whitespace().any(|w| SMILEYS.contains(&w));
    // A code span that ends the sentence is its last word, whatever it holds ("… end with a `.`").
    let ends_in_code = sentence
        .split_whitespace()
        .last()
        .is_some_and(|w| w.trim_end_matches(['.', '!']).ends_with('`'));
    let ending = [FUNCTION_WORDS, DEICTIC, DANGLING];
    words.len() >= MIN_WORDS
        && builtin::words(sentence).len() >= MIN_CONTENT_WORDS
        && sentence
            .starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit() || "`\"'".contains(c))
        && !sentence.contains('\n')
        && !sentence.ends_with(['…', ',', ':', ';', '-', '—', '(', '/'])
        && !sentence.ends_with("..")
        && balanced('(', ')')
        && balanced('[', ']')
        && balanced('{', '}')
        && balanced('“', '”')
        && even('`')
        && even('"')
        && !LEADING_CONJUNCTIONS.contains(first)
        && (ends_in_code || !ending.iter().any(|list| list.contains(last)))
        && !refers_or_decorates
        && 3 * prose >= 2 * unquoted.len()
}

/// Whether `word` (not in a code span) is a link, a mention or an issue reference: it points
/// where a title's reader cannot follow.
pub(super) fn refers_elsewhere(word: &str) -> bool {
    let bare = word.trim_matches(|c: char| "(),.;:!?".contains(c));
    bare.contains("://")
        || bare.starts_with('@')
        || (bare.len() > 1
            && bare.starts_with('#')
            && bare[1..].chars().all(|c| c.is_ascii_digit()))
}

/// Whether `sentence` gives advice or states a rule (see [`whole_sentence_of_advice`]), whoever
/// it speaks of.
pub(super) fn gives_advice(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    let words = words_in(&lower);
    let mut padded = format!(" {lower} ");
    for hedge in HEDGES {
        padded = padded.replace(hedge, " ");
    }
    let first = words.first().copied().unwrap_or_default();
    let advice = ADVICE_VERBS.contains(&first)
        || ADVICE_PHRASES.iter().any(|p| padded.contains(p))
        || states_a_norm(sentence);
    advice && !lower.trim_end().ends_with('?') && !REASSURANCES.iter().any(|r| lower.starts_with(r))
}

/// Whether `sentence` answers someone ([`REPLY_OPENERS`]), speaks of its writer
/// ([`FIRST_PERSON`], [`WRITER_PHRASES`]) or to the person ([`COURTESIES`]).
fn is_personal(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    let words = words_in(&lower);
    let padded = format!(" {lower} ");
    words.first().is_some_and(|w| REPLY_OPENERS.contains(w))
        || words
            .iter()
            .any(|w| FIRST_PERSON.contains(w) || COURTESIES.contains(w))
        || WRITER_PHRASES.iter().any(|p| padded.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_sentences_of_advice_are_accepted() {
        for title in [
            "Avoid unwrap in the request handler.",
            "Please add a test for the empty input",
            "Public API changes need to go through a KIP first.",
            "Use `assertThrows` instead of a try/catch block",
            "We don't accept pull requests that only fix typos.",
            "Add `babel` to the peer dependencies if it is included",
            "Squash the PR into a single commit before it can be merged",
            "Titles should not end with a `.`",
        ] {
            assert!(whole_sentence_of_advice(title), "{title}");
        }
    }

    #[test]
    fn fragments_are_not_whole() {
        for title in [
            // Cut, unbalanced, dangling, pointing out of sight, opened by a conjunction.
            "Use the new helper for the parser…",
            "Never mix formatting with other things)",
            "Move the parsing code into a function of",
            "Please add the missing check here",
            "Remove this.",
            "But you should add a changelog entry",
            "Should also be an expectation wrapped value",
            // A reference, a link, a mention, a decoration; code rather than prose.
            "Add a test for issue #123",
            "Follow https://example.com/style for the naming",
            "Please ask @alice about the naming",
            "Keep the old name for now :)",
            "Use `a.b()` x.y() z.w() q.r() instead",
            // Too short to name anything.
            "Use it.",
        ] {
            assert!(!is_whole(title), "{title}");
            assert!(!whole_sentence_of_advice(title), "{title}");
        }
    }

    #[test]
    fn whole_sentences_that_are_no_advice_are_refused() {
        for title in [
            "The parser reads the whole file into memory.",
            "Do we need to keep the shared cache?",
            "This should be fine for the new parser.",
            "Don't worry about the failing macOS build.",
        ] {
            assert!(is_whole(title), "{title}");
            assert!(!whole_sentence_of_advice(title), "{title}");
        }
    }

    #[test]
    fn advice_about_the_writer_or_to_the_person_is_refused() {
        for title in [
            "I think we should keep the old name",
            "Thanks, please keep the old name for the flag",
            "Yes, the handler should return an error",
            "We should rename the flag as I need to ship soon",
        ] {
            assert!(gives_advice(title), "{title}");
            assert!(!whole_sentence_of_advice(title), "{title}");
        }
    }

    #[test]
    fn a_sentence_longer_than_a_title_is_refused() {
        let long = format!("You should keep {} short", "this name ".repeat(12));
        assert!(long.chars().count() > TITLE_CHARS);
        assert!(is_whole(&long) && gives_advice(&long));
        assert!(!whole_sentence_of_advice(&long));
    }
}
