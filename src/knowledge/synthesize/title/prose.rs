//! A comment's sentences as its reviewer wrote them: the text a reader of the rendered comment
//! sees (a markdown link as its text; images, code blocks, quoted lines, list and heading marks
//! and emphasis marks left out), split at sentence ends and line ends. No word is changed.

use super::words::SMILEYS;
use crate::knowledge::filter::analysable_text;

/// Abbreviations whose period ends no sentence ("…, e.g. if `x` is …").
const ABBREVIATIONS: &[&str] = &["e.g.", "i.e.", "vs.", "cf.", "etc."];

/// The sentences of `body`, in order.
pub fn sentences(body: &str) -> Vec<String> {
    split(&readable(&analysable_text(body)))
}

/// `text` as a reader sees it, one line per line of prose.
fn readable(text: &str) -> String {
    let mut lines = Vec::new();
    let mut fenced = false;
    for line in links_as_text(text)
        .replace("<br>", "\n")
        .replace("<br/>", "\n")
        .replace("<br />", "\n")
        .lines()
    {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || trimmed.starts_with('>') {
            continue;
        }
        let unmarked = trimmed.trim_start_matches(['#', '-', '*', '+', ' ']);
        let numbered = unmarked
            .split_once(". ")
            .filter(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        let unmarked = numbered.map_or(unmarked, |(_, rest)| rest);
        lines.push(unmarked.replace("**", ""));
    }
    lines.join("\n")
}

/// Markdown links `[text](url)` and `[text][n]` as their text; images dropped.
fn links_as_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find(']').map(|i| open + i) else {
            break;
        };
        let after = &rest[close + 1..];
        let target_end = match after.chars().next() {
            Some('(') => after.find(')').map(|i| i + 1),
            Some('[') => after.find(']').map(|i| i + 1),
            _ => None,
        };
        let Some(target_end) = target_end else {
            out.push_str(&rest[..=close]);
            rest = &rest[close + 1..];
            continue;
        };
        let image = rest[..open].ends_with('!');
        out.push_str(rest[..open].trim_end_matches('!'));
        if !image {
            out.push_str(&rest[open + 1..close]);
        }
        rest = &after[target_end..];
    }
    out.push_str(rest);
    out
}

/// The sentences of `text`: split after `.`, `!` and `?` followed by a space (not after an
/// abbreviation), after a smiley followed by a capital, at ` -- ` and `; `, and at line ends.
fn split(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text
        .lines()
        .flat_map(|l| l.split(" -- "))
        .flat_map(|l| l.split("; "))
    {
        let mut current = String::new();
        let chars: Vec<char> = line.chars().collect();
        for (at, &c) in chars.iter().enumerate() {
            current.push(c);
            let next = chars.get(at + 1);
            let ends = (matches!(c, '.' | '!' | '?')
                && next.is_none_or(|n| n.is_whitespace())
                && !ends_with_abbreviation(&current))
                // "Master became Python 3.10 :-) Please update your PR".
                || (next == Some(&' ')
                    && chars.get(at + 2).is_some_and(|n| n.is_uppercase())
                    && SMILEYS.iter().any(|smiley| current.ends_with(smiley)));
            if ends {
                out.push(std::mem::take(&mut current).trim().to_string());
            }
        }
        out.push(current.trim().to_string());
    }
    out.retain(|s| !s.is_empty());
    out
}

/// Whether `text` ends with one of [`ABBREVIATIONS`] as a word of its own.
fn ends_with_abbreviation(text: &str) -> bool {
    let last = text.rsplit(char::is_whitespace).next().unwrap_or_default();
    let last = last.trim_start_matches(|c: char| !c.is_alphanumeric());
    ABBREVIATIONS.iter().any(|a| last.eq_ignore_ascii_case(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_are_read_as_rendered_and_not_reworded() {
        let body = "> why is this here?\nHi @bob, thanks for the PR. Please follow [the guide](https://example.org/guide), e.g. for names!\n\n```rust\nlet x = 1;\n```\n- **Add** a test :) Then ask again.\n1. Rename it";
        assert_eq!(
            sentences(body),
            [
                "Hi @bob, thanks for the PR.",
                "Please follow the guide, e.g. for names!",
                "Add a test :)",
                "Then ask again.",
                "Rename it",
            ]
        );
    }
}
