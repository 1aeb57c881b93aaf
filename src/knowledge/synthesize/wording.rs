//! Excerpts of comments for a finding's evidence and insight, cut texts, and text that mentions
//! nobody. A finding's title is chosen, not worded: see [`super::title`].

use super::title::words::FUNCTION_WORDS;
use crate::knowledge::filter::analysable_text;

/// Characters of an evidence excerpt.
const EXCERPT_CHARS: usize = 160;

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
    let mut kept = &head[..at_word];
    if kept.matches('`').count() % 2 == 1 {
        // Cut inside `code`: the code span goes whole.
        kept = kept.rsplit_once('`').map_or(kept, |(before, _)| before);
    }
    kept = kept.trim_end_matches([',', ';', ':', ' ']);
    // A cut after "for" or "the" leaves a dangling word: end on the last word that says something.
    while let Some((before, last)) = kept.rsplit_once(' ')
        && FUNCTION_WORDS.contains(&last.to_lowercase().as_str())
        && before.contains(' ')
    {
        kept = before.trim_end_matches([',', ';', ':', ' ']);
    }
    format!("{kept}…")
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
    fn a_cut_never_splits_a_code_span_nor_ends_on_a_dangling_word() {
        assert_eq!(
            cut(
                "Use a temporary variable for `\"{{ realm_uri }}/#settings`",
                40
            ),
            "Use a temporary variable…"
        );
        assert_eq!(
            cut("Please add a test for the case of an empty list", 30),
            "Please add a test…"
        );
    }

    #[test]
    fn long_text_is_cut_at_a_word() {
        let cut = cut("one two three four five six", 12);
        assert_eq!(cut, "one two…");
    }
}
