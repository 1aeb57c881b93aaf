//! The check run on a pull request's head commit (behaviour §5.2): which findings apply to the files it
//! changes and why, annotations where past review comments cluster, and the "Refresh" button.

use std::collections::HashMap;

use serde::Serialize;

use crate::domain::findings::{Category, Finding, Status};
use crate::domain::history::Coupling;
use crate::render::evidence::{Sources, evidence_line, files_list};
use crate::render::links::{LinkStyle, code_span, plain, untrusted};
use crate::render::wording;

/// GitHub's limit on a check run's `summary` and on its `text`, in characters (counted here in
/// UTF-16 code units, never fewer).
pub const MAX_OUTPUT_LEN: usize = 65_535;

/// GitHub accepts at most 50 annotations per create or update request.
pub const ANNOTATIONS_PER_REQUEST: usize = 50;

/// A coupling is strong enough to make a finding apply when one file changed with the other in at
/// least half of its commits (the analyzers already keep only pairs with support ≥ 3 and
/// lift ≥ 1.5).
pub const STRONG_COUPLING_CONFIDENCE: f64 = 0.5;

/// Past review comments at most this many lines apart belong to one annotation.
const NEARBY_LINES: u32 = 10;
/// Past review comments it takes to make a cluster worth an annotation.
const MIN_CLUSTER_COMMENTS: usize = 2;
/// Characters of the excerpt quoted in an annotation.
const ANNOTATION_EXCERPT_CHARS: usize = 200;
/// Characters of a finding's title in the check run.
const TITLE_CHARS: usize = 150;
/// Characters of a finding's insight in the check run's text.
const INSIGHT_CHARS: usize = 800;
/// Evidence items per finding in the check run's text.
const EVIDENCE_ITEMS: usize = 5;
/// Characters of an evidence excerpt in the check run's text.
const EXCERPT_CHARS: usize = 200;
/// Files listed per finding.
const FILES_SHOWN: usize = 5;

/// Why a finding applies to a pull request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// It changes one of the finding's files.
    Direct(String),
    /// It changes a file in one of the finding's directories, or beside one of its files.
    SameDirectory { changed: String, directory: String },
    /// It changes a file that usually changes together with one of the finding's files.
    Coupled { changed: String, coupled: String },
}

impl Why {
    /// One line saying why.
    pub fn line(&self) -> String {
        match self {
            Why::Direct(path) => wording::why_direct(&code_span(path)),
            Why::SameDirectory { changed, directory } => {
                wording::why_same_directory(&code_span(changed), &code_span(directory))
            }
            Why::Coupled { changed, coupled } => {
                wording::why_coupled(&code_span(changed), &code_span(coupled))
            }
        }
    }
}

/// A past review comment on a line of a changed file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PastComment {
    pub path: String,
    pub line: u32,
    /// The comment's text (untrusted).
    pub excerpt: String,
}

/// A check-run annotation, as GitHub's API takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Annotation {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub annotation_level: &'static str,
    pub message: String,
    pub title: String,
}

/// A check-run action button, as GitHub's API takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Action {
    pub label: &'static str,
    pub description: &'static str,
    pub identifier: &'static str,
}

/// What the check run shows.
#[derive(Debug, Clone, Copy)]
pub struct CheckRunView<'a> {
    pub applicable: &'a [(Finding, Why)],
    /// From [`annotations`].
    pub annotations: &'a [Annotation],
    /// The findings issue, when there is one.
    pub issue_url: Option<&'a str>,
    /// The web URL of each cited review comment, by store id.
    pub comment_links: &'a HashMap<i64, String>,
    /// The web URL a commit's sha is appended to.
    pub commit_link_base: &'a str,
    pub links: &'a LinkStyle,
}

/// The check run's `output`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckRunOutput {
    pub title: String,
    pub summary: String,
    /// The applicable findings in detail; `None` when none applies.
    pub text: Option<String>,
    /// All of them; send them in [`annotation_batches`].
    pub annotations: Vec<Annotation>,
}

/// The active findings that apply to a pull request changing `changed_files`, each with the
/// first reason found (a direct change beats a directory, which beats a coupling), most severe
/// first, then in `Category::ALL` order.
pub fn applicable_findings(
    findings: &[Finding],
    changed_files: &[String],
    couplings: &[Coupling],
) -> Vec<(Finding, Why)> {
    let strong: Vec<&Coupling> = couplings
        .iter()
        .filter(|c| c.confidence >= STRONG_COUPLING_CONFIDENCE)
        .collect();
    let mut applicable: Vec<(Finding, Why)> = findings
        .iter()
        .filter(|finding| finding.status == Status::Active)
        .filter_map(|finding| {
            why_applies(finding, changed_files, &strong).map(|why| (finding.clone(), why))
        })
        .collect();
    let rank = |category: Category| Category::ALL.iter().position(|c| *c == category);
    applicable.sort_by_key(|(finding, _)| (finding.severity, rank(finding.category)));
    applicable
}

fn why_applies(finding: &Finding, changed_files: &[String], strong: &[&Coupling]) -> Option<Why> {
    let direct = changed_files
        .iter()
        .find(|changed| finding.files.contains(changed))
        .map(|changed| Why::Direct(changed.clone()));
    let same_directory = || {
        changed_files.iter().find_map(|changed| {
            finding.files.iter().find_map(|file| {
                let directory = if file.ends_with('/') {
                    changed.starts_with(file.as_str()).then_some(file.as_str())
                } else {
                    parent(file).filter(|dir| parent(changed) == Some(*dir))
                };
                directory.map(|directory| Why::SameDirectory {
                    changed: changed.clone(),
                    directory: directory.to_string(),
                })
            })
        })
    };
    let coupled = || {
        changed_files.iter().find_map(|changed| {
            strong.iter().find_map(|coupling| {
                let partner = if coupling.a == *changed {
                    &coupling.b
                } else if coupling.b == *changed {
                    &coupling.a
                } else {
                    return None;
                };
                covers(finding, partner).then(|| Why::Coupled {
                    changed: changed.clone(),
                    coupled: partner.clone(),
                })
            })
        })
    };
    direct.or_else(same_directory).or_else(coupled)
}

/// Whether `path` is one of the finding's files or lies in one of its directories.
fn covers(finding: &Finding, path: &str) -> bool {
    finding
        .files
        .iter()
        .any(|file| file == path || (file.ends_with('/') && path.starts_with(file.as_str())))
}

/// `src/store/` for `src/store/jobs.rs`; `None` at the repository's root (too broad to matter).
fn parent(path: &str) -> Option<&str> {
    path.rfind('/').map(|slash| &path[..=slash])
}

/// Annotations where past review comments on `changed_files` cluster: comments at most
/// [`NEARBY_LINES`] apart form one, and it takes [`MIN_CLUSTER_COMMENTS`]. In file and line
/// order.
pub fn annotations(past: &[PastComment], changed_files: &[String]) -> Vec<Annotation> {
    let mut relevant: Vec<&PastComment> = past
        .iter()
        .filter(|comment| comment.line > 0 && changed_files.contains(&comment.path))
        .collect();
    relevant.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    let mut clusters: Vec<Vec<&PastComment>> = Vec::new();
    for comment in relevant {
        match clusters.last_mut() {
            Some(cluster)
                if cluster.last().is_some_and(|last| {
                    last.path == comment.path && comment.line - last.line <= NEARBY_LINES
                }) =>
            {
                cluster.push(comment)
            }
            _ => clusters.push(vec![comment]),
        }
    }
    clusters
        .into_iter()
        .filter(|cluster| cluster.len() >= MIN_CLUSTER_COMMENTS)
        .map(|cluster| {
            let (first, last) = (cluster[0], cluster[cluster.len() - 1]);
            // GitHub shows an annotation's message as plain text: nothing to escape.
            let example = plain(&first.excerpt, ANNOTATION_EXCERPT_CHARS);
            Annotation {
                path: first.path.clone(),
                start_line: first.line,
                end_line: last.line,
                annotation_level: "notice",
                message: wording::annotation_message(cluster.len(), &example),
                title: wording::annotation_title(cluster.len()),
            }
        })
        .collect()
}

/// `annotations` in requests of at most [`ANNOTATIONS_PER_REQUEST`].
pub fn annotation_batches(annotations: &[Annotation]) -> std::slice::Chunks<'_, Annotation> {
    annotations.chunks(ANNOTATIONS_PER_REQUEST)
}

/// The "Refresh" button (`check_run.requested_action` brings its identifier back).
pub fn refresh_action() -> Action {
    Action {
        label: wording::REFRESH_LABEL,
        description: wording::REFRESH_DESCRIPTION,
        identifier: crate::domain::markers::REFRESH_ACTION,
    }
}

/// The check run's output: a title, a summary with one line of why per applicable finding (or
/// the short sentence when none applies), the findings in detail, and the annotations. Summary
/// and text stay within [`MAX_OUTPUT_LEN`], cut at a whole finding.
pub fn render_check_run(view: &CheckRunView) -> CheckRunOutput {
    let count = view.applicable.len();
    let annotations = view.annotations.to_vec();
    if count == 0 {
        return CheckRunOutput {
            title: wording::check_run_title(0),
            summary: wording::NOTHING_APPLIES.to_string(),
            text: None,
            annotations,
        };
    }
    let issue_link = view
        .issue_url
        .map(|url| view.links.link(wording::FINDINGS_ISSUE_LINK_LABEL, url));
    // The link sits on the kind of finding, not on its (untrusted) title, whose brackets could
    // break a link's label.
    let kind_of = |finding: &Finding| {
        let kind = format!(
            "{}, {}",
            wording::severity_label(finding.severity),
            wording::category_name(finding.category)
        );
        match view.issue_url {
            Some(url) => view.links.link(&kind, url),
            None => kind,
        }
    };
    let lines = view.applicable.iter().map(|(finding, why)| {
        format!(
            "- **{}** ({}): {}\n",
            untrusted(&finding.title, view.links, TITLE_CHARS),
            kind_of(finding),
            why.line()
        )
    });
    let outro = issue_link
        .as_deref()
        .map(|link| format!("\n{}\n", wording::see_findings_issue(link)))
        .unwrap_or_default();
    let summary = capped(
        &format!("{}\n\n", wording::check_run_intro(count)),
        lines,
        &outro,
    );
    let sources = Sources {
        comment_links: view.comment_links,
        commit_link_base: view.commit_link_base,
        links: view.links,
    };
    let details = view
        .applicable
        .iter()
        .map(|(finding, why)| finding_details(finding, why, &sources));
    CheckRunOutput {
        title: wording::check_run_title(count),
        summary,
        text: Some(capped("", details, "")),
        annotations,
    }
}

fn finding_details(finding: &Finding, why: &Why, sources: &Sources) -> String {
    let mut meta = vec![format!("**{}**", wording::severity_label(finding.severity))];
    if !finding.files.is_empty() {
        meta.push(files_list(&finding.files, FILES_SHOWN));
    }
    let mut details = format!(
        "### {}\n\n{}\n\n{}\n\n{}\n\n",
        untrusted(&finding.title, sources.links, TITLE_CHARS),
        meta.join(" · "),
        wording::why_sentence(&why.line()),
        untrusted(&finding.insight, sources.links, INSIGHT_CHARS),
    );
    for item in finding.evidence.iter().take(EVIDENCE_ITEMS) {
        details.push_str(&evidence_line(item, sources, EXCERPT_CHARS));
        details.push('\n');
    }
    details.push('\n');
    details
}

/// `intro`, as many `items` as fit within [`MAX_OUTPUT_LEN`] with a line counting the rest, and
/// `outro`. Items are built only as far as they are needed.
fn capped(intro: &str, items: impl ExactSizeIterator<Item = String>, outro: &str) -> String {
    let len = |text: &str| text.encode_utf16().count();
    let total = items.len();
    let more_reserve = len(&format!("\n{}\n", wording::check_run_more(total)));
    let mut out = intro.to_string();
    let mut out_len = len(intro) + len(outro);
    for (shown, item) in items.enumerate() {
        let reserve = if shown + 1 < total { more_reserve } else { 0 };
        if out_len + len(&item) + reserve > MAX_OUTPUT_LEN {
            out.push_str(&format!("\n{}\n", wording::check_run_more(total - shown)));
            break;
        }
        out.push_str(&item);
        out_len += len(&item);
    }
    out.push_str(outro);
    out
}
