//! The labelled corpus of real review comments (`tests/fixtures/corpus/`): one JSON Lines file
//! per repository, its gold themes beside it, and `splits.toml` naming the repositories of the
//! test split, which nothing is tuned on. Read by the training and scorecard commands and by the
//! quality tests.

use std::collections::HashSet;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use crate::CommentText;
use crate::label::Label;

/// One labelled comment.
#[derive(Debug, Clone, Deserialize)]
pub struct Record {
    pub id: String,
    pub repo: String,
    pub pr: i64,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub pr_author: Option<String>,
    pub author: String,
    #[serde(default)]
    pub author_type: Option<String>,
    pub kind: String,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub line: Option<i64>,
    #[serde(default)]
    pub diff_hunk: Option<String>,
    #[serde(default)]
    pub created_at: Option<String>,
    pub body: String,
    /// `bot`, `trivial`, or none.
    pub noise: Option<String>,
    pub labels: Vec<Label>,
}

impl Record {
    /// What a classifier sees.
    pub fn text(&self) -> CommentText<'_> {
        CommentText {
            body: &self.body,
            path: self.path.as_deref(),
            diff_hunk: self.diff_hunk.as_deref(),
        }
    }

    /// Whether the author opened the pull request.
    pub fn by_pr_author(&self) -> bool {
        self.pr_author
            .as_deref()
            .is_some_and(|author| author.eq_ignore_ascii_case(&self.author))
    }
}

/// A second, independent labelling of one comment (`agreement/second-pass.jsonl`): what a second
/// labeller, who saw neither the first labels nor the models, made of it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecondPass {
    pub id: String,
    pub noise: Option<String>,
    pub labels: Vec<Label>,
}

/// A recurring theme a senior reviewer of the repository would name.
#[derive(Debug, Clone, Deserialize)]
pub struct GoldTheme {
    pub id: String,
    pub repo: String,
    pub title: String,
    pub comment_ids: Vec<String>,
}

/// Which split a repository is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// Rules, lexicon, weights and thresholds may be fitted on it.
    Train,
    /// Never tuned on: the figures that count.
    Test,
}

impl Split {
    pub fn as_str(self) -> &'static str {
        match self {
            Split::Train => "train",
            Split::Test => "test",
        }
    }
}

/// The whole corpus.
#[derive(Debug, Clone)]
pub struct Corpus {
    pub records: Vec<Record>,
    pub themes: Vec<GoldTheme>,
    /// The second labelling of a sample of the records (none when the file is absent).
    pub second_pass: Vec<SecondPass>,
    test_repos: HashSet<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Splits {
    test: Vec<String>,
}

impl Corpus {
    /// Reads every `*.jsonl` and `*.themes.json` of `dir`, its `splits.toml` and, when present,
    /// `agreement/second-pass.jsonl`, and checks them.
    pub fn load(dir: &Path) -> Result<Corpus> {
        let splits_path = dir.join("splits.toml");
        let splits: Splits = toml::from_str(
            &std::fs::read_to_string(&splits_path)
                .with_context(|| format!("Cannot read {}", splits_path.display()))?,
        )
        .with_context(|| format!("{} is not valid", splits_path.display()))?;
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .with_context(|| format!("Cannot list {}", dir.display()))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .collect();
        names.sort();
        let (mut records, mut themes) = (Vec::new(), Vec::new());
        for path in names {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if name.ends_with(".themes.json") {
                let text = std::fs::read_to_string(&path)?;
                let parsed: Vec<GoldTheme> = serde_json::from_str(&text)
                    .with_context(|| format!("{} is not a themes file", path.display()))?;
                themes.extend(parsed);
            } else if name.ends_with(".jsonl") {
                let text = std::fs::read_to_string(&path)?;
                for (number, line) in text.lines().enumerate() {
                    if line.trim().is_empty() {
                        continue;
                    }
                    let record: Record = serde_json::from_str(line).with_context(|| {
                        format!(
                            "{} line {}: not a corpus record",
                            path.display(),
                            number + 1
                        )
                    })?;
                    records.push(record);
                }
            }
        }
        let corpus = Corpus {
            records,
            themes,
            second_pass: read_second_pass(&dir.join("agreement").join("second-pass.jsonl"))?,
            test_repos: splits.test.into_iter().collect(),
        };
        corpus.check()?;
        Ok(corpus)
    }

    fn check(&self) -> Result<()> {
        let mut ids = HashSet::new();
        for record in &self.records {
            if !ids.insert(record.id.as_str()) {
                bail!("comment id {} appears twice", record.id);
            }
            check_labelling(&record.id, record.noise.as_deref(), &record.labels)?;
        }
        let repos: HashSet<&str> = self.records.iter().map(|r| r.repo.as_str()).collect();
        for repo in &self.test_repos {
            if !repos.contains(repo.as_str()) {
                bail!("splits.toml names {repo}, which has no comments");
            }
        }
        for second in &self.second_pass {
            if !ids.contains(second.id.as_str()) {
                bail!("the second pass labels {}, which does not exist", second.id);
            }
            check_labelling(&second.id, second.noise.as_deref(), &second.labels)
                .context("in the second pass")?;
        }
        for theme in &self.themes {
            for id in &theme.comment_ids {
                let Some(record) = self.record(id) else {
                    bail!("theme {} cites {id}, which does not exist", theme.id);
                };
                if record.noise.is_some() {
                    bail!("theme {} cites {id}, which is noise", theme.id);
                }
            }
        }
        Ok(())
    }

    /// The record with `id`.
    pub fn record(&self, id: &str) -> Option<&Record> {
        self.records.iter().find(|record| record.id == id)
    }

    /// The split `repo` belongs to.
    pub fn split_of(&self, repo: &str) -> Split {
        if self.test_repos.contains(repo) {
            Split::Test
        } else {
            Split::Train
        }
    }

    /// The records of one split.
    pub fn split(&self, split: Split) -> Vec<&Record> {
        self.records
            .iter()
            .filter(|record| self.split_of(&record.repo) == split)
            .collect()
    }

    /// The repositories, sorted.
    pub fn repos(&self) -> Vec<&str> {
        let mut repos: Vec<&str> = self.records.iter().map(|r| r.repo.as_str()).collect();
        repos.sort_unstable();
        repos.dedup();
        repos
    }
}

/// A labelling follows the guide: noise (`bot` or `trivial`) with no label, or labels without
/// noise.
fn check_labelling(id: &str, noise: Option<&str>, labels: &[Label]) -> Result<()> {
    match (noise, labels.is_empty()) {
        (Some("bot" | "trivial"), true) | (None, false) => Ok(()),
        (Some(noise @ ("bot" | "trivial")), false) => {
            bail!("{id} is {noise} noise but has labels")
        }
        (None, true) => bail!("{id} is not noise but has no label"),
        (Some(other), _) => bail!("{id} has noise `{other}`"),
    }
}

/// The second pass at `path`, one record per line; none when there is no such file.
fn read_second_pass(path: &Path) -> Result<Vec<SecondPass>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text =
        std::fs::read_to_string(path).with_context(|| format!("Cannot read {}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(number, line)| {
            serde_json::from_str(line).with_context(|| {
                format!(
                    "{} line {}: not a second-pass record",
                    path.display(),
                    number + 1
                )
            })
        })
        .collect()
}
