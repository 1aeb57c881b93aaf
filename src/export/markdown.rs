//! `--format md`: the whole report as markdown, nothing left out — every active finding with its
//! full insight, every file and every piece of evidence, what the last run resolved, the themes
//! with all their comments, and the history's figures and couplings. Review text is defused as in the findings issue (one line,
//! HTML and link syntax escaped, mentions made inert); only gitlore's own evidence links link.

use crate::domain::findings::{Category, Evidence, Finding};
use crate::lessons::report::{RepoReport, Theme};
use crate::render::links::{LinkStyle, code_span, untrusted};
use crate::render::wording;

/// No cap: the export keeps every character.
const ALL: usize = usize::MAX;
/// Characters of a theme comment shown: a comment, not an essay.
const THEME_COMMENT_CHARS: usize = 600;

/// The report as one markdown document.
pub fn render(report: &RepoReport, links: &LinkStyle) -> String {
    let mut out = format!(
        "# What reviews keep teaching in {}\n\n",
        code_span(&report.repo)
    );
    out.push_str(&super::summary(report));
    out.push_str("\n\n");
    if report.findings.is_empty() {
        out.push_str(&format!("{}\n\n", wording::NO_FINDINGS_YET));
    }
    for category in Category::ALL {
        let mut in_category = report
            .findings
            .iter()
            .filter(|f| f.category == category)
            .peekable();
        if in_category.peek().is_none() {
            continue;
        }
        out.push_str(&format!("## {}\n\n", wording::category_heading(category)));
        for finding in in_category {
            out.push_str(&finding_block(report, finding, links));
        }
    }
    if !report.resolved.is_empty() {
        out.push_str(&format!("## {}\n\n", wording::RESOLVED_HEADING));
        for finding in &report.resolved {
            out.push_str(&format!(
                "- ~~{}~~ ({})\n",
                untrusted(&finding.title, links, ALL),
                wording::category_name(finding.category)
            ));
        }
        out.push('\n');
    }
    if !report.themes.is_empty() {
        out.push_str("## Themes\n\n");
        for theme in &report.themes {
            out.push_str(&theme_block(theme, links));
        }
    }
    out.push_str(&history_block(report));
    out
}

/// The history's figures and the files that change together.
fn history_block(report: &RepoReport) -> String {
    let figures = &report.history;
    if figures.commits == 0 && report.couplings.is_empty() {
        return String::new();
    }
    let mut block = String::from("## History\n\n");
    if figures.commits > 0 {
        block.push_str(&format!(
            "{} commits by {} authors, {} files changed",
            figures.commits, figures.authors, figures.files
        ));
        if let (Some(first), Some(last)) = (figures.first_commit_at, figures.last_commit_at) {
            block.push_str(&format!(
                ", {} – {}",
                wording::day(first),
                wording::day(last)
            ));
        }
        block.push_str(".\n\n");
    }
    if !report.couplings.is_empty() {
        block.push_str("Files that change together:\n\n");
        for coupling in &report.couplings {
            block.push_str(&format!(
                "- {} + {}: {} commits, {:.0}%\n",
                code_span(&coupling.a),
                code_span(&coupling.b),
                coupling.commits,
                coupling.confidence * 100.0
            ));
        }
        block.push('\n');
    }
    block
}

fn finding_block(report: &RepoReport, finding: &Finding, links: &LinkStyle) -> String {
    let mut meta = vec![format!("**{}**", wording::severity_label(finding.severity))];
    if !finding.files.is_empty() {
        let files: Vec<String> = finding.files.iter().map(|f| code_span(f)).collect();
        meta.push(files.join(", "));
    }
    let mut block = format!(
        "### {}\n\n{}\n\n{}\n\n",
        untrusted(&finding.title, links, ALL),
        meta.join(" · "),
        untrusted(&finding.insight, links, ALL),
    );
    if !finding.evidence.is_empty() {
        block.push_str(&format!(
            "{}:\n\n",
            wording::evidence_summary(finding.evidence.len())
        ));
        for evidence in &finding.evidence {
            block.push_str(&evidence_line(report, evidence, links));
        }
        block.push('\n');
    }
    block
}

fn evidence_line(report: &RepoReport, evidence: &Evidence, links: &LinkStyle) -> String {
    let label = wording::evidence_label(evidence.kind);
    let cited = match report.url(evidence) {
        Some(url) => links.link(&format!("{label} {}", code_span(&evidence.id)), url),
        None => format!("{label} {}", code_span(&evidence.id)),
    };
    let text = untrusted(&evidence.text, links, ALL);
    if text.is_empty() {
        format!("- {cited}\n")
    } else {
        format!("- {cited}: {text}\n")
    }
}

fn theme_block(theme: &Theme, links: &LinkStyle) -> String {
    let mut block = format!(
        "### {} ({} comments)\n\n",
        untrusted(&theme.label, links, ALL),
        theme.comments.len()
    );
    for comment in &theme.comments {
        let mut cited = format!(
            "pull request {} by {}",
            comment.pr_number,
            untrusted(&comment.author, links, 60)
        );
        if let Some(path) = &comment.path {
            cited.push_str(&format!(" on {}", code_span(path)));
        }
        let cited = match &comment.url {
            Some(url) => links.link(&cited, url),
            None => cited,
        };
        block.push_str(&format!(
            "- {cited}: {}\n",
            untrusted(&comment.body, links, THEME_COMMENT_CHARS)
        ));
    }
    block.push('\n');
    block
}
