//! How the built-in synthesizer words findings: a lesson-like sentence picked from a theme's own
//! comments, short excerpts, and text that mentions nobody.

use crate::knowledge::filter::analysable_text;

/// Characters a title's lesson may take before it is cut at a word.
const TITLE_CHARS: usize = 90;
/// Characters of an evidence excerpt.
const EXCERPT_CHARS: usize = 160;

/// Words that open a sentence giving advice (checked lower-case, after polite openers).
const ADVICE_VERBS: &[&str] = &[
    "add",
    "avoid",
    "batch",
    "call",
    "check",
    "cover",
    "document",
    "don't",
    "drop",
    "extract",
    "fetch",
    "follow",
    "handle",
    "keep",
    "load",
    "log",
    "make",
    "map",
    "mark",
    "move",
    "never",
    "pass",
    "prefer",
    "propagate",
    "put",
    "remove",
    "rename",
    "replace",
    "return",
    "split",
    "use",
    "validate",
    "wrap",
    "write",
    "always",
    "do",
    "test",
    "guard",
    "lock",
    "release",
    "close",
    "amend",
    "squash",
    "sign",
    "update",
    "include",
    "mention",
    "consider",
    "stick",
    "name",
];
/// Phrases that make a sentence advice wherever they occur (checked lower-case).
const ADVICE_PHRASES: &[&str] = &[
    " should ",
    " must ",
    " need to ",
    " needs to ",
    "don't ",
    "do not ",
    " instead",
    "prefer ",
    "avoid ",
    "better to ",
    "rather than",
];
/// Openers that are dropped from the front of a lesson.
const OPENERS: &[&str] = &[
    "please",
    "nit:",
    "nit",
    "naming:",
    "naming nit:",
    "could you",
    "can you",
    "can we",
    "maybe",
    "i think",
    "suggestion:",
    "minor:",
    "also",
    "but",
    "and",
    "so",
    "ok",
    "okay",
    "hmm",
];
/// Words that mark a sentence as chatter rather than a lesson (checked lower-case, whole words).
const CHATTER_WORDS: &[&str] = &[
    "thanks", "thank", "sorry", "lgtm", "congrats", "hi", "hello", "hey", "ping", "rebase",
    "merged", "merging", "released", "ci",
];
/// Words that open a sentence about the writer rather than the code.
const FIRST_PERSON: &[&str] = &["i", "i'm", "i've", "i'll", "we've", "we'll", "my"];

/// `text` with every `@login` mention turned into a plain `login`, so that nothing published
/// notifies anyone.
pub fn quiet(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut previous: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let starts_mention = c == '@'
            && !previous.is_some_and(|p| p.is_alphanumeric())
            && chars.peek().is_some_and(|n| n.is_ascii_alphanumeric());
        if !starts_mention {
            out.push(c);
        }
        previous = Some(c);
    }
    out
}

/// A one-line excerpt of a comment body: markdown noise stripped, cut at a word.
pub fn excerpt(body: &str) -> String {
    let text = analysable_text(body);
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    cut(&line, EXCERPT_CHARS)
}

/// `text` cut to at most `max` characters at a word boundary, with `…` when cut.
pub fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let head: String = text.chars().take(max).collect();
    let at_word = head
        .rfind(' ')
        .filter(|&i| i > max / 2)
        .unwrap_or(head.len());
    format!(
        "{}…",
        head[..at_word].trim_end_matches([',', ';', ':', ' '])
    )
}

/// The sentence of `bodies` that best states a lesson: advice-like, naming the most of `terms`,
/// not too long; earlier bodies win ties (pass the most central first). Cleaned of openers,
/// capitalised, without its final stop. `None` when the bodies have no sentence.
pub fn lesson(bodies: &[&str], terms: &[String]) -> Option<String> {
    let mut best: Option<(i64, String)> = None;
    for body in bodies {
        for sentence in sentences(&analysable_text(&without_mentions(body))) {
            let (mut cleaned, polite) = clean(&sentence);
            if polite && cleaned.ends_with('?') {
                // "Could you add a test?" is a request: "Add a test".
                cleaned.pop();
            }
            if cleaned.split_whitespace().count() < 3 {
                continue;
            }
            let lower = cleaned.to_lowercase();
            let named = terms.iter().filter(|t| lower.contains(t.as_str())).count() as i64;
            let first = lower.split_whitespace().next().unwrap_or_default();
            let advice = ADVICE_VERBS
                .contains(&first.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''));
            let length = cleaned.chars().count() as i64;
            let words: Vec<&str> = lower
                .split_whitespace()
                .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
                .collect();
            let chatter = words.iter().any(|w| CHATTER_WORDS.contains(w));
            let about_writer = FIRST_PERSON.contains(&first);
            let prose = words
                .iter()
                .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_alphabetic() || c == '\''))
                .count();
            let code_like = 3 * prose < 2 * words.len();
            let padded = format!(" {lower} ");
            let advice = advice || ADVICE_PHRASES.iter().any(|p| padded.contains(p));
            let score = 3 * named + if advice { 4 } else { 0 }
                - if length > TITLE_CHARS as i64 { 3 } else { 0 }
                - if lower.ends_with('?') { 2 } else { 0 }
                - if chatter { 6 } else { 0 }
                - if about_writer { 3 } else { 0 }
                - if code_like { 4 } else { 0 };
            if best.as_ref().is_none_or(|(top, _)| score > *top) {
                best = Some((score, cleaned));
            }
        }
    }
    best.map(|(_, sentence)| {
        let sentence = sentence
            .trim_end_matches(['.', '!', ';', ',', ':'])
            .to_string();
        cut(&capitalise(&sentence), TITLE_CHARS)
    })
}

/// `body` without `@login` mentions: a lesson names nobody.
fn without_mentions(body: &str) -> String {
    body.split(' ')
        .filter(|word| !(word.starts_with('@') && word.len() > 1))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The sentences of `text`, split after `.`, `!` and `?` followed by a space, at ` -- ` and
/// `; `, and at line ends.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text
        .lines()
        .flat_map(|l| l.split(" -- "))
        .flat_map(|l| l.split("; "))
    {
        let mut current = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            current.push(c);
            if matches!(c, '.' | '!' | '?') && chars.peek().is_none_or(|n| n.is_whitespace()) {
                out.push(std::mem::take(&mut current).trim().to_string());
            }
        }
        if !current.trim().is_empty() {
            out.push(current.trim().to_string());
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// A sentence without polite openers and surrounding whitespace, and whether it had any.
fn clean(sentence: &str) -> (String, bool) {
    let mut text = sentence.trim().to_string();
    let mut polite = false;
    loop {
        let lower = text.to_lowercase();
        let Some(opener) = OPENERS
            .iter()
            .find(|o| lower.starts_with(*o) && lower[o.len()..].starts_with([' ', ',', ':']))
        else {
            break;
        };
        text = text[opener.len()..]
            .trim_start_matches([' ', ',', ':'])
            .to_string();
        polite = true;
    }
    (text, polite)
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_lose_their_at_sign_and_addresses_do_not() {
        assert_eq!(quiet("ask @alice or @bob-x"), "ask alice or bob-x");
        assert_eq!(quiet("mail a@b.c, @ alone"), "mail a@b.c, @ alone");
    }

    #[test]
    fn the_lesson_is_advice_naming_the_terms_without_openers() {
        let bodies = [
            "This `unwrap()` will panic when the file is missing; return an error instead.",
            "Please avoid unwrap in the handler. A panic takes the request down.",
        ];
        let terms = ["unwrap".to_string(), "panic".to_string()];
        assert_eq!(
            lesson(&bodies, &terms).as_deref(),
            Some("Avoid unwrap in the handler")
        );
    }

    #[test]
    fn a_polite_request_becomes_advice() {
        let bodies = ["Could you add a unit test for the empty input?"];
        let terms = ["test".to_string()];
        assert_eq!(
            lesson(&bodies, &terms).as_deref(),
            Some("Add a unit test for the empty input")
        );
    }

    #[test]
    fn chatter_mentions_and_code_do_not_make_the_lesson() {
        let bodies = [
            "@nikeee sorry that we missed this earlier, thanks for the fix!",
            "curl -sXPUT localhost:9200/_cluster/settings -d '{",
            "I don't know why this was changed.",
            "Also, avoid blocking calls inside the event loop.",
        ];
        let terms = ["blocking".to_string()];
        assert_eq!(
            lesson(&bodies, &terms).as_deref(),
            Some("Avoid blocking calls inside the event loop")
        );
    }

    #[test]
    fn long_text_is_cut_at_a_word() {
        let cut = cut("one two three four five six", 12);
        assert_eq!(cut, "one two…");
    }
}
