//! Whether a sentence or clause states a lesson, and how well: advice or a norm, or a request for
//! a change to the code; not a question, a prediction of what the change will do, a step of this
//! pull request's review, a remark about the review or a reproach. What is judged
//! is the text as written, past its openers: requests ("Could you …", "Please …"), hedges,
//! greetings and thanks, and discourse markers.

use super::check::refers_elsewhere;
use super::norms::states_a_norm;
use super::words::{
    ADVICE_PHRASES, ADVICE_VERBS, CONNECTIVES, COURTESIES, DEICTIC, FIRST_PERSON, FRAMES,
    FUNCTION_WORDS, HEDGES, REPLY_OPENERS, WRITER_PHRASES, words_of,
};

/// Characters of a concise lesson: a longer one ranks below one that fits.
const CONCISE_CHARS: usize = 67;
/// Words a lesson needs (an imperative says enough in two: "Use `x`").
const MIN_WORDS: usize = 3;
/// Openings of a request ("Could you add a test?", "Please add a test"), of a suggestion asked as
/// a question ("Should this use `x`?", "Why not use `y`?"), and of a reproach that asks for what
/// should have been done ("You forgot to add …").
const REQUESTS: &[&str] = &[
    "please",
    "could you",
    "can you",
    "would you mind",
    "do you mind",
    "do you feel up to",
    "would you",
    "can we",
    "could we",
    "shouldn't this",
    "should this",
    "shouldn't we",
    "should we",
    "should it",
    "can't we just",
    "can't we",
    "couldn't we",
    "why not just",
    "why not",
    "you forgot to",
    "you forgot",
];
/// Openers looked past when a text is judged, beside [`CONNECTIVES`] and [`FRAMES`]: labels,
/// hedges, greetings and thanks, and reply words.
const OPENERS: &[&str] = &[
    "nit:",
    "nit",
    "naming:",
    "naming nit:",
    "small thing:",
    "minor comment:",
    "minor:",
    "suggestion:",
    "maybe",
    "may be",
    "perhaps",
    "i would",
    "thanks",
    "thank you",
    "hi",
    "hello",
    "hey",
    "yes",
    "yup",
    "yeah",
    "yea",
    "right",
];
/// Words opening a request for information or for a step of the review, not for a change to the
/// code ("Could you tell us more?", "Can you take a look?", "Would you just mind to approve
/// …?", "Let's see if anyone has feedback …"): such a request titles no lesson.
const NOT_A_CHANGE: &[&str] = &[
    "answer",
    "approve",
    "ask",
    "clarify",
    "comment",
    "confirm",
    "describe",
    "elaborate",
    "explain",
    "give",
    "have",
    "help",
    "just",
    "let",
    "look",
    "mind",
    "paste",
    "ping",
    "point",
    "post",
    "remind",
    "report",
    "review",
    "run",
    "say",
    "see",
    "send",
    "share",
    "show",
    "take",
    "tell",
    "try",
    "verify",
    "wait",
    "walk",
];
/// How far (score points) a lesson asked for in a request with a verb gitlore does not know
/// ranks below one stated as advice: below any that names as many of the theme's terms.
const REQUEST_RANK: i64 = 12;
/// Words of this pull request's steps (lower-case, whole words): chatter, as courtesies are.
const PULL_REQUEST_STEPS: &[&str] = &["ping", "rebase", "merged", "merging", "released", "ci"];
/// Phrases of a sentence about the review rather than the code ("Note that this comment applies
/// to the following places", "Same here"), checked lower-case.
const ABOUT_THE_REVIEW: &[&str] = &[
    "comment applies",
    "comments apply",
    "same applies",
    "same here",
    "as above",
    "see above",
    // the writer's own review ("In that case please ignore my comments", "ping me directly", "A
    // few comments below but please ignore …")
    "my comment",
    "my review",
    "ping me",
    "comment below",
    "comments below",
    // the branch's state ("Just needs to be synced with master to fix the merge conflicts")
    "merge conflict",
];
/// Phrases that reproach the writer's reader ("you should know better than …", ng-0018): they
/// back a lesson but cannot title one (off, the findings gain that title).
const REPROACHES: &[&str] = &["know better"];

/// How well `text` states a lesson naming `terms`; `None` when it states none. A text about its
/// writer ("I suspect we don't …", "If possible I would …"), about the review ("this comment
/// applies to …"), a reproach, a request for anything but a change, or one that ends pointing out
/// of sight or names a link or an issue ([`points_elsewhere`]) backs a lesson but titles none:
/// `None` unless `musing` allows it.
pub fn score(text: &str, terms: &[String], musing: bool) -> Option<i64> {
    let lower = text.to_lowercase();
    let (core, request) = past_openers(&lower);
    let core = core.trim_end_matches('?');
    let words = words_of(core);
    let first = words.first().copied().unwrap_or_default();
    let mut padded = format!(" {core} ");
    for hedge in HEDGES {
        padded = padded.replace(hedge, " ");
    }
    // "Let's wait to land until …" decides a step of this pull request's review: no lesson.
    let lets_step = first == "let's" && words.get(1).is_some_and(|w| NOT_A_CHANGE.contains(w));
    let imperative = ADVICE_VERBS.contains(&first);
    let stated = !lets_step
        && (imperative
            || ADVICE_PHRASES.iter().any(|p| padded.contains(p))
            || needs_doing(&words)
            || states_a_norm(text));
    let requested = !stated
        && request
        && (musing || !(NOT_A_CHANGE.contains(&first) || FUNCTION_WORDS.contains(&first)));
    let advice = (stated || requested) && !predicts_an_effect(&words);
    let question = lower.ends_with('?') && !request;
    let about_writer = words.iter().any(|w| FIRST_PERSON.contains(w))
        || WRITER_PHRASES.iter().any(|p| padded.contains(p));
    let unquoted: Vec<&str> = core
        .split_whitespace()
        .filter(|w| !w.contains('`'))
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
        .collect();
    let prose = unquoted
        .iter()
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_alphabetic() || c == '\''))
        .count();
    let code_like = 3 * prose < 2 * unquoted.len();
    // "However, we need to fix the bug first": the order of this pull request's steps.
    let step_order = core.trim_end_matches(['.', '!']).ends_with(" first");
    let aside = step_order
        || ABOUT_THE_REVIEW
            .iter()
            .chain(REPROACHES)
            .any(|p| lower.contains(p));
    let enough = words.len() >= MIN_WORDS || (imperative && words.len() >= 2);
    if !advice
        || !enough
        || question
        || code_like
        || (!musing && points_elsewhere(core, &words))
        || ((about_writer || aside) && !musing)
    {
        return None;
    }
    let named = terms.iter().filter(|t| lower.contains(t.as_str())).count() as i64;
    let chatter = words.iter().any(|w| is_chatter(w));
    Some(
        3 * named + if imperative { 2 } else { 0 }
            - if text.chars().count() > CONCISE_CHARS {
                3
            } else {
                0
            }
            - if chatter { 6 } else { 0 }
            - if requested { REQUEST_RANK } else { 0 },
    )
}

/// Whether `text` opens with one of the [`openers`] ("However, …", "Pretty sure …", "Yup, …").
pub fn opens_with_an_opener(text: &str) -> bool {
    let lower = text.to_lowercase();
    openers().any(|o| {
        lower
            .strip_prefix(o)
            .is_some_and(|after| after.starts_with([' ', ',', ':', '!', '.']))
    })
}

/// Every opener looked past: [`FRAMES`], [`OPENERS`], [`CONNECTIVES`].
fn openers() -> impl Iterator<Item = &'static str> {
    FRAMES.iter().chain(OPENERS).chain(CONNECTIVES).copied()
}

/// `lower` past its openers ([`REQUESTS`], [`openers`]), and whether one was a request. "I would
/// rather …" states a preference: its "I would" is no opener; "Thank you for the pull request,
/// but …" runs to its "but".
fn past_openers(lower: &str) -> (&str, bool) {
    let mut rest = lower;
    let mut request = false;
    loop {
        let after = |opener: &'static str| {
            rest.strip_prefix(opener)
                .filter(|after| after.starts_with([' ', ',', ':', '!', '.']))
                .filter(|after| !after.trim_start().starts_with("rather "))
                .map(|after| (opener, after))
        };
        let (opener, mut after) = match REQUESTS.iter().copied().find_map(after) {
            Some(found) => {
                request = true;
                found
            }
            None => match openers().find_map(after) {
                Some(found) => found,
                None => return (rest, request),
            },
        };
        if matches!(opener, "thanks" | "thank you")
            && let Some(at) = after.find(" but ")
        {
            after = &after[at + " but ".len()..];
        }
        rest = after.trim_start_matches([' ', ',', ':', '!', '.']);
    }
}

/// Whether a text points where its reader cannot follow: it ends on a word pointing out of sight
/// ("… open an issue for this"), or names a link, a mention or an issue reference outside code
/// ("case #2 should give two answers").
fn points_elsewhere(core: &str, words: &[&str]) -> bool {
    words.last().is_some_and(|w| DEICTIC.contains(w))
        || core
            .split_whitespace()
            .filter(|w| !w.contains('`'))
            .any(refers_elsewhere)
}

/// Whether a sentence opens as a reply ("Yes, …", "Right.", "Ok so …", "@bob ok...then …", "Ah
/// right, …").
pub fn is_reply(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    lower
        .split(|c: char| c.is_whitespace() || ",.!:;".contains(c))
        .find(|w| {
            !w.is_empty()
                && !w.starts_with('@')
                && !matches!(*w, "ah" | "oh" | "aha" | "hmm" | "hm")
        })
        .is_some_and(|w| REPLY_OPENERS.contains(&w))
}

/// Whether a lower-case word marks chatter rather than a lesson.
pub fn is_chatter(word: &str) -> bool {
    COURTESIES.contains(&word) || PULL_REQUEST_STEPS.contains(&word)
}

/// Whether the words open by predicting what the change will do ("This PR can avoid a flood of
/// smaller PRs", "That would remove the need to …", "This should help"): a verdict on the change,
/// not advice. "It should avoid …" asks something of the code.
fn predicts_an_effect(words: &[&str]) -> bool {
    let after_subject = match words {
        ["this" | "that" | "it", "pr" | "change" | "patch", rest @ ..]
        | ["this" | "that" | "it", rest @ ..] => rest,
        _ => return false,
    };
    match after_subject {
        [
            "would" | "will" | "can" | "could" | "might" | "may",
            verb,
            ..,
        ] => matches!(
            *verb,
            "make" | "avoid" | "help" | "allow" | "remove" | "simplify" | "improve"
        ),
        ["should", verb, ..] => matches!(*verb, "help" | "simplify" | "improve"),
        _ => false,
    }
}

/// Whether the words say that something needs doing ("This all needs locking", "needs
/// rebasing"): "need(s)" followed by a verb in -ing (not "nothing" or "something").
fn needs_doing(words: &[&str]) -> bool {
    words.windows(2).any(|pair| {
        matches!(pair[0], "needs" | "need")
            && pair[1].len() > 5
            && pair[1].ends_with("ing")
            && !pair[1].ends_with("thing")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn states(text: &str) -> bool {
        score(text, &[], false).is_some()
    }

    #[test]
    fn advice_norms_and_requests_for_a_change_state_a_lesson() {
        for text in [
            "Avoid blocking calls inside the event loop",
            "We generally do not accept cosmetic changes",
            "Could you add a unit test for the empty input?",
            "This all needs locking",
            "Please remove this import",
            "Should this use `theme.spacing`?",
        ] {
            assert!(states(text), "{text:?}");
        }
    }

    #[test]
    fn questions_predictions_steps_and_asides_state_none() {
        // Corpus sentences of the training split, verbatim but for their stops (julia-0004,
        // deno-0026, etcd-0034, ng-0018, flutter-0048).
        for text in [
            "How could that have worked ever before?",
            "Should we do this?",
            "Can you tell me exactly what commands you ran?",
            "This PR can avoid a flood of smaller PRs, but might be a bit disheartening to review",
            "Let's wait to land until the _stream.mjs bundle is working locally",
            "Note that this comment applies to the following couple of places",
            "you should know better than doing a PR like this",
            "Just needs to be synced with master to fix the merge conflicts",
            "I don't think this matters much here",
            "You should open an issue for this",
            "As mentioned in the issue, case #2 should give two answers",
        ] {
            assert!(!states(text), "{text:?}");
        }
        // The writer's musing backs a lesson without titling one.
        assert!(score("I'd rather not include this by default", &[], true).is_some());
        assert!(!states("I'd rather not include this by default"));
    }

    #[test]
    fn a_reply_opens_with_its_reply_word() {
        assert!(is_reply("Ah right, read the file name again"));
        assert!(is_reply("Yes, that was the plan all along."));
        assert!(is_reply(
            "@sgrif ok...then we need to add it for every method."
        ));
        assert!(!is_reply("Add a test for the empty input."));
    }
}
