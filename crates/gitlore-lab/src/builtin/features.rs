//! The features the linear model reads from one comment: prose words, their stems and word
//! pairs, the first word, code tokens, the shape of the comment (questions, quotes, code, suggestion blocks,
//! length), where an inline comment sits, and the hand-written rules' evidence per label.
//!
//! A feature is named `kind:part part…`. Training sees the names ([`Named`]); prediction only
//! hashes them ([`Hashed`]), with the same hash, so no string is built per comment.

use std::collections::HashMap;

use super::super::CommentText;
use super::rules;
use super::text::{Text, Zone};
use crate::label::Label;

/// Where features go.
pub trait Sink {
    /// Adds feature `kind:parts…` with `value`; a feature added twice keeps the larger value.
    fn add(&mut self, kind: &str, parts: &[&str], value: f32);
}

/// Collects feature names, for training.
#[derive(Debug, Default)]
pub struct Named(pub HashMap<String, f32>);

impl Sink for Named {
    fn add(&mut self, kind: &str, parts: &[&str], value: f32) {
        let name = format!("{kind}:{}", parts.join(" "));
        let slot = self.0.entry(name).or_insert(value);
        *slot = slot.max(value);
    }
}

/// Collects feature hashes, for prediction.
#[derive(Debug, Default)]
pub struct Hashed(pub Vec<(u64, f32)>);

impl Sink for Hashed {
    fn add(&mut self, kind: &str, parts: &[&str], value: f32) {
        let mut hash = Fnv::new();
        hash.write(kind.as_bytes());
        hash.write(b":");
        for (index, part) in parts.iter().enumerate() {
            if index > 0 {
                hash.write(b" ");
            }
            hash.write(part.as_bytes());
        }
        self.0.push((hash.0, value));
    }
}

impl Hashed {
    /// Sorts by hash and keeps the larger value of a feature added twice.
    pub fn dedup(&mut self) {
        self.dedup_from(0);
    }

    /// [`Hashed::dedup`] for the features from index `start` on, which must be of other kinds
    /// than those before it (as where a comment sits is to its body's features).
    pub fn dedup_from(&mut self, start: usize) {
        self.0[start..].sort_unstable_by_key(|(hash, _)| *hash);
        let mut kept = start;
        for at in start..self.0.len() {
            let (hash, value) = self.0[at];
            if kept > start && self.0[kept - 1].0 == hash {
                self.0[kept - 1].1 = self.0[kept - 1].1.max(value);
            } else {
                self.0[kept] = (hash, value);
                kept += 1;
            }
        }
        self.0.truncate(kept);
    }
}

/// The hash of a feature name, as [`Hashed`] computes it.
pub fn hash_name(name: &str) -> u64 {
    let mut hash = Fnv::new();
    hash.write(name.as_bytes());
    hash.0
}

/// 64-bit FNV-1a: stable across platforms and releases, unlike `std`'s hashers.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// The largest rule evidence fed to the model; more says nothing new.
const MAX_RULE_EVIDENCE: f32 = 3.0;

/// Adds every feature of `text` (its body tokenized as `parsed`) to `sink`.
pub fn extract(text: &CommentText, parsed: &Text, sink: &mut impl Sink) {
    extract_noise(text, parsed, sink);
    if let Some(path) = text.path {
        place(path, text.diff_hunk, sink);
    }
}

/// Adds what the noise model reads to `sink`: the body's features and whether the comment is
/// inline (a remark on a line of code is seldom content-free: "PEP8", "missing throws
/// annotation"), but not which file it is on.
pub fn extract_noise(text: &CommentText, parsed: &Text, sink: &mut impl Sink) {
    extract_body(text.body, parsed, sink);
    if text.path.is_some() {
        sink.add("k", &["inline"], 1.0);
    }
}

/// Adds the features of a comment body alone to `sink`.
fn extract_body(body: &str, parsed: &Text, sink: &mut impl Sink) {
    let evidence = rules::evidence(parsed);
    for label in Label::ALL {
        let value = evidence[label as usize].clamp(-MAX_RULE_EVIDENCE, MAX_RULE_EVIDENCE);
        if value != 0.0 {
            sink.add("r", &[label.as_str()], value);
        }
    }
    words(parsed, sink);
    shape(body, parsed, sink);
}

/// Prose words, pairs of neighbouring prose words in one sentence, the first prose word, and
/// code tokens.
fn words(parsed: &Text, sink: &mut impl Sink) {
    let mut previous: Option<(&str, u32)> = None;
    let mut first = true;
    for token in &parsed.tokens {
        let word = parsed.word(token);
        match token.zone {
            Zone::Prose => {
                sink.add("w", &[word], 1.0);
                let stem = stem(word);
                if stem.len() < word.len() {
                    sink.add("t", &[stem], 1.0);
                }
                if first {
                    sink.add("f", &[word], 1.0);
                    first = false;
                }
                if let Some((before, sentence)) = previous
                    && sentence == token.sentence
                {
                    sink.add("b", &[before, word], 1.0);
                }
                previous = Some((word, token.sentence));
            }
            Zone::Code => {
                sink.add("c", &[word], 1.0);
                previous = None;
            }
            Zone::Quote => previous = None,
        }
    }
}

/// A word without its commonest English inflection (`tests`, `testing`, `tested` → `test`), so
/// that one project's "documenting" teaches about the next one's "documented".
fn stem(word: &str) -> &str {
    let bytes = word.as_bytes();
    // Most words end in none of the suffixes' last letters: tell them at once.
    if !matches!(bytes.last(), Some(b'g' | b'd' | b's' | b'y')) {
        return word;
    }
    for (suffix, shortest) in [("ing", 6), ("ed", 5), ("es", 5), ("s", 4), ("ly", 5)] {
        // Byte by byte: a call to compare two or three bytes costs more than comparing them.
        let cut = bytes.len().saturating_sub(suffix.len());
        if bytes.len() >= shortest
            && bytes[cut..]
                .iter()
                .zip(suffix.as_bytes())
                .all(|(a, b)| a == b)
            && bytes[cut - 1] != b's'
            && bytes[..cut].is_ascii()
        {
            return &word[..cut];
        }
    }
    word
}

/// Questions and the words that open them, quotes, code, suggestion blocks, links and length.
fn shape(body: &str, parsed: &Text, sink: &mut impl Sink) {
    let (mut prose, mut code, mut quote) = (0_usize, false, false);
    for token in &parsed.tokens {
        match token.zone {
            Zone::Prose => prose += 1,
            Zone::Code => code = true,
            Zone::Quote => quote = true,
        }
    }
    for (index, sentence) in parsed.sentences.iter().enumerate() {
        if !sentence.question {
            continue;
        }
        sink.add("s", &["question"], 1.0);
        let end = parsed
            .sentences
            .get(index + 1)
            .map_or(parsed.tokens.len(), |next| next.first as usize);
        if let Some(token) = parsed.tokens[sentence.first as usize..end]
            .iter()
            .find(|t| t.zone == Zone::Prose)
        {
            sink.add("q", &[parsed.word(token)], 1.0);
        }
    }
    if code {
        sink.add("z", &["code"], 1.0);
    }
    if quote {
        sink.add("z", &["quote"], 1.0);
    }
    if body.contains("```suggestion") {
        sink.add("z", &["suggestion"], 1.0);
    }
    if body.contains("http://") || body.contains("https://") {
        sink.add("z", &["link"], 1.0);
    }
    let length = match prose {
        0 => "0",
        1..=3 => "1-3",
        4..=10 => "4-10",
        11..=30 => "11-30",
        31..=80 => "31-80",
        _ => "81+",
    };
    sink.add("n", &[length], 1.0);
}

/// The kind of file an inline comment is on, and the diff line it points at (that it is inline
/// is [`extract_noise`]'s).
pub fn place(path: &str, diff_hunk: Option<&str>, sink: &mut impl Sink) {
    let name = path.rsplit('/').next().unwrap_or(path);
    if let Some((_, extension)) = name.rsplit_once('.') {
        let extension = extension.to_ascii_lowercase();
        sink.add("p", &["ext", &extension], 1.0);
    }
    let lower = path.to_ascii_lowercase();
    if ["test", "spec"].iter().any(|marker| lower.contains(marker)) {
        sink.add("p", &["test"], 1.0);
    }
    if lower.starts_with("doc") || lower.contains("/doc") || lower.ends_with(".md") {
        sink.add("p", &["docs"], 1.0);
    }
    if let Some(line) = diff_hunk.and_then(|hunk| hunk.lines().next_back()) {
        let sign = match line.chars().next() {
            Some('+') => "added",
            Some('-') => "removed",
            _ => "context",
        };
        sink.add("h", &[sign], 1.0);
        let code = line.get(1..).unwrap_or_default().trim_start();
        if ["//", "/*", "* ", "#", "\"\"\"", "-- "]
            .iter()
            .any(|opener| code.starts_with(opener))
        {
            sink.add("h", &["comment"], 1.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(body: &str, path: Option<&str>, hunk: Option<&str>) -> HashMap<String, f32> {
        let text = CommentText {
            body,
            path,
            diff_hunk: hunk,
        };
        let mut sink = Named::default();
        extract(&text, &Text::parse(body), &mut sink);
        sink.0
    }

    #[test]
    fn names_words_pairs_code_and_place() {
        let features = named(
            "Why not `Vec::new`? It leaks.",
            Some("src/tests/a_test.go"),
            Some("@@ -1 +1 @@\n+// hello"),
        );
        for name in [
            "w:why",
            "t:leak",
            "f:why",
            "b:why not",
            "c:vec",
            "q:why",
            "s:question",
            "z:code",
            "k:inline",
            "p:ext go",
            "p:test",
            "h:added",
            "h:comment",
            "r:bug",
            "r:question",
            "n:4-10",
        ] {
            assert!(features.contains_key(name), "{name} missing: {features:?}");
        }
        assert!(
            !features.contains_key("b:not it"),
            "pairs stay in a sentence"
        );
    }

    #[test]
    fn the_noise_model_reads_that_a_comment_is_inline_but_not_its_file() {
        let noise = |path: Option<&str>| {
            let text = CommentText {
                body: "PEP8",
                path,
                diff_hunk: Some("@@ -1 +1 @@\n+x = 1"),
            };
            let mut sink = Named::default();
            extract_noise(&text, &Text::parse(text.body), &mut sink);
            sink.0
        };
        let inline = noise(Some("sklearn/tests/test_base.py"));
        assert!(inline.contains_key("k:inline"), "{inline:?}");
        assert!(
            !inline
                .keys()
                .any(|name| name.starts_with("p:") || name.starts_with("h:"))
        );
        assert!(!noise(None).contains_key("k:inline"));
    }

    #[test]
    fn hashes_match_names() {
        let body = "nit: rename `x` to `count`, see https://example.com\n```suggestion\nlet count = 1;\n```";
        let text = CommentText {
            body,
            ..Default::default()
        };
        let parsed = Text::parse(body);
        let mut names = Named::default();
        extract(&text, &parsed, &mut names);
        let mut hashes = Hashed::default();
        extract(&text, &parsed, &mut hashes);
        hashes.dedup();
        let mut from_names: Vec<u64> = names.0.keys().map(|name| hash_name(name)).collect();
        from_names.sort_unstable();
        let from_hashes: Vec<u64> = hashes.0.iter().map(|(hash, _)| *hash).collect();
        assert_eq!(from_names, from_hashes);
    }
}
