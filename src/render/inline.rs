//! The inline markdown of untrusted text for HTML pages: code spans, and nothing else. Review
//! text (titles, insights, excerpts) quotes code between backticks; a page shows those parts as
//! code and every other character as the text it is, so no link, image, emphasis or HTML comes
//! from a review. Backtick runs pair as in CommonMark: a span closes at the next run of the
//! same length, and a run that closes nothing is plain text.

/// A piece of inline text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inline<'a> {
    Text(&'a str),
    Code(&'a str),
}

/// `text` cut into plain text and code spans (their backticks dropped; one space of padding on
/// each side of a span's content dropped, as CommonMark does).
pub fn inline(text: &str) -> Vec<Inline<'_>> {
    let mut pieces = Vec::new();
    let mut rest = text;
    let mut plain_start = 0;
    let mut offset = 0;
    while let Some(open) = rest[offset..].find('`').map(|i| offset + i) {
        let run = rest[open..].bytes().take_while(|b| *b == b'`').count();
        let after = open + run;
        match closing_run(&rest[after..], run) {
            Some(close) => {
                if open > plain_start {
                    pieces.push(Inline::Text(&rest[plain_start..open]));
                }
                let code = &rest[after..after + close];
                let code = match code.strip_prefix(' ').and_then(|c| c.strip_suffix(' ')) {
                    Some(inner) if !inner.trim().is_empty() => inner,
                    _ => code,
                };
                pieces.push(Inline::Code(code));
                rest = &rest[after + close + run..];
                plain_start = 0;
                offset = 0;
            }
            None => offset = after,
        }
    }
    if plain_start < rest.len() {
        pieces.push(Inline::Text(&rest[plain_start..]));
    }
    pieces
}

/// Where a run of exactly `run` backticks starts in `text`: the end of a code span.
pub(super) fn closing_run(text: &str, run: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let len = bytes[i..].iter().take_while(|b| **b == b'`').count();
            if len == run {
                return Some(i);
            }
            i += len;
        } else {
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::Inline::{Code, Text};
    use super::*;

    #[test]
    fn code_spans_pair_like_commonmark() {
        assert_eq!(
            inline("use `a<b>` not `c`"),
            [Text("use "), Code("a<b>"), Text(" not "), Code("c")]
        );
        assert_eq!(inline("one ` tick"), [Text("one ` tick")]);
        assert_eq!(inline("``a ` b`` and `x"), [Code("a ` b"), Text(" and `x")]);
        assert_eq!(inline("`` `x` ``"), [Code("`x`")]);
        assert_eq!(
            inline("[link](https://x) ![i](y)"),
            [Text("[link](https://x) ![i](y)")]
        );
    }
}
