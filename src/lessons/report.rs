//! One repository's report as plain structs: its active findings (never the dismissed ones),
//! what the last run resolved, its themes with their comments, the comments' labels, the strong
//! couplings of its history and where each piece of evidence lives on the web. Read from the
//! store ([`load`]) or from an export file ([`from_json`]); written as one ([`RepoReport::json`]).
//!
//! Outside the store a comment is cited by GitHub's id, so evidence ids here are GitHub's ids for
//! comments, the sha for commits, the path for files and the figure's name for stats.

use std::collections::{BTreeMap, HashMap};

use crate::store::Connection;
use anyhow::{Context, Result, bail};

use super::json::{CommentJson, CouplingJson, FindingJson, ReportJson, ThemeJson, noise_name};
use crate::domain::RepoId;
use crate::domain::classification::LlmVerdicts;
use crate::domain::effect::EffectReport;
use crate::domain::findings::SourceComment;
use crate::domain::findings::{Evidence, EvidenceKind, Finding, Status};
use crate::domain::github_web::path_in_url;
use crate::domain::history::Coupling;
use crate::render::check_run::STRONG_COUPLING_CONFIDENCE;
use crate::store::findings;
use crate::store::pages::{self, HistoryFigures};
use crate::store::report::{self as stored, AnalysedRepo};
use crate::store::{history, inputs, publications, run_reports, themes};

/// The owner of the repositories `gitlore analyze` stores for a local path: they have no page
/// on the web, so their commits are not linked.
const LOCAL_OWNER: &str = "local/";

/// A review comment as a theme shows it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ThemeComment {
    /// GitHub's id.
    pub id: String,
    pub author: String,
    pub pr_number: i64,
    pub path: Option<String>,
    /// Untrusted text.
    pub body: String,
    pub url: Option<String>,
    /// Unix seconds.
    pub created_at: i64,
}

/// A theme of the last run, with its comments (only their ids when read from a file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    pub id: String,
    pub label: String,
    pub comments: Vec<ThemeComment>,
}

/// A stored comment's labels and noise class, as the JSON lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentLabels {
    pub id: String,
    pub labels: Vec<String>,
    /// `bot` or `trivial`.
    pub noise: Option<String>,
    /// `builtin`, or the model's provider/model/prompt version.
    pub labelled_by: String,
}

/// One repository's report.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RepoReport {
    /// `owner/name`.
    pub repo: String,
    /// Unix seconds of the last findings run.
    pub analysed_at: Option<i64>,
    /// The analysed head commit, when known.
    pub head: Option<String>,
    /// The active findings in the findings issue's order; evidence cited by outside ids.
    pub findings: Vec<Finding>,
    /// The findings the last run resolved.
    pub resolved: Vec<Finding>,
    /// The themes of the last run, the largest first.
    pub themes: Vec<Theme>,
    pub comments: Vec<CommentLabels>,
    /// Couplings strong enough to carry a lesson to a file (as in the check run).
    pub couplings: Vec<Coupling>,
    /// The figures of the stored history (zero when read from a file).
    pub history: HistoryFigures,
    /// The web page of each piece of evidence that has one.
    pub urls: HashMap<(EvidenceKind, String), String>,
    /// Whether the lessons help, as the last analysis measured it (behaviour §3.4).
    pub effect: Option<EffectReport>,
}

impl RepoReport {
    /// The web page of `evidence`, when known.
    pub fn url(&self, evidence: &Evidence) -> Option<&str> {
        self.urls
            .get(&(evidence.kind, evidence.id.clone()))
            .map(String::as_str)
    }

    /// The report as the export's JSON object.
    pub fn json(&self) -> ReportJson {
        ReportJson {
            effect: self.effect.clone(),
            repo: Some(self.repo.clone()),
            analysed_at: self.analysed_at,
            comments: self
                .comments
                .iter()
                .map(|c| CommentJson {
                    id: c.id.clone(),
                    labels: c.labels.clone(),
                    noise: c.noise.clone(),
                    labelled_by: c.labelled_by.clone(),
                })
                .collect(),
            themes: self
                .themes
                .iter()
                .map(|t| ThemeJson {
                    id: t.id.clone(),
                    label: t.label.clone(),
                    comment_ids: t.comments.iter().map(|c| c.id.clone()).collect(),
                })
                .collect(),
            findings: self
                .findings
                .iter()
                .map(|f| FindingJson::of(f, |e| e.id.clone(), |e| self.url(e).map(str::to_string)))
                .collect(),
            couplings: Some(
                self.couplings
                    .iter()
                    .map(|c| CouplingJson {
                        a: c.a.clone(),
                        b: c.b.clone(),
                        confidence: c.confidence,
                        commits: c.commits,
                    })
                    .collect(),
            ),
        }
    }
}

/// The analysed repository named `name` (`owner/name`, any case), or the only one when no name
/// is given; the error lists what the store holds.
pub fn find_repo(conn: &Connection, name: Option<&str>) -> Result<AnalysedRepo> {
    let repos = stored::analysed_repos(conn)?;
    let names = || {
        let names: Vec<&str> = repos.iter().map(|r| r.full_name.as_str()).collect();
        if names.is_empty() {
            "none yet".to_string()
        } else {
            names.join(", ")
        }
    };
    match name {
        Some(name) => {
            let wanted = name.trim().to_ascii_lowercase();
            match repos.iter().find(|r| r.full_name == wanted) {
                Some(repo) => Ok(repo.clone()),
                None => bail!(
                    "The store has no analysed repository {name}; it has: {}",
                    names()
                ),
            }
        }
        None => match repos.as_slice() {
            [only] => Ok(only.clone()),
            [] => bail!("The store has no analysed repository yet"),
            _ => bail!(
                "The store holds several repositories: name one with --repo ({})",
                names()
            ),
        },
    }
}

/// The report of `repo` from the store. `web_base` (e.g. `https://github.com`) links commits;
/// repositories `gitlore analyze` stored for a local path get no commit links.
pub fn load(conn: &Connection, repo: &AnalysedRepo, web_base: Option<&str>) -> Result<RepoReport> {
    let run_report = run_reports::load(conn, repo.id)?;
    let mut listing = findings::load(conn, repo.id)?;
    if let Some(run_report) = &run_report {
        listing
            .active
            .retain(|finding| run_report.shows(&finding.id));
    }
    let sources = findings::load_source_comments(conn, repo.id, 0, LlmVerdicts::Latest)?;
    let github_ids = stored::comment_github_ids(conn, repo.id)?;
    let outside_id = |store_id: i64| {
        github_ids
            .get(&store_id)
            .map_or_else(|| store_id.to_string(), i64::to_string)
    };
    let repo_web = web_base
        .filter(|_| !repo.full_name.starts_with(LOCAL_OWNER))
        .map(|base| format!("{}/{}", base.trim_end_matches('/'), repo.full_name));
    let head = history::stored_head(conn, repo.id)?;
    let page_of = |comment: &SourceComment| comment_page(comment, repo_web.as_deref());

    let mut urls = HashMap::new();
    let mut cite = |finding: Finding| Finding {
        evidence: finding
            .evidence
            .into_iter()
            .map(|e| {
                let id = match (e.kind, e.id.parse::<i64>()) {
                    (EvidenceKind::Comment, Ok(store_id)) => {
                        if let Some(url) = sources.get(&store_id).and_then(page_of) {
                            urls.insert((e.kind, outside_id(store_id)), url);
                        }
                        outside_id(store_id)
                    }
                    _ => e.id,
                };
                let page = match (e.kind, &repo_web, &head) {
                    (EvidenceKind::Commit, Some(web), _) => Some(format!("{web}/commit/{id}")),
                    (EvidenceKind::File, Some(web), Some(head)) => {
                        Some(format!("{web}/blob/{head}/{}", path_in_url(&id)))
                    }
                    _ => None,
                };
                if let Some(page) = page {
                    urls.insert((e.kind, id.clone()), page);
                }
                Evidence { id, ..e }
            })
            .collect(),
        ..finding
    };
    let active: Vec<Finding> = listing.active.into_iter().map(&mut cite).collect();
    let resolved: Vec<Finding> = listing.resolved.into_iter().map(&mut cite).collect();

    let comments = inputs::list(conn, repo.id)?
        .into_iter()
        .map(|c| {
            let (labels, noise, labelled_by) = c.verdict();
            CommentLabels {
                id: c.github_id.to_string(),
                labels,
                noise: noise_name(noise.as_deref()),
                labelled_by,
            }
        })
        .collect();
    Ok(RepoReport {
        repo: repo.full_name.clone(),
        analysed_at: Some(repo.run_at),
        findings: active,
        resolved,
        themes: active_themes(conn, repo.id, &sources, &outside_id, &page_of)?,
        comments,
        couplings: strong(publications::couplings(conn, repo.id)?),
        history: pages::history_figures(conn, repo.id)?,
        urls,
        head,
        effect: run_report.and_then(|report| report.effect),
    })
}

/// The active themes of `repo_id`, the largest first, with the comments still stored.
fn active_themes(
    conn: &Connection,
    repo_id: RepoId,
    sources: &BTreeMap<i64, SourceComment>,
    outside_id: &dyn Fn(i64) -> String,
    page_of: &dyn Fn(&SourceComment) -> Option<String>,
) -> Result<Vec<Theme>> {
    let mut active: Vec<Theme> = themes::load_themes(conn, repo_id)?
        .into_iter()
        .filter(|theme| theme.active)
        .map(|theme| Theme {
            id: theme.id,
            label: theme.label,
            comments: theme
                .members
                .iter()
                .filter_map(|id| sources.get(id))
                .map(|c| ThemeComment {
                    id: outside_id(c.id),
                    author: c.author.clone(),
                    pr_number: c.pr_number,
                    path: c.path.clone(),
                    body: c.body.clone(),
                    url: page_of(c),
                    created_at: c.created_at,
                })
                .collect(),
        })
        .collect();
    active.sort_by(|a, b| {
        b.comments
            .len()
            .cmp(&a.comments.len())
            .then(a.id.cmp(&b.id))
    });
    Ok(active)
}

/// Where `comment` is read on the web: its own page when that is on `repo_web`'s host (the
/// repository's page, e.g. `https://github.com/acme/widgets`), else its pull request's; only its
/// own page for a repository not on the web.
fn comment_page(comment: &SourceComment, repo_web: Option<&str>) -> Option<String> {
    let Some(repo_web) = repo_web else {
        return comment.url.clone();
    };
    let host = repo_web.rsplitn(3, '/').nth(2).unwrap_or(repo_web);
    comment
        .url
        .clone()
        .filter(|url| {
            url.strip_prefix(host)
                .is_some_and(|rest| rest.starts_with('/'))
        })
        .or_else(|| Some(format!("{repo_web}/pull/{}", comment.pr_number)))
}

fn strong(couplings: Vec<Coupling>) -> Vec<Coupling> {
    couplings
        .into_iter()
        .filter(|c| c.confidence >= STRONG_COUPLING_CONFIDENCE)
        .collect()
}

/// The report of an export file (or an `analyze --format json` output).
pub fn from_json(text: &str) -> Result<RepoReport> {
    let file: ReportJson =
        serde_json::from_str(text).context("Not a findings JSON of gitlore export or analyze")?;
    let mut urls = HashMap::new();
    let findings = file
        .findings
        .into_iter()
        .map(|f| {
            let evidence = f
                .evidence
                .into_iter()
                .map(|e| {
                    let kind: EvidenceKind = e.kind.parse()?;
                    if let Some(url) = e.url {
                        urls.insert((kind, e.id.clone()), url);
                    }
                    Ok(Evidence {
                        kind,
                        id: e.id,
                        text: e.text,
                    })
                })
                .collect::<Result<_>>()?;
            Ok(Finding {
                category: f.category.parse()?,
                severity: f.severity.parse()?,
                id: f.id,
                title: f.title,
                insight: f.insight,
                evidence,
                files: f.files,
                first_seen: 0,
                last_seen: 0,
                status: Status::Active,
            })
        })
        .collect::<Result<Vec<_>>>()
        .context("A finding of the file does not parse")?;
    let couplings = file
        .couplings
        .unwrap_or_default()
        .into_iter()
        .map(|c| Coupling {
            a: c.a,
            b: c.b,
            confidence: c.confidence,
            commits: c.commits,
            ..Default::default()
        })
        .collect();
    Ok(RepoReport {
        repo: file.repo.unwrap_or_default(),
        analysed_at: file.analysed_at,
        head: None,
        findings,
        resolved: Vec::new(),
        themes: file
            .themes
            .into_iter()
            .map(|t| Theme {
                id: t.id,
                label: t.label,
                comments: t
                    .comment_ids
                    .into_iter()
                    .map(|id| ThemeComment {
                        id,
                        ..Default::default()
                    })
                    .collect(),
            })
            .collect(),
        comments: file
            .comments
            .into_iter()
            .map(|c| CommentLabels {
                id: c.id,
                labels: c.labels,
                noise: c.noise,
                labelled_by: c.labelled_by,
            })
            .collect(),
        couplings: strong(couplings),
        history: HistoryFigures::default(),
        urls,
        effect: file.effect,
    })
}
