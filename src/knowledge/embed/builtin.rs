//! The built-in embedder (behaviour §3.1): TF-IDF over code-aware tokens, fitted on the corpus being
//! analysed, folded into sparse vectors by signed feature hashing.
//!
//! Terms are lower-cased words (identifiers split at `_`, `-` and camelCase humps, the whole
//! identifier kept as a term too), a crude plural folding, review vocabulary folded onto concepts
//! ([`super::concepts`]), English and review stopwords removed,
//! plus bigrams of neighbouring words and, for inline comments, the directory at reduced weight.
//! Terms seen in a single comment are dropped: they cannot make two comments alike.
//! Each term adds `(1 + ln tf) · idf` to component `fnv1a(term) mod dimension` with a sign from
//! another bit of the same hash; the dimension grows with the terms kept (at least one component
//! per term), so hashing collisions do not grow with the corpus. Vectors are L2-normalised over
//! all of a comment's terms, the dropped ones included, so a vector's norm is at most 1 and two
//! comments that share one word among many are not alike. The hash is FNV-1a, written here, so
//! vectors do not change with the Rust release. A vector depends only on its comment and on the
//! multiset of comments, never on their order.

use std::collections::{HashMap, HashSet};

use super::concepts::concept_of;
use super::{Prepared, SparseVector};

/// Fewest components (count) of a vector. The training split's repositories keep 19 to 198
/// terms each, so their vectors have this many, as when the theme threshold was chosen there.
const MIN_DIMENSION: usize = 256;
/// Weight (unitless, relative to a word) of the directory term: a hint, not a topic.
const DIRECTORY_WEIGHT: f32 = 0.5;
/// Weight (unitless, relative to a word) of a bigram: it repeats two words already counted.
const BIGRAM_WEIGHT: f32 = 0.7;
/// Minimum number of comments (count) a term must occur in to be kept.
const MIN_DOCUMENT_FREQUENCY: u32 = 2;
/// Prefix of directory terms, which cannot collide with words (words never contain `:`).
const DIRECTORY_PREFIX: &str = "dir:";

/// Words too common in review comments to say anything about a theme.
const STOPWORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "also", "although", "am", "an", "and", "any",
    "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
    "but", "by", "can", "cc", "could", "did", "do", "does", "doing", "don't", "down", "during",
    "each", "either", "else", "etc", "even", "ever", "every", "few", "for", "from", "further",
    "get", "gets", "got", "had", "has", "have", "having", "he", "hello", "her", "here", "hey",
    "hi", "him", "his", "how", "i", "i'd", "i'm", "if", "in", "into", "is", "isn't", "it", "it's",
    "its", "itself", "just", "let", "let's", "lgtm", "like", "maybe", "me", "might", "more",
    "most", "much", "must", "my", "no", "nor", "not", "now", "of", "off", "on", "once", "one",
    "only", "or", "other", "our", "out", "over", "own", "please", "quite", "rather", "really",
    "same", "see", "she", "should", "so", "some", "sorry", "still", "such", "than", "thank",
    "thanks", "that", "that's", "the", "their", "them", "then", "there", "these", "they", "think",
    "this", "those", "though", "through", "thx", "to", "too", "under", "until", "up", "us", "very",
    "was", "we", "we're", "were", "what", "when", "where", "which", "while", "who", "why", "will",
    "with", "would", "yes", "yet", "you", "your",
];

/// A comment's terms: vocabulary index and weighted term frequency.
type SparseTerms = Vec<(u32, f32)>;

/// The built-in embedder fitted on one corpus.
pub struct TfIdf {
    /// Every kept term, with its inverse document frequency.
    terms: Vec<(String, f32)>,
    /// Per comment, in input order, its TF-IDF weights (sparse, normalised over all its terms).
    documents: Vec<SparseTerms>,
}

impl TfIdf {
    /// Fits the vocabulary and weights on `corpus`.
    pub fn fit(corpus: &[Prepared]) -> TfIdf {
        let mut index: HashMap<String, u32> = HashMap::new();
        let mut frequency: Vec<u32> = Vec::new();
        let mut raw: Vec<SparseTerms> = Vec::with_capacity(corpus.len());
        let mut counts: HashMap<u32, f32> = HashMap::new();
        let mut term = String::new();
        for document in corpus {
            counts.clear();
            terms(document, &mut term, |word, weight| {
                let next = index.len() as u32;
                let id = *index.entry(word.to_string()).or_insert(next);
                if id == next {
                    frequency.push(0);
                }
                *counts.entry(id).or_insert(0.0) += weight;
            });
            let mut sparse: SparseTerms = counts.iter().map(|(&id, &tf)| (id, tf)).collect();
            sparse.sort_unstable_by_key(|&(id, _)| id);
            for &(id, _) in &sparse {
                frequency[id as usize] += 1;
            }
            raw.push(sparse);
        }
        // Keep frequent-enough terms, renumbered in term order so nothing depends on input order.
        let mut kept: Vec<(String, u32)> = index
            .into_iter()
            .filter(|&(_, id)| frequency[id as usize] >= MIN_DOCUMENT_FREQUENCY)
            .collect();
        kept.sort_unstable();
        let mut renumber = vec![u32::MAX; frequency.len()];
        let n = corpus.len() as f32;
        let terms: Vec<(String, f32)> = kept
            .into_iter()
            .enumerate()
            .map(|(new, (text, old))| {
                renumber[old as usize] = new as u32;
                let idf = ((1.0 + n) / (1.0 + frequency[old as usize] as f32)).ln() + 1.0;
                (text, idf)
            })
            .collect();
        // A term of one comment only is dropped, but still counts in its comment's norm: two
        // comments that share one word among many are not alike.
        let rare_idf = ((1.0 + n) / 2.0).ln() + 1.0;
        let documents = raw
            .into_iter()
            .map(|sparse| {
                let mut squares: Vec<f32> = Vec::with_capacity(sparse.len());
                let mut weighted: SparseTerms = sparse
                    .into_iter()
                    .filter_map(|(old, tf)| {
                        let id = renumber[old as usize];
                        let idf = terms.get(id as usize).map_or(rare_idf, |t| t.1);
                        let weight = (1.0 + tf.ln()) * idf;
                        squares.push(weight * weight);
                        (id != u32::MAX).then_some((id, weight))
                    })
                    .collect();
                weighted.sort_unstable_by_key(|&(id, _)| id);
                // Summed in value order: the same sum whatever order the terms came in.
                squares.sort_unstable_by(f32::total_cmp);
                let norm = squares.iter().sum::<f32>().sqrt();
                weighted
                    .iter_mut()
                    .for_each(|(_, w)| *w /= norm.max(f32::MIN_POSITIVE));
                weighted
            })
            .collect();
        TfIdf { terms, documents }
    }

    /// The vector of every comment, in input order.
    pub fn vectors(&self) -> Vec<SparseVector> {
        let dimension = dimension_for(self.terms.len());
        let buckets: Vec<(u32, f32)> = self
            .terms
            .iter()
            .map(|(text, _)| bucket(text, dimension))
            .collect();
        self.documents
            .iter()
            .map(|sparse| {
                // A component's terms are summed in term order.
                let mut hashed = SparseVector::summed(
                    sparse
                        .iter()
                        .map(|&(id, weight)| {
                            let (component, sign) = buckets[id as usize];
                            (component, sign * weight)
                        })
                        .collect(),
                );
                fold_collisions(&mut hashed.0, sparse);
                hashed
            })
            .collect()
    }

    /// The TF-IDF weights of comment `document` (input position): word and bigram terms only,
    /// the directory left out, L2-normalised over all its terms.
    pub fn weights(&self, document: usize) -> impl Iterator<Item = (&str, f32)> {
        let sparse = self.documents.get(document).map_or(&[][..], Vec::as_slice);
        sparse
            .iter()
            .map(|&(id, weight)| (self.terms[id as usize].0.as_str(), weight))
            .filter(|(text, _)| !text.starts_with(DIRECTORY_PREFIX))
    }

    /// Number of comments the model was fitted on.
    pub fn len(&self) -> usize {
        self.documents.len()
    }

    /// Whether the model was fitted on no comment.
    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }
}

/// The distinct words `text` is compared by: the single-word terms of [`TfIdf`] (lower-cased,
/// plurals and review vocabulary folded, stopwords and numbers left out), without bigrams.
pub fn words(text: &str) -> HashSet<String> {
    let document = Prepared {
        text: text.to_string(),
        directory: None,
    };
    let mut found = HashSet::new();
    terms(&document, &mut String::new(), |term, _| {
        if !term.contains(' ') {
            found.insert(term.to_string());
        }
    });
    found
}

/// Calls `emit(term, weight)` for every term of a comment; `scratch` is reused for bigrams.
fn terms(document: &Prepared, scratch: &mut String, mut emit: impl FnMut(&str, f32)) {
    let mut previous: Option<(usize, usize)> = None; // byte range of the last word in `scratch`
    scratch.clear();
    for (clause_start, identifier) in identifiers(&document.text) {
        if clause_start {
            previous = None;
        }
        let parts = split_identifier(identifier);
        if parts.len() > 1 {
            let whole = identifier.to_ascii_lowercase();
            if whole.len() > 2 {
                emit(&whole, 1.0);
            }
        }
        for part in parts {
            let mut word = part.to_ascii_lowercase();
            fold_plural(&mut word);
            if let Some(concept) = concept_of(&word) {
                word.clear();
                word.push_str(concept);
            }
            if word.len() < 2 || STOPWORDS.binary_search(&word.as_str()).is_ok() || is_number(&word)
            {
                continue;
            }
            emit(&word, 1.0);
            if let Some((start, end)) = previous {
                let first = scratch[start..end].to_string();
                scratch.clear();
                scratch.push_str(&first);
                scratch.push(' ');
                scratch.push_str(&word);
                emit(scratch, BIGRAM_WEIGHT);
            }
            scratch.clear();
            scratch.push_str(&word);
            previous = Some((0, word.len()));
        }
    }
    if let Some(directory) = &document.directory {
        emit(
            &format!("{DIRECTORY_PREFIX}{}", directory.to_ascii_lowercase()),
            DIRECTORY_WEIGHT,
        );
    }
}

/// Identifier-like runs (letters, digits, `_`, inner `-` and `'`), each flagged when it opens a
/// clause (after `.`, `,`, `;`, `:`, `?`, `!`, brackets or a line break), where bigrams restart.
fn identifiers(text: &str) -> impl Iterator<Item = (bool, &str)> {
    let mut rest = text;
    let mut clause_start = true;
    std::iter::from_fn(move || {
        let start = rest.find(|c: char| {
            let word = is_word_char(c);
            clause_start |= !word
                && matches!(
                    c,
                    '.' | ',' | ';' | ':' | '?' | '!' | '(' | ')' | '{' | '}' | '\n'
                );
            word
        })?;
        rest = &rest[start..];
        let end = rest
            .char_indices()
            .find(|&(at, c)| {
                let joins = matches!(c, '-' | '\'') && rest[at + 1..].starts_with(is_word_char);
                !is_word_char(c) && !joins
            })
            .map_or(rest.len(), |(at, _)| at);
        let (word, tail) = rest.split_at(end);
        rest = tail;
        Some((std::mem::replace(&mut clause_start, false), word))
    })
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Splits `parse_HTTPRequest-body` into `parse`, `HTTP`, `Request`, `body`; a plain word is one
/// part. Apostrophes stay inside words (`don't`).
fn split_identifier(identifier: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    for piece in identifier.split(['_', '-']).filter(|p| !p.is_empty()) {
        let chars: Vec<(usize, char)> = piece.char_indices().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            let (at, c) = chars[i];
            let prev = chars[i - 1].1;
            let next_lower = chars.get(i + 1).is_some_and(|&(_, n)| n.is_lowercase());
            let hump = (prev.is_lowercase() || prev.is_ascii_digit()) && c.is_uppercase()
                || prev.is_uppercase() && c.is_uppercase() && next_lower;
            if hump {
                parts.push(&piece[start..at]);
                start = at;
            }
        }
        parts.push(&piece[start..]);
    }
    parts
}

/// Folds simple English plurals: `tests` → `test`, `queries` → `query`; leaves `class`, `status`.
fn fold_plural(word: &mut String) {
    if word.len() > 4 && word.ends_with("ies") {
        word.truncate(word.len() - 3);
        word.push('y');
    } else if word.len() > 3
        && word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
        && !word.contains('\'')
    {
        word.pop();
    }
}

/// Components (count) of the vectors of a corpus whose vocabulary keeps `terms` terms: at least
/// one per term, so collisions stay as rare at 100,000 comments as at a hundred.
fn dimension_for(terms: usize) -> usize {
    terms.next_power_of_two().max(MIN_DIMENSION)
}

/// The component and sign of a term: FNV-1a (64-bit), low bits pick the component, the top bit
/// the sign, so colliding terms cancel out on average instead of adding up.
fn bucket(term: &str, dimension: usize) -> (u32, f32) {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in term.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let sign = if hash >> 63 == 0 { 1.0 } else { -1.0 };
    ((hash % dimension as u64) as u32, sign)
}

/// Scales a hashed vector back to the norm of its terms (at most 1), which collisions change.
fn fold_collisions(hashed: &mut [(u32, f32)], terms: &[(u32, f32)]) {
    let wanted = terms.iter().map(|(_, w)| w * w).sum::<f32>().sqrt();
    let norm = hashed.iter().map(|(_, v)| v * v).sum::<f32>().sqrt();
    if norm > 0.0 {
        hashed.iter_mut().for_each(|(_, v)| *v *= wanted / norm);
    }
}

fn is_number(word: &str) -> bool {
    word.chars().all(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::embed::prepare;

    fn corpus(bodies: &[&str]) -> Vec<Prepared> {
        bodies
            .iter()
            .map(|body| prepare(body, Some("src/store/x.rs")))
            .collect()
    }

    #[test]
    fn splits_identifiers_and_folds_plurals() {
        assert_eq!(
            split_identifier("parse_HTTPRequest-body"),
            ["parse", "HTTP", "Request", "body"]
        );
        let mut seen = Vec::new();
        let doc = Prepared {
            text: "Add tests for `tokenCount`. Queries slow".into(),
            directory: None,
        };
        terms(&doc, &mut String::new(), |term, _| {
            seen.push(term.to_string())
        });
        assert_eq!(
            seen,
            [
                "add",
                "test",
                "add test",
                "tokencount",
                "token",
                "test token",
                "count",
                "token count",
                "query",
                "slow",
                "query slow"
            ]
        );
    }

    #[test]
    fn vectors_are_at_most_unit_length_and_similar_comments_are_close() {
        let model = TfIdf::fit(&corpus(&[
            "this unwrap panics on missing config",
            "unwrap panics when the config is missing",
            "please add a test for the parser",
            "add a test for the empty parser input",
            "unwrap panics",
        ]));
        let v = model.vectors();
        let dot = |a: &SparseVector, b: &SparseVector| a.dot(b);
        // Every term of the last comment is shared: unit length. The first has terms of its own,
        // which are dropped but keep their share of the norm.
        assert!((dot(&v[4], &v[4]) - 1.0).abs() < 1e-5);
        assert!(dot(&v[0], &v[0]) < 1.0 - 1e-3);
        assert!(
            dot(&v[0], &v[1]) > 0.5 && dot(&v[2], &v[3]) > 0.5,
            "{} {}",
            dot(&v[0], &v[1]),
            dot(&v[2], &v[3])
        );
        assert!(dot(&v[0], &v[2]) < dot(&v[0], &v[1]));
    }

    #[test]
    fn vectors_do_not_depend_on_input_order() {
        let bodies = [
            "slow query in loop",
            "query is slow",
            "naming of the loop var",
            "loop var naming",
        ];
        let forward = TfIdf::fit(&corpus(&bodies)).vectors();
        let mut reversed = bodies;
        reversed.reverse();
        let backward = TfIdf::fit(&corpus(&reversed)).vectors();
        assert_eq!(forward[0], backward[3]);
        assert_eq!(forward[2], backward[1]);
    }

    #[test]
    fn stopwords_are_sorted_for_binary_search() {
        assert!(STOPWORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_conjunction_is_no_topic_word() {
        // elixir-0055 and elixir-0075, verbatim: a rule for doc examples and a suggested
        // sentence, alike only in "although".
        let said = |body: &str| words(&prepare(body, None).text);
        let rule = said(":+1: although we should remove `#=>` from the results then.");
        let suggestion = said(
            "```suggestion\ninto a `Duration` struct, although one can also be given directly:\n```",
        );
        assert!(rule.is_disjoint(&suggestion), "{rule:?} {suggestion:?}");
    }

    #[test]
    fn comments_sharing_no_word_stay_apart_in_a_large_vocabulary() {
        // 2,000 comments of 10 words each from 5,000 words, so nearly every word is kept: at a
        // fixed 256 components, a third of the pairs that share no word would collide.
        let mut state = 11_u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (state >> 33) as usize
        };
        let bodies: Vec<Vec<String>> = (0..2000)
            .map(|_| (0..10).map(|_| format!("w{}x", next() % 5000)).collect())
            .collect();
        let prepared: Vec<Prepared> = bodies
            .iter()
            .map(|words| Prepared {
                text: words.join(". "),
                directory: None,
            })
            .collect();
        let model = TfIdf::fit(&prepared);
        assert!(model.terms.len() > 4000, "{}", model.terms.len());
        let vectors = model.vectors();
        let (mut apart, mut touching) = (0, 0);
        for a in 0..bodies.len() {
            for b in a + 1..(a + 50).min(bodies.len()) {
                if bodies[a].iter().any(|w| bodies[b].contains(w)) {
                    continue;
                }
                apart += 1;
                if vectors[a].dot(&vectors[b]).abs() > 1e-6 {
                    touching += 1;
                }
            }
        }
        assert!(touching * 50 < apart, "{touching} of {apart} pairs touch");
    }
}
