//! Hand-written tokenizer for the built-in classifier: lower-cased words tagged with the zone they
//! come from (prose, quoted text, code) and the sentence they belong to.
//!
//! Code spans and fenced blocks become [`Zone::Code`] tokens so that an identifier such as
//! `token_count` never reads as the prose word "token". URLs are skipped.

/// Where a token comes from; keyword rules weigh the zones differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zone {
    /// The reviewer's own words.
    Prose,
    /// A markdown quote (`> …`): usually someone else's words.
    Quote,
    /// A code span or a fenced block.
    Code,
}

/// One word: a byte range of [`Text::lower`].
#[derive(Debug, Clone, Copy)]
pub struct Token {
    start: u32,
    end: u32,
    pub zone: Zone,
    pub sentence: u32,
}

/// One sentence of prose or quoted text.
#[derive(Debug, Clone, Copy)]
pub struct Sentence {
    /// Index of its first token in [`Text::tokens`].
    pub first: u32,
    /// Whether it ends with a question mark.
    pub question: bool,
}

/// A tokenized comment.
#[derive(Debug, Default)]
pub struct Text {
    lower: String,
    pub tokens: Vec<Token>,
    pub sentences: Vec<Sentence>,
}

impl Text {
    /// The lower-cased text of a token.
    pub fn word(&self, token: &Token) -> &str {
        &self.lower[token.start as usize..token.end as usize]
    }

    /// Tokenizes a markdown comment body.
    pub fn parse(body: &str) -> Text {
        let mut text = Text {
            lower: String::with_capacity(body.len()),
            tokens: Vec::with_capacity(body.len() / 5),
            sentences: Vec::with_capacity(8),
        };
        text.sentences.push(Sentence {
            first: 0,
            question: false,
        });
        let mut in_fence = false;
        for line in body.lines() {
            let trimmed = line.trim_start();
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                in_fence = !in_fence;
                text.end_sentence(false);
                continue;
            }
            if in_fence {
                text.scan_line(line, Zone::Code);
            } else if let Some(quoted) = trimmed.strip_prefix('>') {
                text.scan_line(quoted.trim_start_matches('>'), Zone::Quote);
            } else {
                text.scan_line(line, Zone::Prose);
            }
            text.end_sentence(false);
        }
        // `end_sentence` always leaves an open, empty sentence behind the last one.
        if text.sentences.len() > 1 {
            text.sentences.pop();
        }
        text
    }

    fn end_sentence(&mut self, question: bool) {
        let first = self.tokens.len() as u32;
        let Some(last) = self.sentences.last_mut() else {
            return;
        };
        if last.first == first {
            return;
        }
        last.question = question;
        self.sentences.push(Sentence {
            first,
            question: false,
        });
    }

    /// Tokenizes one line; backticks switch between `zone` and code. ASCII takes a fast path.
    fn scan_line(&mut self, line: &str, zone: Zone) {
        let bytes = line.as_bytes();
        let mut in_span = false;
        let mut word_start: Option<usize> = None;
        let mut at = 0;
        while let Some(&byte) = bytes.get(at) {
            if is_ascii_word(byte)
                && !(byte == b'h' && word_start.is_none() && is_url(&bytes[at..]))
            {
                let run = bytes[at..]
                    .iter()
                    .position(|&b| !is_ascii_word(b))
                    .unwrap_or(bytes.len() - at);
                let start = self.lower.len();
                word_start.get_or_insert(start);
                self.lower.push_str(&line[at..at + run]);
                self.lower[start..].make_ascii_lowercase();
                at += run;
                continue;
            }
            let c = if byte.is_ascii() {
                char::from(byte)
            } else {
                line[at..]
                    .chars()
                    .next()
                    .unwrap_or(char::REPLACEMENT_CHARACTER)
            };
            let width = c.len_utf8();
            let next = bytes.get(at + width).copied();
            let current = if in_span { Zone::Code } else { zone };
            let in_word = c.is_alphanumeric()
                || c == '_'
                || (c == '+' && next.is_some_and(|n| n.is_ascii_digit()))
                || (matches!(c, '\'' | '’')
                    && word_start.is_some()
                    && next.is_some_and(|n| n.is_ascii_alphabetic()));
            if in_word {
                if word_start.is_none() {
                    if byte == b'h' && is_url(&bytes[at..]) {
                        at += bytes[at..]
                            .iter()
                            .position(u8::is_ascii_whitespace)
                            .unwrap_or(bytes.len() - at);
                        continue;
                    }
                    word_start = Some(self.lower.len());
                }
                push_lower(&mut self.lower, c);
                at += width;
                continue;
            }
            self.close_word(&mut word_start, current);
            match c {
                '`' => in_span = !in_span,
                '?' if current != Zone::Code => self.end_sentence(true),
                '.' | '!' | ';'
                    if current != Zone::Code && next.is_none_or(|n| n.is_ascii_whitespace()) =>
                {
                    self.end_sentence(false)
                }
                _ if is_symbol(c) => {
                    let start = self.lower.len();
                    self.lower.push(c);
                    self.push_token(start, current);
                }
                _ => {}
            }
            at += width;
        }
        let current = if in_span { Zone::Code } else { zone };
        self.close_word(&mut word_start, current);
    }

    fn close_word(&mut self, word_start: &mut Option<usize>, zone: Zone) {
        if let Some(start) = word_start.take() {
            self.push_token(start, zone);
        }
    }

    fn push_token(&mut self, start: usize, zone: Zone) {
        self.tokens.push(Token {
            start: start as u32,
            end: self.lower.len() as u32,
            zone,
            sentence: self.sentences.len() as u32 - 1,
        });
    }
}

fn push_lower(out: &mut String, c: char) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
    } else if c == '’' {
        out.push('\'');
    } else {
        out.extend(c.to_lowercase());
    }
}

fn is_ascii_word(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

fn is_url(text: &[u8]) -> bool {
    text.starts_with(b"http://") || text.starts_with(b"https://")
}

/// Emoji and pictographs (👍, 🎉, ❤) are words of their own; joiners and variation selectors
/// are not.
fn is_symbol(c: char) -> bool {
    let code = c as u32;
    code >= 0x2600 && !(0xFE00..=0xFE0F).contains(&code) && !c.is_alphanumeric()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &Text, zone: Zone) -> Vec<&str> {
        let tokens = text.tokens.iter().filter(|t| t.zone == zone);
        tokens.map(|t| text.word(t)).collect()
    }

    #[test]
    fn separates_code_from_prose_and_skips_urls() {
        let text = Text::parse(
            "Rename `token_count`, see https://x.io/a?b=1 — Shouldn’t it?\n```\nlet secret = 1;\n```",
        );
        assert_eq!(
            words(&text, Zone::Prose),
            ["rename", "see", "shouldn't", "it"]
        );
        assert_eq!(
            words(&text, Zone::Code),
            ["token_count", "let", "secret", "1"]
        );
        let questions: Vec<bool> = text.sentences.iter().map(|s| s.question).collect();
        assert_eq!(questions, [true, false]);
    }

    #[test]
    fn keeps_quotes_symbols_and_plus_one() {
        let text = Text::parse("> is this safe?\n+1, N+1 queries 👍");
        assert_eq!(words(&text, Zone::Quote), ["is", "this", "safe"]);
        assert_eq!(words(&text, Zone::Prose), ["+1", "n+1", "queries", "👍"]);
        assert!(text.sentences[0].question);
    }
}
