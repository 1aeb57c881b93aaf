//! The facts the noise filter and the title selection read, from the embedded `facts.toml`: bot
//! accounts, the commands bots and CI take, status-line openings, emoji codes and smileys, each
//! with where it was seen. This module only parses them; how a list is matched stays with its
//! rule.

use std::sync::LazyLock;

use serde::Deserialize;
use sha2::{Digest, Sha256};

/// The data file, as shipped.
const SOURCE: &str = include_str!("facts.toml");

/// The parsed facts.
pub static FACTS: LazyLock<Facts> =
    LazyLock::new(|| toml::from_str(SOURCE).expect("facts.toml parses (its unit test says so)"));

/// Every list of `facts.toml`, in its order.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Facts {
    pub bots: Vec<Bot>,
    pub slash_commands: Vec<Entry>,
    pub ci_phrases: Vec<Entry>,
    pub status_openings: Vec<Entry>,
    pub emoji_codes: Vec<Entry>,
    pub smileys: Vec<Entry>,
}

/// An automation account.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bot {
    /// Lower-cased, without `[bot]`.
    pub login: String,
    /// Where it was seen.
    pub seen: String,
    /// It takes commands addressed to it (`@bors r+`).
    #[serde(default)]
    pub commands: bool,
}

/// One entry of a list of words or phrases.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub text: String,
    /// Where it was seen.
    pub seen: String,
}

/// The texts of `list`, in its order.
pub fn texts(list: &'static [Entry]) -> impl Iterator<Item = &'static str> {
    list.iter().map(|entry| entry.text.as_str())
}

/// A digest of the data file: part of the classification cache key, since editing a fact
/// changes what the filter decides.
pub fn digest() -> &'static str {
    static DIGEST: LazyLock<String> =
        LazyLock::new(|| hex::encode(Sha256::digest(SOURCE.as_bytes()))[..12].to_string());
    &DIGEST
}

/// A deployment's or a repository's additions to a list (the settings' `bot_logins`, the repo
/// config's `[analysis] noise-commands`), as the embedded entries are written: trimmed,
/// lower-cased, none empty.
pub fn additions(list: &[String]) -> Vec<String> {
    list.iter()
        .map(|entry| entry.trim().to_lowercase())
        .filter(|entry| !entry.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};
    use std::path::Path;

    use super::*;
    use crate::knowledge::corpus::{Corpus, Record};

    /// Every list as `(name, [(entry, seen)])`.
    fn lists(facts: &Facts) -> Vec<(&'static str, Vec<(&str, &str)>)> {
        fn entries(list: &[Entry]) -> Vec<(&str, &str)> {
            list.iter()
                .map(|e| (e.text.as_str(), e.seen.as_str()))
                .collect()
        }
        vec![
            (
                "bots",
                facts
                    .bots
                    .iter()
                    .map(|b| (b.login.as_str(), b.seen.as_str()))
                    .collect(),
            ),
            ("slash-commands", entries(&facts.slash_commands)),
            ("ci-phrases", entries(&facts.ci_phrases)),
            ("status-openings", entries(&facts.status_openings)),
            ("emoji-codes", entries(&facts.emoji_codes)),
            ("smileys", entries(&facts.smileys)),
        ]
    }

    /// Whether `seen` names a corpus comment (`servo-0002`).
    fn corpus_id(seen: &str) -> bool {
        seen.split_once('-').is_some_and(|(repo, n)| {
            !repo.is_empty()
                && repo.chars().all(|c| c.is_ascii_lowercase())
                && n.len() == 4
                && n.chars().all(|c| c.is_ascii_digit())
        })
    }

    #[test]
    fn the_facts_parse_each_once_and_each_with_where_it_was_seen() {
        let facts: Facts = toml::from_str(SOURCE).expect("facts.toml parses");
        let corpus_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/corpus");
        let records: HashMap<String, Record> = Corpus::load(Path::new(corpus_dir))
            .expect("the corpus loads")
            .records
            .into_iter()
            .map(|record| (record.id.clone(), record))
            .collect();
        for (name, list) in lists(&facts) {
            assert!(!list.is_empty(), "{name} is empty");
            let texts: HashSet<&str> = list.iter().map(|(text, _)| *text).collect();
            assert_eq!(texts.len(), list.len(), "{name} has an entry twice");
            for (text, seen) in &list {
                assert_eq!(*text, text.trim(), "{name}: {text:?} has spaces around it");
                if corpus_id(seen) {
                    let record = records.get(*seen).unwrap_or_else(|| {
                        panic!("{name}: {text:?} cites {seen}, not in the corpus")
                    });
                    let author = record.author.to_lowercase();
                    assert!(
                        record.body.to_lowercase().contains(&text.to_lowercase())
                            || author.trim_end_matches("[bot]") == *text,
                        "{name}: {seen} does not show {text:?}"
                    );
                } else if let Some(other) = seen.strip_prefix("variant of ") {
                    assert!(
                        texts.contains(other) && other != *text,
                        "{name}: {text:?} is a variant of {other:?}, which is not in the list"
                    );
                } else {
                    assert!(
                        seen.starts_with("https://")
                            || seen.starts_with("GitHub's docs")
                            || seen.starts_with("unverified: ")
                            || seen.starts_with("comment-triggered GitHub Actions workflows"),
                        "{name}: {text:?} says not where it was seen: {seen:?}"
                    );
                }
            }
        }
    }

    /// The code (tests and comment lines left out) of every `.rs` file under `dir`, by path.
    fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).expect("src lists") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("a source reads");
                let code = text.split("#[cfg(test)]").next().unwrap_or_default();
                let code: Vec<&str> = code
                    .lines()
                    .filter(|line| !line.trim_start().starts_with("//"))
                    .collect();
                out.push((path.display().to_string(), code.join("\n")));
            }
        }
    }

    #[test]
    fn no_bot_is_written_in_the_code_too() {
        let mut code = Vec::new();
        sources(
            Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")),
            &mut code,
        );
        for bot in &FACTS.bots {
            let literal = format!("\"{}\"", bot.login);
            for (path, code) in &code {
                // Names of tool settings files (`.github/dependabot.yml`, `renovate.json`), and
                // words of prose ("stale").
                let not_a_login = (path.ends_with("file_kind.rs")
                    && ["dependabot", "renovate"].contains(&bot.login.as_str()))
                    || (path.ends_with("lexicon.rs") && bot.login == "stale");
                assert!(
                    not_a_login || !code.contains(&literal),
                    "{literal} is written in {path}: facts.toml has it"
                );
            }
        }
    }

    #[test]
    fn bots_are_written_as_they_are_matched() {
        for bot in &FACTS.bots {
            assert_eq!(bot.login, bot.login.to_ascii_lowercase(), "{}", bot.login);
            assert!(!bot.login.ends_with("[bot]"), "{}", bot.login);
        }
        for opening in texts(&FACTS.status_openings) {
            assert_eq!(opening, opening.to_lowercase(), "{opening}");
        }
    }

    #[test]
    fn additions_are_written_as_the_embedded_entries_are() {
        let given = [
            " CI-Helper ".to_string(),
            "@MyBot Deploy".into(),
            "  ".into(),
        ];
        assert_eq!(additions(&given), ["ci-helper", "@mybot deploy"]);
    }

    #[test]
    fn the_digest_is_of_the_data_file() {
        assert_eq!(digest().len(), 12);
        assert_eq!(
            digest(),
            &hex::encode(Sha256::digest(include_str!("facts.toml").as_bytes()))[..12]
        );
    }
}
