//! Titles by selection (issue 48): a built-in finding's title is a sentence of its comments as
//! their reviewer wrote it, or a clause of one, chosen and never rewritten. The steps, each a
//! module: [`prose`] reads a comment's sentences as written, [`cuts`] lists the clauses each
//! sentence leaves at its clause boundaries, [`check`] is the gate (a whole sentence of advice, the
//! findings bench's title measure), and [`ranked`] orders the candidates: those the gate accepts
//! first, then by the theme's terms they name, imperatives, concision and fewest cuts. The gate
//! ranks rather than vetoes, so a theme whose advice no whole sentence states keeps its finding.

pub mod check;
mod cuts;
mod lesson;
mod norms;
mod prose;
pub(super) mod words;

use std::cmp::Reverse;

pub use check::whole_sentence_of_advice;
pub use words::TITLE_CHARS;

pub use cuts::{Cut, CutSwitches};
use words::{ADVICE_VERBS, FIRST_PERSON, REPLY_OPENERS, words_of};

/// How far (score points) a candidate the gate accepts ranks above one it refuses: as far as two
/// of the theme's terms.
const GATE_RANK: i64 = 6;

/// A candidate title: a sentence or clause of one of the comments, as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub text: String,
    /// The position of its comment among the bodies it was chosen from.
    pub source: usize,
    /// Its rank: how well it states a lesson ([`lesson::score`]), [`GATE_RANK`] more when the gate
    /// accepts it, a point less for each cut that drops more than an opener, and a point less when
    /// it opens with an opener ("However, …", "Pretty sure …").
    pub score: i64,
    /// Whether the gate accepts it ([`whole_sentence_of_advice`]).
    pub accepted: bool,
}

/// Every sentence and clause of `bodies` that states a lesson in at most `max` characters
/// ([`lesson::score`]), best first by [`Candidate::score`] (the gate, the `terms` they name,
/// imperatives, concision, less chatter, fewest cuts); earlier bodies and sentences win ties
/// (pass the most central comment first). Each text once.
pub fn ranked(
    bodies: &[&str],
    terms: &[String],
    max: usize,
    switches: &CutSwitches,
) -> Vec<Candidate> {
    let mut ranked: Vec<Candidate> = Vec::new();
    for (source, body) in bodies.iter().enumerate() {
        for clause in lesson_clauses(body, switches) {
            let text = clause.text;
            if text.chars().count() > max || ranked.iter().any(|c| c.text == text) {
                continue;
            }
            let Some(score) = lesson::score(&text, terms, false) else {
                continue;
            };
            let accepted = whole_sentence_of_advice(&text);
            let cost = clause.cuts.iter().filter(|c| !c.drops_an_opener()).count()
                + usize::from(lesson::opens_with_an_opener(&text));
            ranked.push(Candidate {
                accepted,
                score: score + if accepted { GATE_RANK } else { 0 } - cost as i64,
                text,
                source,
            });
        }
    }
    // Stable: of equal score, the earlier first.
    ranked.sort_by_key(|c| Reverse(c.score));
    ranked
}

/// The clauses of `body`'s sentences that may state a lesson: none of a sentence that opens as a
/// reply (but the advice it answers with: "Yes, add a test"), that is what follows a code block
/// ("instead of importing …"), or that opens with a reaction ("❤️ the safety comment …"); and no
/// clause that introduces what follows the sentence (ends at its closing colon).
fn lesson_clauses(body: &str, switches: &CutSwitches) -> Vec<cuts::Clause> {
    prose::sentences(body)
        .into_iter()
        .filter(|sentence| {
            let lower = sentence.to_lowercase();
            (!lower.starts_with("instead of ") || sentence.contains(','))
                && !sentence
                    .chars()
                    .next()
                    .is_some_and(|c| !c.is_ascii() && !c.is_alphabetic())
        })
        .flat_map(|sentence| {
            let reply = lesson::is_reply(&sentence);
            let introduces = sentence.ends_with(':');
            cuts::clauses(&sentence, switches)
                .into_iter()
                .filter(move |clause| {
                    (!reply || opens_with_advice(&clause.text))
                        && !(introduces && clause.cuts.iter().all(|c| c.drops_front()))
                })
        })
        .collect()
}

/// Whether `text` opens with an imperative ([`ADVICE_VERBS`]), after a "please".
fn opens_with_advice(text: &str) -> bool {
    let lower = text.to_lowercase();
    let lower = lower.strip_prefix("please ").unwrap_or(&lower);
    words_of(lower)
        .first()
        .is_some_and(|w| ADVICE_VERBS.contains(w))
}

/// The best title of `bodies` in at most `max` characters: the best-ranked candidate the gate
/// accepts, else the best-ranked ([`ranked`]); `None` when no sentence of theirs states a lesson.
pub fn best(
    bodies: &[&str],
    terms: &[String],
    max: usize,
    switches: &CutSwitches,
) -> Option<String> {
    let ranked = ranked(bodies, terms, max, switches);
    let best = ranked.iter().find(|c| c.accepted).or(ranked.first());
    best.map(|c| c.text.clone())
}

/// Whether some sentence or clause of `body` states a lesson, whoever it speaks of: what a
/// comment without a file needs to back a finding.
pub fn states_lesson(body: &str, switches: &CutSwitches) -> bool {
    lesson_clauses(body, switches)
        .iter()
        .any(|clause| lesson::score(&clause.text, &[], true).is_some())
}

/// Whether `body` says something a finding can show without a file: it states a lesson, or has a
/// statement of a few words that is not a question, a reply, the writer's musing, chatter or
/// code ("Still have an API breaking change." does; "How could that have worked?" does not).
pub fn says_something(body: &str, switches: &CutSwitches) -> bool {
    states_lesson(body, switches)
        || prose::sentences(body).iter().any(|sentence| {
            !lesson::is_reply(sentence)
                && cuts::clauses(sentence, switches)
                    .into_iter()
                    .filter(|c| {
                        c.cuts
                            .iter()
                            .all(|cut| matches!(cut, Cut::Address | Cut::Opening))
                    })
                    .any(|c| is_statement(&c.text))
        })
}

/// A plain statement about the code: four words or more, not a question nor a reply, not about
/// the writer, no chatter, not code.
fn is_statement(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    let words = words_of(&lower);
    let first = words.first().copied().unwrap_or_default();
    let prose = words
        .iter()
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_alphabetic() || c == '\''))
        .count();
    words.len() >= 4
        && !lower.ends_with('?')
        && !FIRST_PERSON.contains(&first)
        && !REPLY_OPENERS.contains(&first)
        && !words.iter().any(|w| lesson::is_chatter(w))
        && 3 * prose >= 2 * words.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn title_of(body: &str) -> Option<String> {
        best(&[body], &[], TITLE_CHARS, &CutSwitches::default())
    }

    #[test]
    fn the_title_is_a_sentence_as_written_or_a_clause_of_one() {
        // rails' maintainers, verbatim (rails-0034, and the greeting of another).
        assert_eq!(
            title_of("Thank you but we generally do not accept cosmetic changes.").as_deref(),
            Some("We generally do not accept cosmetic changes")
        );
        assert_eq!(
            title_of("> why?\nHi @bob, we do not accept cosmetic changes (see #123). :+1:")
                .as_deref(),
            Some("We do not accept cosmetic changes")
        );
        // ripgrep's rg-0009, verbatim: the sentence itself, its smiley a sentence of its own.
        assert_eq!(
            title_of("Please make sure changes follow the style of the surrounding text. :-) Namely, please wrap text so that each line fits in 79 columns (inclusive).").as_deref(),
            Some("Please make sure changes follow the style of the surrounding text")
        );
    }

    #[test]
    fn lessons_rank_by_the_theme_terms_and_requests_last() {
        let bodies = [
            "Could you annotate the constructor fields?",
            "This `unwrap()` will panic when the file is missing; return an error instead.",
            "Please avoid unwrap in the handler. A panic takes the request down.",
        ];
        let terms = ["unwrap".to_string(), "panic".to_string()];
        let ranked = ranked(&bodies, &terms, TITLE_CHARS, &CutSwitches::default());
        let texts: Vec<&str> = ranked.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Please avoid unwrap in the handler",
                "Return an error instead",
                "Could you annotate the constructor fields?",
            ]
        );
        assert_eq!(ranked[0].source, 2);
        // A request asked as a question states a lesson the gate refuses.
        assert!(ranked[0].accepted && !ranked[2].accepted);
    }

    #[test]
    fn no_title_is_about_its_writer_a_question_or_chatter() {
        for body in [
            "How could that have worked ever before?",
            "I don't think this matters much here.",
            "Locks should have worked here :|",
            "Added the tests to the common tests.",
            "I'd rather not include this by default.",
        ] {
            assert_eq!(title_of(body), None, "{body:?}");
        }
        assert!(states_lesson(
            "Would you mind signing off on the commit for the DCO?",
            &CutSwitches::default()
        ));
        assert!(!states_lesson(
            "How could that have worked ever before?",
            &CutSwitches::default()
        ));
    }

    #[test]
    fn a_statement_says_something_and_a_question_reply_or_chatter_does_not() {
        assert!(says_something(
            "Still have an API breaking change.",
            &CutSwitches::default()
        ));
        assert!(says_something(
            "Per policy, this needs a regression test.",
            &CutSwitches::default()
        ));
        for body in [
            "How could that have worked ever before?",
            "Yes, that was the plan all along.",
            "I am not familiar with this part of the code.",
            "Thanks a lot, nice work here!",
        ] {
            assert!(!says_something(body, &CutSwitches::default()), "{body:?}");
        }
    }
}
