//! The findings issue's body (behaviour §5.1): the hidden marker, a one-line summary, notices, the
//! findings by category and severity with folded evidence and a dismiss box each, and what was
//! resolved since the last run — within GitHub's size limit, shortened gracefully when full.

use std::collections::{HashMap, HashSet};

use crate::domain::RepoName;
use crate::domain::effect::EffectReport;
use crate::domain::findings::{Category, Finding};
use crate::domain::markers::FINDINGS_MARKER;
use crate::render::addresses::withhold_addresses;
use crate::render::dismissals::dismiss_box;
use crate::render::effect;
use crate::render::evidence::{Sources, evidence_line, files_list};
use crate::render::links::{LinkStyle, untrusted};
use crate::render::wording;
use crate::repo_config::ConfigProblem;

/// GitHub's limit on an issue body (65,536 characters). Counted here in UTF-16 code units, which
/// are never fewer than characters, so the body fits however GitHub counts.
pub const MAX_BODY_LEN: usize = 65_536;

/// Characters of a finding's title kept: one line a newcomer reads at a glance.
const TITLE_CHARS: usize = 150;
/// Characters of a finding's insight kept at full detail: a few sentences.
const INSIGHT_CHARS: usize = 1_200;
/// Characters of an insight kept when shortened for space: about two sentences.
const INSIGHT_SHORT_CHARS: usize = 240;
/// Evidence items listed at full detail; more are counted, not shown.
const EVIDENCE_ITEMS: usize = 12;
/// Characters of an evidence excerpt at full detail.
const EXCERPT_CHARS: usize = 280;
/// Evidence items listed when shortened for space.
const EVIDENCE_SHORT_ITEMS: usize = 3;
/// Characters of an evidence excerpt when shortened for space.
const EXCERPT_SHORT_CHARS: usize = 100;
/// Files listed per finding.
const FILES_SHOWN: usize = 8;
/// Resolved findings listed; a long tail is counted.
const RESOLVED_SHOWN: usize = 30;
/// Config problems and notes shown, each capped: notices stay a few lines.
const NOTICES_SHOWN: usize = 5;
/// Characters of one config problem or note.
const NOTICE_CHARS: usize = 300;

/// The repository's figures for the summary line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Non-noise review comments in the window.
    pub comments: usize,
    pub reviewers: usize,
    pub pull_requests: usize,
    /// The review window the comments were taken from.
    pub window: wording::ReviewWindow,
    /// Unix seconds of this update.
    pub updated_at: i64,
    /// The analysed head commit of the default branch, if any.
    pub head: Option<String>,
}

/// How far the backfill has read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackfillProgress {
    pub pull_requests_read: usize,
    /// Known once the first page says so.
    pub pull_requests_total: Option<usize>,
}

/// Everything the findings issue shows.
#[derive(Debug, Clone)]
pub struct IssueView {
    pub repo: RepoName,
    /// The active findings.
    pub findings: Vec<Finding>,
    /// Findings that disappeared since the last run (listed once).
    pub resolved: Vec<Finding>,
    /// Ids of the findings first seen in this run.
    pub new_ids: HashSet<String>,
    pub summary: Summary,
    /// The web URL of each cited review comment, by store id.
    pub comment_links: HashMap<i64, String>,
    /// The web URL a commit's sha is appended to, e.g. `https://github.com/o/r/commit/`.
    pub commit_link_base: String,
    /// Problems with `.github/gitlore.toml`.
    pub config_problems: Vec<ConfigProblem>,
    /// Set while the backfill is still reading.
    pub backfill: Option<BackfillProgress>,
    /// What the analysis wants said, e.g. that the LLM fell back to the built-in synthesizer.
    pub notes: Vec<String>,
    pub links: LinkStyle,
    /// The repository's page on gitlore's dashboard, when it has a public URL.
    pub dashboard_url: Option<String>,
    /// Whether the lessons help: one line under each measured finding's insight.
    pub effect: EffectReport,
}

impl IssueView {
    fn sources(&self) -> Sources<'_> {
        Sources {
            comment_links: &self.comment_links,
            commit_link_base: &self.commit_link_base,
            links: &self.links,
        }
    }
}

/// How much of a finding is shown; each step is shorter than the one before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Detail {
    Full,
    ShortEvidence,
    NoEvidence,
    ShortInsight,
    Dropped,
}

/// The issue body. Within [`MAX_BODY_LEN`]: when the findings do not fit, the least severe
/// findings' evidence is shortened first, then left out, then insights are shortened, then the
/// least severe findings are left out, and the body says so. The marker comes first, always.
pub fn render_issue(view: &IssueView) -> String {
    let order = display_order(&view.findings);
    let sources = view.sources();
    let block =
        |index: usize, detail: Detail| finding_block(view, &sources, &view.findings[index], detail);
    let fixed = text_len(&assemble(view, &order, &[], None)) + headings_len(view);
    let all = view.findings.len();
    let worst_notice = wording::shortening_notice(
        all,
        all,
        all,
        view.repo.as_str(),
        view.dashboard_url.as_deref(),
    );
    let notice_reserve = text_len(&format!("> {worst_notice}\n\n"));
    let budget = MAX_BODY_LEN.saturating_sub(fixed + notice_reserve);
    let mut blocks: Vec<String> = (0..all).map(|index| block(index, Detail::Full)).collect();
    let mut total: usize = blocks.iter().map(|b| text_len(b)).sum();
    let mut cuts = Cuts::default();
    let shortening_order = shortening_order(&view.findings, &order);
    'shorten: for step in [
        Detail::ShortEvidence,
        Detail::NoEvidence,
        Detail::ShortInsight,
        Detail::Dropped,
    ] {
        for &index in &shortening_order {
            if total <= budget {
                break 'shorten;
            }
            let shorter = block(index, step);
            let (before, after) = (text_len(&blocks[index]), text_len(&shorter));
            if after < before {
                cuts.record(index, step);
                total = total - before + after;
                blocks[index] = shorter;
            }
        }
    }
    let blocks: Vec<(usize, String)> = order
        .iter()
        .map(|&index| (index, std::mem::take(&mut blocks[index])))
        .collect();
    let notice = cuts.any().then(|| {
        wording::shortening_notice(
            cuts.evidence.len(),
            cuts.insight.len(),
            cuts.dropped.len(),
            view.repo.as_str(),
            view.dashboard_url.as_deref(),
        )
    });
    assemble(view, &order, &blocks, notice)
}

/// Which findings gave up what to fit (by index).
#[derive(Debug, Default)]
struct Cuts {
    evidence: HashSet<usize>,
    insight: HashSet<usize>,
    dropped: HashSet<usize>,
}

impl Cuts {
    fn record(&mut self, index: usize, step: Detail) {
        match step {
            Detail::Full => {}
            Detail::ShortEvidence | Detail::NoEvidence => {
                self.evidence.insert(index);
            }
            Detail::ShortInsight => {
                self.insight.insert(index);
            }
            Detail::Dropped => {
                self.evidence.remove(&index);
                self.insight.remove(&index);
                self.dropped.insert(index);
            }
        }
    }

    fn any(&self) -> bool {
        !(self.evidence.is_empty() && self.insight.is_empty() && self.dropped.is_empty())
    }
}

/// The body: marker, summary, notices, the given finding blocks under their category headings,
/// resolved findings, footer. Categories without a block get no heading.
fn assemble(
    view: &IssueView,
    order: &[usize],
    blocks: &[(usize, String)],
    shortening: Option<String>,
) -> String {
    let mut body = format!("{FINDINGS_MARKER}\n{}\n\n", summary_line(view));
    for notice in notices(view).into_iter().chain(shortening) {
        body.push_str(&format!("> {notice}\n\n"));
    }
    if order.is_empty() {
        body.push_str(&format!("{}\n\n", wording::NO_FINDINGS_YET));
    }
    for category in Category::ALL {
        let mut in_category = blocks
            .iter()
            .filter(|(index, block)| {
                view.findings[*index].category == category && !block.is_empty()
            })
            .peekable();
        if in_category.peek().is_some() {
            body.push_str(&format!("## {}\n\n", wording::category_heading(category)));
            in_category.for_each(|(_, block)| body.push_str(block));
        }
    }
    if !view.resolved.is_empty() {
        body.push_str(&resolved_section(view));
    }
    body.push_str(wording::ISSUE_FOOTER);
    body.push('\n');
    body
}

fn summary_line(view: &IssueView) -> String {
    let summary = &view.summary;
    let head = summary
        .head
        .as_deref()
        .map(|sha| view.sources().commit(sha));
    let counts = wording::SummaryCounts {
        findings: view.findings.len(),
        comments: summary.comments,
        reviewers: summary.reviewers,
        pull_requests: summary.pull_requests,
    };
    wording::summary_line(counts, summary.window, summary.updated_at, head.as_deref())
}

/// Config problems (the first few, and how many more), backfill progress and notes (their
/// addresses withheld), each a sentence.
fn notices(view: &IssueView) -> Vec<String> {
    let shown = view.config_problems.len().min(NOTICES_SHOWN);
    let problems = view.config_problems[..shown].iter().map(|problem| {
        wording::config_problem(&untrusted(&problem.to_string(), &view.links, NOTICE_CHARS))
    });
    let more_problems = (view.config_problems.len() > shown)
        .then(|| wording::more_config_problems(view.config_problems.len() - shown));
    let backfill = view.backfill.map(|progress| {
        wording::backfill_progress(progress.pull_requests_read, progress.pull_requests_total)
    });
    let notes = view.notes.iter().take(NOTICES_SHOWN).map(|note| {
        let note = withhold_addresses(note);
        wording::note(&untrusted(&note, &view.links, NOTICE_CHARS))
    });
    problems
        .chain(more_problems)
        .chain(backfill)
        .chain(notes)
        .collect()
}

/// One finding at the given detail, ending with a blank line; empty when dropped.
fn finding_block(view: &IssueView, sources: &Sources, finding: &Finding, detail: Detail) -> String {
    if detail == Detail::Dropped {
        return String::new();
    }
    let mut meta = vec![format!("**{}**", wording::severity_label(finding.severity))];
    if view.new_ids.contains(&finding.id) {
        meta.push(wording::NEW_MARKER.to_string());
    }
    if !finding.files.is_empty() {
        meta.push(files_list(&finding.files, FILES_SHOWN));
    }
    let insight_chars = if detail >= Detail::ShortInsight {
        INSIGHT_SHORT_CHARS
    } else {
        INSIGHT_CHARS
    };
    let mut block = format!(
        "### {}\n\n{}\n\n{}\n\n",
        untrusted(&finding.title, &view.links, TITLE_CHARS),
        meta.join(" · "),
        untrusted(&finding.insight, &view.links, insight_chars),
    );
    if let Some(line) = view.effect.of(&finding.id).and_then(effect::markdown_line) {
        block.push_str(&format!("{line}\n\n"));
    }
    let (items, excerpt_chars) = match detail {
        Detail::Full => (EVIDENCE_ITEMS, EXCERPT_CHARS),
        Detail::ShortEvidence => (EVIDENCE_SHORT_ITEMS, EXCERPT_SHORT_CHARS),
        _ => (0, 0),
    };
    let evidence = &finding.evidence;
    if items > 0 && !evidence.is_empty() {
        block.push_str(&format!(
            "<details><summary>{}</summary>\n\n",
            wording::evidence_summary(evidence.len())
        ));
        for item in evidence.iter().take(items) {
            block.push_str(&evidence_line(item, sources, excerpt_chars));
            block.push('\n');
        }
        if evidence.len() > items {
            block.push_str(&format!(
                "\n{}\n",
                wording::evidence_left_out(evidence.len() - items)
            ));
        }
        block.push_str("\n</details>\n\n");
    } else if !evidence.is_empty() {
        block.push_str(&format!(
            "_{}_\n\n",
            wording::evidence_left_out(evidence.len())
        ));
    }
    block.push_str(&dismiss_box(&finding.id));
    block.push_str("\n\n");
    block
}

fn resolved_section(view: &IssueView) -> String {
    let mut section = format!("## {}\n\n", wording::RESOLVED_HEADING);
    for finding in view.resolved.iter().take(RESOLVED_SHOWN) {
        section.push_str(&format!(
            "- ~~{}~~ ({})\n",
            untrusted(&finding.title, &view.links, TITLE_CHARS),
            wording::category_name(finding.category)
        ));
    }
    if view.resolved.len() > RESOLVED_SHOWN {
        section.push_str(&format!(
            "\n{}\n",
            wording::more_resolved(view.resolved.len() - RESOLVED_SHOWN)
        ));
    }
    section.push('\n');
    section
}

/// The length of every category heading the findings could need: an upper bound for the
/// headings of the blocks that survive.
fn headings_len(view: &IssueView) -> usize {
    Category::ALL
        .into_iter()
        .filter(|category| view.findings.iter().any(|f| f.category == *category))
        .map(|category| text_len(&format!("## {}\n\n", wording::category_heading(category))))
        .sum()
}

/// Indices of `findings` in the order shown: by category (`Category::ALL`), then severity (high
/// first), then as given.
fn display_order(findings: &[Finding]) -> Vec<usize> {
    let rank = |category: Category| Category::ALL.iter().position(|c| *c == category);
    let mut order: Vec<usize> = (0..findings.len()).collect();
    order.sort_by_key(|&i| (rank(findings[i].category), findings[i].severity));
    order
}

/// Indices in the order they give up detail: least severe first, and among equals the one shown
/// last first.
fn shortening_order(findings: &[Finding], display: &[usize]) -> Vec<usize> {
    let mut order: Vec<usize> = display.iter().rev().copied().collect();
    order.sort_by_key(|&i| std::cmp::Reverse(findings[i].severity));
    order
}

/// Length as GitHub may count it: UTF-16 code units.
fn text_len(text: &str) -> usize {
    text.encode_utf16().count()
}
