//! The findings scorecard on the labelled corpus: each repository's comments go through the App's
//! own ingestion and analysis (the whole window, no history; built-in components unless the
//! configured models are given), and what comes out is compared with the corpus's gold themes and labels.
//!
//! - A gold theme is recovered by a theme that holds two or more of its comments, and by a
//!   finding that cites two or more of them.
//! - A cited comment is precise when it belongs to the gold theme the finding recovers best, or is
//!   substantive (not noise in the corpus) and about one of the finding's files.
//! - A finding is wrong outright when it cites a comment the corpus calls noise, or one that does
//!   not exist.
//! - A finding's title is accepted when it is a whole sentence of advice
//!   ([`whole_sentence_of_advice`]); its similarity to the title of the gold theme whose comments
//!   it cites most is the F1 of their content words (as the built-in embedder reads words:
//!   lower-cased, stopwords dropped).

pub mod aa_replay;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::json;

use gitlore::analysis::theme_run::{Models, run_themes_with};
use gitlore::analysis::{self, Request};
use gitlore::analyze::reviews;
use gitlore::domain::classification::{BUILTIN_NAME, Label};
use gitlore::domain::findings::{EvidenceKind, Finding};
use gitlore::domain::{RepoId, UnixMs, body_hash};
use gitlore::ingest::{self, Memo};
use gitlore::knowledge::embed::builtin::words;
use gitlore::knowledge::exclude::Exclusions;
use gitlore::knowledge::filter::{Noise, NoiseRules};
use gitlore::knowledge::history::HistoryReport;
use gitlore::knowledge::synthesize::title::whole_sentence_of_advice;
use gitlore::llm::LlmClient;
use gitlore::repo_config::RepoConfig;
use gitlore::store::{self, Store, comments, inputs, repos};
use gitlore_lab::corpus::{GoldTheme, Record};

use crate::quality;

/// What one repository's analysis got right and wrong.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RepoScore {
    pub repo: String,
    pub gold_themes: usize,
    /// Gold themes with two or more comments in one theme.
    pub by_theme: usize,
    /// Gold themes with two or more comments cited by one finding.
    pub by_finding: usize,
    pub themes: usize,
    pub findings: usize,
    /// Cited comments, and how many of them are precise.
    pub cited: usize,
    pub precise: usize,
    /// Findings citing a comment that is noise or does not exist.
    pub citing_noise: usize,
    /// Members of the themes that hold two or more comments of a gold theme, and how many of
    /// them belong to that (the best-matching) gold theme.
    pub matched_members: usize,
    pub pure_members: usize,
    /// Findings whose title is a whole sentence of advice.
    pub titles_accepted: usize,
    /// Findings citing a comment of some gold theme, and the sum of their titles' similarity
    /// (0..=1) to the title of the gold theme they cite most.
    pub gold_titled: usize,
    pub title_similarity: f64,
}

impl RepoScore {
    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &RepoScore) {
        self.gold_themes += other.gold_themes;
        self.by_theme += other.by_theme;
        self.by_finding += other.by_finding;
        self.themes += other.themes;
        self.findings += other.findings;
        self.cited += other.cited;
        self.precise += other.precise;
        self.citing_noise += other.citing_noise;
        self.matched_members += other.matched_members;
        self.pure_members += other.pure_members;
        self.titles_accepted += other.titles_accepted;
        self.gold_titled += other.gold_titled;
        self.title_similarity += other.title_similarity;
    }

    /// Share (0..=1) of findings whose title is accepted; 1 without findings.
    pub fn accepted_titles(&self) -> f64 {
        if self.findings == 0 {
            1.0
        } else {
            ratio(self.titles_accepted, self.findings)
        }
    }

    /// Mean similarity (0..=1) of the titles of findings citing a gold theme's comments to the
    /// title of the one they cite most; 0 without such findings.
    pub fn mean_title_similarity(&self) -> f64 {
        if self.gold_titled == 0 {
            0.0
        } else {
            self.title_similarity / self.gold_titled as f64
        }
    }

    /// Share (0..=1) of the members of gold-matching themes that are of their gold theme; 1
    /// when no theme matches one.
    pub fn purity(&self) -> f64 {
        if self.matched_members == 0 {
            1.0
        } else {
            ratio(self.pure_members, self.matched_members)
        }
    }

    /// Share (0..=1) of gold themes recovered by a finding; 0 without gold themes.
    pub fn recovered_share(&self) -> f64 {
        ratio(self.by_finding, self.gold_themes)
    }

    /// Share (0..=1) of cited comments that are precise; 1 when nothing is cited.
    pub fn evidence_precision(&self) -> f64 {
        if self.cited == 0 {
            1.0
        } else {
            ratio(self.precise, self.cited)
        }
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// What one repository's analysis published, in corpus ids.
#[derive(Debug, Clone, Default)]
pub struct Published {
    /// Per theme, its members' corpus ids.
    pub themes: Vec<Vec<String>>,
    /// The active findings, with the corpus ids of the comments each cites (`None` for an id that
    /// is no comment of the repository).
    pub findings: Vec<(Finding, Vec<Option<String>>)>,
    /// What fell back from a configured model to a built-in component, and why.
    pub notes: Vec<String>,
}

/// How the corpus is analysed, beyond the App's defaults.
#[derive(Clone, Copy, Default)]
pub struct Setup<'a> {
    /// The built-in classifier's models instead of the shipped ones (models trained without the
    /// repository, to score it as an unseen one).
    pub classifier: Option<quality::Models<'a>>,
    /// The configured LLM and embedder, used as the App uses them.
    pub models: Models<'a>,
    /// Where the store lives, so that a second run reuses the models' cached answers; `None`: a
    /// throw-away directory.
    pub store_dir: Option<&'a Path>,
    /// The title cuts switched off, as a repository's `[analysis] title-cuts-off` lists them.
    pub title_cuts_off: &'a [String],
}

/// Runs the App's ingestion and analysis on `records` (one repository's) in a throw-away store,
/// with the built-in components. With `classifier`, the comments are read by those models
/// instead of the shipped ones.
pub fn publish(
    records: &[&Record],
    rules: &NoiseRules,
    classifier: Option<quality::Models>,
) -> Result<Published> {
    let setup = Setup {
        classifier,
        ..Setup::default()
    };
    publish_with(records, rules, &setup)
}

/// One repository's records as the App's ingestion stored them.
struct Ingested {
    store: Store,
    repo_id: RepoId,
    name: String,
    parsed: reviews::Reviews,
    /// Unix seconds just after the newest comment: the analysis's time.
    now: i64,
    /// The store's directory when none was given.
    _temporary: tempfile::TempDir,
}

/// Ingests `records` (one repository's) into a store in `store_dir`, or a throw-away one.
fn ingest_records(
    records: &[&Record],
    rules: &NoiseRules,
    store_dir: Option<&Path>,
) -> Result<Ingested> {
    let temporary = tempfile::tempdir().context("Cannot create a temporary directory")?;
    let dir = store_dir.unwrap_or(temporary.path());
    std::fs::create_dir_all(dir).with_context(|| format!("Cannot create {}", dir.display()))?;
    let store = Store::open(&store::database_path(dir))?;
    let name = records.first().map_or("corpus", |r| r.repo.as_str());
    let repo = reviews::local_repo(name);
    store.write_derived(|tx| repos::upsert_repo(tx, &repo, None, false))?;
    let mut parsed = reviews::parse(reviews_file(records)?.as_bytes(), &repo)?;
    let now = parsed.newest_at.unwrap_or(0) + 1;
    parsed.date_undated(now);
    store.write_derived(|tx| {
        let mut memo = Memo::default();
        for event in &parsed.events {
            ingest::apply_with_memo(
                tx,
                rules,
                event,
                "corpus",
                UnixMs::from_secs(now),
                &mut memo,
            )?;
        }
        Ok(())
    })?;
    Ok(Ingested {
        store,
        repo_id: repo.id,
        name: name.to_string(),
        parsed,
        now,
        _temporary: temporary,
    })
}

/// Whether a comment is noise, and its labels.
pub type Verdict = (bool, Vec<Label>);

/// What the App decides of each of `records` (one repository's) when `client` classifies, as the
/// analysis asks it: noise or not, and the labels (the model's where it answered, else the
/// built-in filter's and classifier's), in record order; and the notes of what fell back.
pub fn llm_verdicts(
    records: &[&Record],
    rules: &NoiseRules,
    client: &LlmClient,
    store_dir: Option<&Path>,
) -> Result<(Vec<Verdict>, Vec<String>)> {
    let ingested = ingest_records(records, rules, store_dir)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("Cannot start the async runtime")?;
    let models = Models {
        llm: Some(client),
        embedder: None,
    };
    let run = runtime.block_on(run_themes_with(
        &ingested.store,
        ingested.repo_id,
        0,
        ingested.now,
        models,
        &Exclusions::default(),
    ))?;
    let stored: HashMap<String, inputs::InputComment> =
        inputs::list(&ingested.store.reader()?, ingested.repo_id)?
            .into_iter()
            .filter_map(|c| {
                let id = ingested.parsed.input_id(c.kind, c.github_id)?.to_string();
                Some((id, c))
            })
            .collect();
    let verdicts = records
        .iter()
        .map(|record| match stored.get(&record.id) {
            Some(comment) => {
                let (labels, noise, _) = comment.verdict();
                (
                    noise.is_some(),
                    labels.iter().filter_map(|l| Label::parse(l)).collect(),
                )
            }
            None => (true, Vec::new()),
        })
        .collect();
    Ok((verdicts, run.notes))
}

/// [`publish`] as `setup` says.
pub fn publish_with(records: &[&Record], rules: &NoiseRules, setup: &Setup) -> Result<Published> {
    let ingested = ingest_records(records, rules, setup.store_dir)?;
    let outcome = analyse(&ingested, records, rules, setup)?;
    let Ingested {
        store,
        repo_id,
        parsed,
        ..
    } = ingested;
    let corpus_ids: HashMap<i64, String> = inputs::list(&store.reader()?, repo_id)?
        .into_iter()
        .filter_map(|c| {
            let id = parsed.input_id(c.kind, c.github_id)?.to_string();
            Some((c.id, id))
        })
        .collect();
    let named = |id: &i64| corpus_ids.get(id).cloned();
    Ok(Published {
        notes: outcome.notes,
        themes: outcome
            .themes
            .themes
            .iter()
            .map(|t| t.members.iter().filter_map(named).collect())
            .collect(),
        findings: outcome
            .listing
            .active
            .into_iter()
            .map(|finding| {
                let cited = finding
                    .evidence
                    .iter()
                    .filter(|e| e.kind == EvidenceKind::Comment)
                    .map(|e| e.id.parse::<i64>().ok().and_then(|id| named(&id)))
                    .collect();
                (finding, cited)
            })
            .collect(),
    })
}

/// Runs the App's analysis once on what `ingest_records` stored (the whole window, no history),
/// re-reading the comments with `setup.classifier` first when given.
fn analyse(
    ingested: &Ingested,
    records: &[&Record],
    rules: &NoiseRules,
    setup: &Setup,
) -> Result<analysis::Outcome> {
    let Ingested {
        store,
        repo_id,
        name,
        parsed,
        now,
        ..
    } = ingested;
    if let Some(models) = setup.classifier {
        reread(store, *repo_id, parsed, records, rules, models)?;
    }
    let mut config = RepoConfig::default();
    config.analysis.window_months = 0;
    config.analysis.title_cuts_off = setup.title_cuts_off.to_vec();
    let history = HistoryReport::default();
    let request = Request {
        repo_id: *repo_id,
        repo: name,
        config: &config,
        history: &history,
        repo_path: None,
        now: UnixMs::from_secs(*now),
        window_end: *now,
        models: setup.models,
        rules,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("Cannot start the async runtime")?;
    runtime.block_on(analysis::run(store, &request))
}

/// Replaces the stored noise and labels of the ingested `records` by what `models` make of them.
fn reread(
    store: &Store,
    repo_id: RepoId,
    parsed: &reviews::Reviews,
    records: &[&Record],
    rules: &NoiseRules,
    models: quality::Models,
) -> Result<()> {
    let by_id: HashMap<&str, &Record> = records.iter().map(|r| (r.id.as_str(), *r)).collect();
    let stored = inputs::list(&store.reader()?, repo_id)?;
    store.write_derived(|tx| {
        for comment in &stored {
            let Some(record) = parsed
                .input_id(comment.kind, comment.github_id)
                .and_then(|id| by_id.get(id))
            else {
                continue;
            };
            let (noise, labels) = quality::judge(rules, models, record);
            comments::set_noise(tx, comment.id, noise.map(Noise::as_str))?;
            let key = ingest::classification_key(rules, &body_hash(&record.body));
            let labels = serde_json::to_string(&labels)?;
            comments::set_classification(tx, comment.id, BUILTIN_NAME, &key, &labels)?;
        }
        Ok(())
    })
}

/// `records` of several repositories as the comments of one, named `name`: how the analysis holds
/// at a size no single repository of the corpus has. A pull request keeps its number with the
/// position of its repository in `repos` as millions, so two repositories' PRs stay apart.
pub fn pool(records: &[&Record], repos: &[&str], name: &str) -> Vec<Record> {
    records
        .iter()
        .map(|&record| {
            let at = repos
                .iter()
                .position(|r| *r == record.repo)
                .unwrap_or(repos.len());
            let mut pooled = record.clone();
            pooled.pr += 1_000_000 * (at as i64 + 1);
            pooled.repo = name.to_string();
            pooled
        })
        .collect()
}

/// The records as a `--reviews` file.
fn reviews_file(records: &[&Record]) -> Result<String> {
    let mut text = String::new();
    for r in records {
        let line = json!({
            "id": r.id, "pr": r.pr, "kind": r.kind, "author": r.author,
            "author_type": r.author_type, "body": r.body, "path": r.path, "line": r.line,
            "diff_hunk": r.diff_hunk, "created_at": r.created_at,
            "url": r.url,
            "pr_author": r.pr_author,
        });
        text.push_str(&serde_json::to_string(&line)?);
        text.push('\n');
    }
    Ok(text)
}

/// Scores what was published for one repository against its records and gold themes.
pub fn score(
    repo: &str,
    records: &[&Record],
    gold: &[&GoldTheme],
    published: &Published,
) -> RepoScore {
    let by_id: HashMap<&str, &Record> = records.iter().map(|r| (r.id.as_str(), *r)).collect();
    let holds = |ids: &HashSet<&str>, theme: &GoldTheme| {
        theme
            .comment_ids
            .iter()
            .filter(|id| ids.contains(id.as_str()))
            .count()
    };
    let theme_sets: Vec<HashSet<&str>> = published
        .themes
        .iter()
        .map(|t| t.iter().map(String::as_str).collect())
        .collect();
    let finding_sets: Vec<HashSet<&str>> = published
        .findings
        .iter()
        .map(|(_, cited)| cited.iter().flatten().map(String::as_str).collect())
        .collect();
    let mut result = RepoScore {
        repo: repo.to_string(),
        gold_themes: gold.len(),
        themes: published.themes.len(),
        findings: published.findings.len(),
        ..RepoScore::default()
    };
    for set in &theme_sets {
        let best = gold
            .iter()
            .map(|theme| holds(set, theme))
            .max()
            .unwrap_or(0);
        if best >= 2 {
            result.matched_members += set.len();
            result.pure_members += best;
        }
    }
    for theme in gold {
        result.by_theme += usize::from(theme_sets.iter().any(|s| holds(s, theme) >= 2));
        result.by_finding += usize::from(finding_sets.iter().any(|s| holds(s, theme) >= 2));
    }
    for ((finding, cited), set) in published.findings.iter().zip(&finding_sets) {
        let best = gold
            .iter()
            .max_by_key(|theme| holds(set, theme))
            .filter(|theme| holds(set, theme) > 0);
        result.titles_accepted += usize::from(whole_sentence_of_advice(&finding.title));
        if let Some(theme) = best {
            result.gold_titled += 1;
            result.title_similarity += title_similarity(&finding.title, &theme.title);
        }
        let files: HashSet<&str> = finding.files.iter().map(String::as_str).collect();
        let mut noisy = false;
        for id in cited {
            result.cited += 1;
            let Some(record) = id.as_deref().and_then(|id| by_id.get(id)) else {
                noisy = true;
                continue;
            };
            noisy |= record.noise.is_some();
            let in_theme = best.is_some_and(|t| t.comment_ids.contains(&record.id));
            let about_files =
                record.noise.is_none() && record.path.as_deref().is_some_and(|p| files.contains(p));
            result.precise += usize::from(in_theme || about_files);
        }
        result.citing_noise += usize::from(noisy);
    }
    result
}

/// The F1 (0..=1) of two titles' content words (lower-cased, stopwords dropped, as the built-in
/// embedder reads words).
pub fn title_similarity(title: &str, gold: &str) -> f64 {
    let (ours, theirs) = (words(title), words(gold));
    let shared = ours.intersection(&theirs).count();
    if shared == 0 {
        return 0.0;
    }
    let precision = shared as f64 / ours.len() as f64;
    let recall = shared as f64 / theirs.len() as f64;
    2.0 * precision * recall / (precision + recall)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str) -> Record {
        serde_json::from_value(serde_json::json!({
            "id": id, "repo": "o/r", "pr": 1, "author": "a", "kind": "inline",
            "body": "b", "noise": null, "labels": []
        }))
        .expect("a record")
    }

    #[test]
    fn purity_counts_the_members_of_the_best_gold_theme_in_matching_themes() {
        let records: Vec<Record> = ["a", "b", "c", "d", "e"].map(record).into();
        let records: Vec<&Record> = records.iter().collect();
        let gold = GoldTheme {
            id: "g".into(),
            repo: "o/r".into(),
            title: "t".into(),
            comment_ids: vec!["a".into(), "b".into(), "c".into()],
        };
        let published = Published {
            // Two of the gold theme's comments and one stranger; a theme matching nothing.
            themes: vec![
                vec!["a".into(), "b".into(), "d".into()],
                vec!["c".into(), "e".into()],
            ],
            findings: Vec::new(),
            notes: Vec::new(),
        };
        let score = score("o/r", &records, &[&gold], &published);
        assert_eq!((score.pure_members, score.matched_members), (2, 3));
        assert!((score.purity() - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(score.by_theme, 1);
    }

    #[test]
    fn titles_are_scored_for_acceptance_and_against_the_gold_title() {
        let records: Vec<Record> = ["a", "b", "c"].map(record).into();
        let records: Vec<&Record> = records.iter().collect();
        let gold = GoldTheme {
            id: "g".into(),
            repo: "o/r".into(),
            title: "Declare local variables final in Streams code".into(),
            comment_ids: vec!["a".into(), "b".into()],
        };
        let finding = |title: &str| Finding {
            id: title.into(),
            category: gitlore::domain::findings::Category::Convention,
            severity: gitlore::domain::findings::Severity::Low,
            title: title.into(),
            insight: String::new(),
            evidence: Vec::new(),
            files: Vec::new(),
            first_seen: 0,
            last_seen: 0,
            status: gitlore::domain::findings::Status::Active,
        };
        let published = Published {
            themes: Vec::new(),
            // One recovers the gold theme with a title of advice; one cites a stranger and has a
            // fragment for a title.
            findings: vec![
                (
                    finding("Please make the local variables final."),
                    vec![Some("a".into()), Some("b".into())],
                ),
                (
                    finding("Setup a web page so I can test it"),
                    vec![Some("c".into())],
                ),
            ],
            notes: Vec::new(),
        };
        let score = score("o/r", &records, &[&gold], &published);
        assert_eq!((score.titles_accepted, score.gold_titled), (1, 1));
        assert!((score.accepted_titles() - 0.5).abs() < 1e-9);
        let similarity = title_similarity("Please make the local variables final.", &gold.title);
        assert!(similarity > 0.3 && similarity < 1.0, "{similarity}");
        assert!((score.mean_title_similarity() - similarity).abs() < 1e-9);
        assert_eq!(title_similarity("Squash the commits", &gold.title), 0.0);
    }
}
