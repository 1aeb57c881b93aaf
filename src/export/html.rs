//! `--format html`: the whole report as one self-contained page — inline CSS, no script, no
//! image, no font, nothing loaded from elsewhere, so opening it makes no request. Each piece of
//! evidence links to where it lives on GitHub's web host (`rel="nofollow noopener"`, no
//! referrer; an address elsewhere is not linked). Findings fold their evidence in `<details>`,
//! themes their comments: readable without JavaScript. The history's figures and the files that
//! change together close it. Every piece of text is escaped; review text is also flattened to
//! one line and stripped of invisible characters, and only its code spans become markup. The
//! page is well-formed XML too (void elements closed), so any XML parser can check it.

use quick_xml::escape::escape;

use crate::domain::findings::{Category, Evidence, Finding};
use crate::lessons::report::{RepoReport, Theme};
use crate::render::inline::{Inline, inline};
use crate::render::links::plain;
use crate::render::wording;

/// No cap: the page keeps every character.
const ALL: usize = usize::MAX;

/// The page's style: system fonts, a readable measure, light and dark.
const STYLE: &str = "\
body{font:16px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1f2328;background:#fff}\
h1{font-size:1.6rem}h2{margin-top:2rem;border-bottom:1px solid #d0d7de}h3{font-size:1.1rem;margin-bottom:.3rem}\
.meta{color:#59636e;font-size:.9rem}.sev{font-weight:600}.high{color:#cf222e}.medium{color:#9a6700}.low{color:#59636e}\
code{font:.85em ui-monospace,SFMono-Regular,Menlo,monospace;background:#f6f8fa;padding:.1em .3em;border-radius:4px;overflow-wrap:anywhere}\
details{margin:.5rem 0 1.2rem}summary{cursor:pointer;color:#0969da}li{margin:.3rem 0}a{color:#0969da}\
dl{display:grid;grid-template-columns:max-content auto;gap:.2rem 1rem}dd{margin:0}td,th{padding:.2rem .8rem .2rem 0;text-align:left}\
@media (prefers-color-scheme:dark){body{color:#e6edf3;background:#0d1117}code{background:#161b22}.meta,.low{color:#9198a1}h2{border-color:#30363d}summary,a{color:#4493f8}}";

/// The report as one HTML document; `web_base` (e.g. `https://github.com`) is the only host
/// linked to.
pub fn render(report: &RepoReport, web_base: &str) -> String {
    let link = |url: &str, label: &str| match url.strip_prefix(web_base.trim_end_matches('/')) {
        Some(rest) if rest.starts_with('/') => format!(
            "<a href=\"{}\" rel=\"nofollow noopener\">{label}</a>",
            text(url)
        ),
        _ => label.to_string(),
    };
    let repo = text(&report.repo);
    let mut body = format!(
        "<h1>What reviews keep teaching in <code>{repo}</code></h1>\n<p class=\"meta\">{}</p>\n",
        untrusted(&super::summary(report))
    );
    if report.findings.is_empty() {
        body.push_str(&format!("<p>{}</p>\n", text(wording::NO_FINDINGS_YET)));
    }
    for category in Category::ALL {
        let findings: Vec<&Finding> = report
            .findings
            .iter()
            .filter(|f| f.category == category)
            .collect();
        if findings.is_empty() {
            continue;
        }
        body.push_str(&format!(
            "<h2>{}</h2>\n",
            text(wording::category_heading(category))
        ));
        for finding in findings {
            body.push_str(&finding_section(report, finding, &link));
        }
    }
    if !report.resolved.is_empty() {
        body.push_str(&format!(
            "<h2>{}</h2>\n<ul>\n",
            text(wording::RESOLVED_HEADING)
        ));
        for finding in &report.resolved {
            body.push_str(&format!(
                "<li><s>{}</s> ({})</li>\n",
                untrusted(&finding.title),
                text(wording::category_name(finding.category))
            ));
        }
        body.push_str("</ul>\n");
    }
    if !report.themes.is_empty() {
        body.push_str("<h2>Themes</h2>\n");
        for theme in &report.themes {
            body.push_str(&theme_section(theme, &link));
        }
    }
    body.push_str(&history_section(report));
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n\
         <meta name=\"referrer\" content=\"no-referrer\"/>\n\
         <title>gitlore: {repo}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n{body}</main>\n</body>\n</html>\n"
    )
}

/// A link to a page on GitHub's web host, or the label alone.
type Link<'a> = dyn Fn(&str, &str) -> String + 'a;

fn finding_section(report: &RepoReport, finding: &Finding, link: &Link<'_>) -> String {
    let severity = finding.severity.as_str();
    let mut meta = format!(
        "<span class=\"sev {severity}\">{}</span>",
        text(&wording::severity_label(finding.severity))
    );
    if !finding.files.is_empty() {
        let files: Vec<String> = finding
            .files
            .iter()
            .map(|f| format!("<code>{}</code>", untrusted(f)))
            .collect();
        meta.push_str(&format!(" · {}", files.join(", ")));
    }
    let mut section = format!(
        "<section id=\"{}\">\n<h3>{}</h3>\n<p class=\"meta\">{meta}</p>\n<p>{}</p>\n",
        text(&finding.id),
        untrusted(&finding.title),
        untrusted(&finding.insight),
    );
    if !finding.evidence.is_empty() {
        section.push_str(&format!(
            "<details><summary>{}</summary>\n<ul class=\"evidence\">\n",
            text(&wording::evidence_summary(finding.evidence.len()))
        ));
        for evidence in &finding.evidence {
            section.push_str(&evidence_item(report, evidence, link));
        }
        section.push_str("</ul>\n</details>\n");
    }
    section.push_str("</section>\n");
    section
}

fn evidence_item(report: &RepoReport, evidence: &Evidence, link: &Link<'_>) -> String {
    let cited = format!(
        "{} <code>{}</code>",
        text(wording::evidence_label(evidence.kind)),
        untrusted(&evidence.id)
    );
    let mut item = match report.url(evidence) {
        Some(url) => format!("<li>{}", link(url, &cited)),
        None => format!("<li>{cited}"),
    };
    let said = untrusted(&evidence.text);
    if !said.is_empty() {
        item.push_str(&format!(": {said}"));
    }
    item.push_str("</li>\n");
    item
}

fn theme_section(theme: &Theme, link: &Link<'_>) -> String {
    let mut section = format!(
        "<details><summary>{} ({} comments)</summary>\n<ul class=\"comments\">\n",
        untrusted(&theme.label),
        theme.comments.len()
    );
    for comment in &theme.comments {
        let pull = format!("pull request {}", comment.pr_number);
        let pull = match &comment.url {
            Some(url) => link(url, &pull),
            None => pull,
        };
        let mut cited = format!("{pull} by {}", untrusted(&comment.author));
        if let Some(path) = &comment.path {
            cited.push_str(&format!(" on <code>{}</code>", untrusted(path)));
        }
        section.push_str(&format!("<li>{cited}: {}</li>\n", untrusted(&comment.body)));
    }
    section.push_str("</ul>\n</details>\n");
    section
}

/// The history's figures and the files that change together, as the web page shows them.
fn history_section(report: &RepoReport) -> String {
    let figures = &report.history;
    if figures.commits == 0 && report.couplings.is_empty() {
        return String::new();
    }
    let mut section = String::from("<h2>History</h2>\n");
    if figures.commits > 0 {
        section.push_str(&format!(
            "<dl>\n<dt>Commits</dt><dd>{}</dd>\n<dt>Authors</dt><dd>{}</dd>\n<dt>Files changed</dt><dd>{}</dd>\n",
            figures.commits, figures.authors, figures.files
        ));
        if let (Some(first), Some(last)) = (figures.first_commit_at, figures.last_commit_at) {
            section.push_str(&format!(
                "<dt>Span</dt><dd>{} – {}</dd>\n",
                text(&wording::day(first)),
                text(&wording::day(last))
            ));
        }
        section.push_str("</dl>\n");
    }
    if !report.couplings.is_empty() {
        section.push_str(
            "<h3>Files that change together</h3>\n<table>\n<tr><th>Files</th><th>Commits</th><th>Confidence</th></tr>\n",
        );
        for coupling in &report.couplings {
            section.push_str(&format!(
                "<tr><td><code>{}</code> + <code>{}</code></td><td>{}</td><td>{:.0}%</td></tr>\n",
                untrusted(&coupling.a),
                untrusted(&coupling.b),
                coupling.commits,
                coupling.confidence * 100.0
            ));
        }
        section.push_str("</table>\n");
    }
    section
}

/// gitlore's own text, escaped.
fn text(value: &str) -> String {
    escape(value).into_owned()
}

/// Review text: one line without invisible characters, escaped, its code spans shown as code.
fn untrusted(value: &str) -> String {
    let flat = plain(value, ALL);
    inline(&flat)
        .into_iter()
        .map(|piece| match piece {
            Inline::Text(part) => text(part),
            Inline::Code(code) => format!("<code>{}</code>", text(code)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::findings::{EvidenceKind, Severity, Status};

    #[test]
    fn review_text_cannot_make_markup() {
        let report = RepoReport {
            repo: "o/r".into(),
            findings: vec![Finding {
                id: "f-1".into(),
                category: Category::Landmine,
                severity: Severity::High,
                title: "<script>alert(1)</script>".into(),
                insight: "<img src=https://evil.example/x.png> and \"quotes\"".into(),
                evidence: vec![Evidence {
                    kind: EvidenceKind::Comment,
                    id: "7".into(),
                    text: "<a href=\"https://evil.example\">click</a>".into(),
                }],
                files: vec!["src/<b>.rs".into()],
                first_seen: 0,
                last_seen: 0,
                status: Status::Active,
            }],
            ..Default::default()
        };
        let page = render(&report, "https://github.com");
        for bad in ["<script", "<img", "<a ", "<b>"] {
            assert!(!page.contains(bad), "{bad} in {page}");
        }
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert_eq!(
            untrusted("use `a<b>` not `c`"),
            "use <code>a&lt;b&gt;</code> not <code>c</code>"
        );
        assert_eq!(untrusted("one ` tick"), "one ` tick");
    }
}
