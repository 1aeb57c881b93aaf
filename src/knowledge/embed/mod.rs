//! Embeddings of review comments for clustering (behaviour §3.1): the text an embedder sees, and the
//! vector types the embedders produce. The built-in embedder is [`builtin`].

pub mod builtin;
mod concepts;
pub mod remote;

/// A dense embedding (a remote model's), L2-normalised, so cosine similarity is a dot product.
pub type Vector = Vec<f32>;

/// A sparse embedding (the built-in one's): `(component, weight)` sorted by component, of at most
/// unit length, so cosine similarity is a dot product over the components two embeddings share.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SparseVector(pub Vec<(u32, f32)>);

impl SparseVector {
    /// The vector of `entries` in any component order, the weights of equal components summed
    /// in the order given.
    pub fn summed(mut entries: Vec<(u32, f32)>) -> SparseVector {
        entries.sort_by_key(|&(component, _)| component); // stable
        entries.dedup_by(|next, kept| {
            let same = next.0 == kept.0;
            if same {
                kept.1 += next.1;
            }
            same
        });
        SparseVector(entries)
    }

    /// Dot product, summed in component order over the components both have.
    pub fn dot(&self, other: &SparseVector) -> f32 {
        let (x, y) = (&self.0, &other.0);
        let (mut i, mut j, mut sum) = (0, 0, 0.0);
        while i < x.len() && j < y.len() {
            match x[i].0.cmp(&y[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    sum += x[i].1 * y[j].1;
                    i += 1;
                    j += 1;
                }
            }
        }
        sum
    }
}

/// What an embedder embeds for one comment.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Prepared {
    /// The body without markdown syntax, URLs and HTML tags; the words of code spans, code blocks
    /// and quoted text are kept.
    pub text: String,
    /// For inline comments, the directory of the file (`src/knowledge`), a weak signal that
    /// comments about the same area belong together. `None` for files at the root and for
    /// comments that are not on a file.
    pub directory: Option<String>,
}

impl Prepared {
    /// The input as one string, for embedders that take text (remote models): the directory
    /// comes last, as a short hint.
    pub fn to_text(&self) -> String {
        match &self.directory {
            Some(directory) => format!("{}\n\n(in {directory})", self.text),
            None => self.text.clone(),
        }
    }
}

/// Prepares a comment for embedding: strips markdown and URLs, keeps code words.
pub fn prepare(body: &str, path: Option<&str>) -> Prepared {
    let mut text = String::with_capacity(body.len());
    for line in body.lines() {
        let line = line.trim_start();
        if line.starts_with("```") || line.starts_with("~~~") {
            continue;
        }
        let line = line.trim_start_matches(['>', '#', ' ']);
        strip_inline(line, &mut text);
        text.push('\n');
    }
    let directory = path
        .and_then(|path| path.rsplit_once('/'))
        .map(|(dir, _)| dir.to_string())
        .filter(|dir| !dir.is_empty());
    Prepared {
        text: text.trim_end().to_string(),
        directory,
    }
}

/// Copies one line without URLs, link targets, HTML tags, `@mentions` (who is addressed says
/// nothing about the topic) and emphasis or code markers.
fn strip_inline(line: &str, out: &mut String) {
    let mut rest = line;
    let mut in_code = false;
    let mut after_word = false;
    while let Some(c) = rest.chars().next() {
        let skip = if !in_code && (rest.starts_with("http://") || rest.starts_with("https://")) {
            rest.find(char::is_whitespace).unwrap_or(rest.len())
        } else if !in_code && c == '@' && !after_word {
            1 + rest[1..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .unwrap_or(rest.len() - 1)
        } else if !in_code && rest.starts_with("](") {
            rest.find(')').map_or(2, |end| end + 1)
        } else if !in_code && c == '<' && is_tag(rest) {
            rest.find('>').map_or(1, |end| end + 1)
        } else {
            match c {
                '`' => in_code = !in_code,
                '*' | '~' | '[' | ']' | '|' => {}
                '!' if rest[1..].starts_with('[') => {}
                _ => out.push(c),
            }
            c.len_utf8()
        };
        if skip > c.len_utf8() || matches!(c, '*' | '~' | '[' | ']' | '|' | '<' | '`') {
            out.push(' ');
        }
        after_word = skip == c.len_utf8() && c.is_alphanumeric();
        rest = &rest[skip..];
    }
}

/// Whether `text` (starting with `<`) opens an HTML tag or comment closed on the same line.
fn is_tag(text: &str) -> bool {
    let opens = text[1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '!');
    opens && text.contains('>')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_mentions_but_not_email_addresses() {
        let prepared = prepare("@alice thanks, cc @bob-2: see a@b.io", None);
        let words: Vec<&str> = prepared.text.split_whitespace().collect();
        assert_eq!(words, ["thanks,", "cc", ":", "see", "a@b.io"]);
    }

    #[test]
    fn strips_markdown_urls_and_tags_but_keeps_code_words() {
        let body = "> quoted **bold** text\nSee [the docs](https://x.io/a) and https://y.io <br/>\n```rust\nlet token_count = 1;\n```\nUse `Vec::with_capacity`!";
        let prepared = prepare(body, Some("src/knowledge/cluster.rs"));
        let words: Vec<&str> = prepared.text.split_whitespace().collect();
        assert_eq!(
            words,
            [
                "quoted",
                "bold",
                "text",
                "See",
                "the",
                "docs",
                "and",
                "let",
                "token_count",
                "=",
                "1;",
                "Use",
                "Vec::with_capacity",
                "!"
            ]
        );
        assert_eq!(prepared.directory.as_deref(), Some("src/knowledge"));
        assert!(prepared.to_text().ends_with("!\n\n(in src/knowledge)"));
        assert_eq!(prepare("x", Some("README.md")).directory, None);
    }
}
