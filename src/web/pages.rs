//! The HTML of every page, with maud: everything interpolated is escaped, and text that comes
//! from reviews (titles, insights, excerpts, theme labels, paths) is first made plain by
//! `render::links::plain` — one line, capped, no invisible or direction-changing characters — so
//! it shows as inert text: no markup, no link, no image. Only its code spans become markup
//! (`<code>`, see `render::inline`). Links go only to this server's pages and to GitHub's web
//! host, the latter `rel="nofollow noopener"`; every piece of evidence links to where it lives
//! there. Dates are said from today (`first seen today`, `since 3 Nov 2026`). No JavaScript.

use chrono::DateTime;
use maud::{DOCTYPE, Markup, html};

use crate::domain::findings::{Evidence, EvidenceKind, Finding};
use crate::domain::github_web::path_in_url;
use crate::render::effect;
use crate::render::inline::{Inline, inline};
use crate::render::links::plain;
use crate::render::wording;
use crate::render::wording::{category_heading, day, day_said, evidence_label, first_seen};
use crate::store::pages::RepoEntry;

use super::access::Viewer;
use super::view::{RepoView, ThemeView};

/// Characters of a finding's title shown.
const TITLE_CHARS: usize = 200;
/// Characters of an insight shown.
const INSIGHT_CHARS: usize = 2_000;
/// Characters of an evidence excerpt or a theme comment shown.
const EXCERPT_CHARS: usize = 400;
/// Characters of a short label (a theme's label, a path, a login) shown.
const LABEL_CHARS: usize = 200;
/// Characters of a config problem or note shown.
const NOTICE_CHARS: usize = 500;

/// What every page needs besides its content.
pub struct Frame<'a> {
    pub viewer: &'a Viewer,
    /// GitHub's web host, e.g. `https://github.com`: the only outside address linked to.
    pub github_web: &'a str,
    /// Whether sign-in is configured.
    pub sign_in: bool,
    /// Now, in Unix seconds: dates are said from it.
    pub now: i64,
}

fn layout(frame: &Frame<'_>, title: &str, content: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="referrer" content="no-referrer";
                title { (title) " · gitlore" }
                link rel="stylesheet" href="/assets/gitlore.css";
            }
            body {
                header {
                    a.home href="/" { "gitlore" }
                    nav {
                        @match frame.viewer.session() {
                            Some(session) => {
                                span.who { "Signed in as " strong { (plain(&session.login, LABEL_CHARS)) } }
                                form method="post" action="/signout" {
                                    input type="hidden" name="csrf" value=(session.csrf);
                                    button type="submit" { "Sign out" }
                                }
                            }
                            None => {
                                @if frame.sign_in { a href="/signin" { "Sign in" } }
                            }
                        }
                    }
                }
                main { (content) }
            }
        }
    }
}

/// `/`: the repositories the viewer may read.
pub fn index(frame: &Frame<'_>, repos: &[RepoEntry]) -> Markup {
    let content = html! {
        h1 { "Repositories" }
        @if repos.is_empty() {
            p.empty {
                "No repository to show."
                @if frame.viewer.session().is_none() && frame.sign_in {
                    " " a href="/signin" { "Sign in with GitHub" } " to see private ones."
                }
            }
        } @else {
            table.repos {
                thead { tr { th { "Repository" } th { "Findings" } th { "Last analysis" } } }
                tbody {
                    @for repo in repos {
                        tr {
                            td {
                                a href=(repo_path(&repo.full_name)) { (repo.full_name) }
                                @if repo.private { " " span.badge { "private" } }
                            }
                            td.num { (repo.findings) }
                            td { (repo.last_run_at.map_or("never".to_string(), |at| day_said(at.as_secs(), frame.now))) }
                        }
                    }
                }
            }
        }
    };
    layout(frame, "Repositories", content)
}

/// `/repos/{owner}/{repo}`.
pub fn repository(frame: &Frame<'_>, view: &RepoView) -> Markup {
    let name = &view.repo.full_name;
    let content = html! {
        h1 { (name) @if view.repo.private { " " span.badge { "private" } } }
        p.links {
            (external(frame, &format!("{}/{name}", frame.github_web), html! { "On GitHub" }))
            @if let Some(number) = view.issue_number {
                " · " (external(frame, &format!("{}/{name}/issues/{number}", frame.github_web), html! { "Findings issue #" (number) }))
            }
        }
        (last_run(frame, view))
        (effect_summary(view))
        section id="findings" {
            h2 { "Findings (" (view.findings.active.len()) ")" }
            @if view.findings.active.is_empty() {
                p.empty { "No findings yet." }
            }
            @for finding in &view.findings.active {
                (finding_block(frame, view, finding))
            }
            @if !view.findings.resolved.is_empty() {
                h3 { "Resolved by the last analysis" }
                ul { @for finding in &view.findings.resolved { li { (prose(&finding.title, TITLE_CHARS)) } } }
            }
            @if !view.findings.dismissed.is_empty() {
                h3 { "Dismissed" }
                ul {
                    @for dismissed in &view.findings.dismissed {
                        li { (prose(&dismissed.finding.title, TITLE_CHARS)) " — by " (plain(&dismissed.by, LABEL_CHARS)) ", " (day_said(dismissed.at, frame.now)) }
                    }
                }
            }
        }
        section id="themes" {
            h2 { "Themes (" (view.themes.len()) ")" }
            @if view.themes.is_empty() { p.empty { "No themes yet." } }
            @for theme in &view.themes { (theme_block(frame, name, theme)) }
        }
        (history(view))
    };
    layout(frame, name, content)
}

fn last_run(frame: &Frame<'_>, view: &RepoView) -> Markup {
    html! {
        section id="last-run" {
            h2 { "Last analysis" }
            @match &view.report {
                None => p.empty { "Not analysed yet." },
                Some(report) => {
                    p {
                        (capitalised(&day_said(report.run_at, frame.now))) " at " (utc_time(report.run_at)) ": "
                        (count(report.comments, "review comment")) " by " (count(report.reviewers, "reviewer")) " on "
                        (count(report.pull_requests, "pull request"))
                        @if report.window_months > 0 { " in the last " (report.window_months) " months" }
                        @if let Some(head) = &report.head { ", at " code { (short_sha(head)) } }
                        "."
                    }
                    @if let Some(model) = &report.model_labels {
                        p.labelled {
                            "The model " code { (model.model) } " judged " (model.judged) " of the "
                            (count(model.asked, "review comment")) " asked about (noise or labels); the "
                            "built-in filter and classifier judged the rest."
                        }
                    }
                    @if !report.config_problems.is_empty() {
                        div.problems {
                            h3 { "Problems with the repository's configuration" }
                            ul { @for problem in &report.config_problems { li { (prose(problem, NOTICE_CHARS)) } } }
                        }
                    }
                    @if !report.notes.is_empty() {
                        ul.notes { @for note in &report.notes { li { (prose(note, NOTICE_CHARS)) } } }
                    }
                }
            }
        }
    }
}

/// Whether the lessons help (behaviour §3.4), when the last analysis measured any.
fn effect_summary(view: &RepoView) -> Markup {
    let summary = view
        .report
        .as_ref()
        .and_then(|report| report.effect.as_ref())
        .and_then(|effect| effect.summary.as_ref());
    html! {
        @if let Some(summary) = summary {
            section id="effect" {
                h2 { "Do the lessons help?" }
                p { (wording::effect_summary(summary)) }
                @if let Some(holdback) = &summary.holdback {
                    p { (wording::holdback_summary(holdback)) }
                }
            }
        }
    }
}

fn finding_block(frame: &Frame<'_>, view: &RepoView, finding: &Finding) -> Markup {
    let effect = view
        .report
        .as_ref()
        .and_then(|report| report.effect.as_ref())
        .and_then(|effect| effect.of(&finding.id))
        .and_then(effect::plain_line);
    html! {
        article.finding id=(finding.id) {
            h3 {
                span class=(format!("severity {}", finding.severity.as_str())) { (finding.severity.as_str()) }
                " " span.category { (category_heading(finding.category)) }
                " " (prose(&finding.title, TITLE_CHARS))
            }
            p.insight { (prose(&finding.insight, INSIGHT_CHARS)) }
            @if let Some(effect) = effect {
                p.effect { (effect) }
            }
            @if !finding.files.is_empty() {
                p.files { "Files: " @for (i, file) in finding.files.iter().enumerate() { @if i > 0 { ", " } code { (plain(file, LABEL_CHARS)) } } }
            }
            @if !finding.evidence.is_empty() {
                details {
                    summary { "Evidence (" (finding.evidence.len()) ")" }
                    ul.evidence { @for evidence in &finding.evidence { li { (evidence_item(frame, view, evidence)) } } }
                }
            }
        }
    }
}

fn evidence_item(frame: &Frame<'_>, view: &RepoView, evidence: &Evidence) -> Markup {
    let label = evidence_label(evidence.kind);
    let repo_web = format!("{}/{}", frame.github_web, view.repo.full_name);
    let source = match evidence.kind {
        EvidenceKind::Comment => {
            let cited = evidence
                .id
                .parse::<i64>()
                .ok()
                .and_then(|id| view.cited.get(&id));
            match cited {
                Some(cited) => html! {
                    @match cited.url.as_deref() {
                        Some(url) => (external(frame, url, html! { (label) })),
                        None => (label),
                    }
                    " on "
                    (external(frame, &format!("{repo_web}/pull/{}", cited.pr_number), html! { "pull request #" (cited.pr_number) }))
                },
                None => html! { (label) },
            }
        }
        EvidenceKind::Commit if is_hex(&evidence.id) => {
            let url = format!("{repo_web}/commit/{}", evidence.id);
            html! { (label) " " (external(frame, &url, html! { code { (short_sha(&evidence.id)) } })) }
        }
        EvidenceKind::File => {
            let path = html! { code { (plain(&evidence.id, LABEL_CHARS)) } };
            let head = view
                .report
                .as_ref()
                .and_then(|report| report.head.as_deref());
            match head.filter(|head| is_hex(head)) {
                Some(head) => {
                    let url = format!("{repo_web}/blob/{head}/{}", path_in_url(&evidence.id));
                    html! { (label) " " (external(frame, &url, path)) }
                }
                None => html! { (label) " " (path) },
            }
        }
        EvidenceKind::Commit => {
            html! { (label) " " code { (plain(&evidence.id, LABEL_CHARS)) } }
        }
        EvidenceKind::Stat => html! { (label) },
    };
    html! {
        (source)
        @if !evidence.text.trim().is_empty() { ": " q { (prose(&evidence.text, EXCERPT_CHARS)) } }
    }
}

fn theme_block(frame: &Frame<'_>, repo: &str, view: &ThemeView) -> Markup {
    let theme = &view.theme;
    html! {
        article.theme id=(theme.id) {
            h3 { (plain(&theme.label, LABEL_CHARS)) }
            p.meta {
                (theme.members.len()) " comments · " (first_seen(theme.first_seen, frame.now))
                @if !theme.terms.is_empty() {
                    " · terms: " @for (i, term) in theme.terms.iter().enumerate() { @if i > 0 { ", " } code { (plain(term, LABEL_CHARS)) } }
                }
            }
            ul.comments {
                @for comment in &view.comments {
                    li {
                        q { (prose(&comment.body, EXCERPT_CHARS)) }
                        " — " (plain(&comment.author, LABEL_CHARS)) ", "
                        @let pull = format!("{}/{repo}/pull/{}", frame.github_web, comment.pr_number);
                        @let url = comment.url.as_deref().filter(|url| on_github(frame, url)).unwrap_or(&pull);
                        (external(frame, url, html! { "pull request #" (comment.pr_number) }))
                        @if let Some(path) = &comment.path { " " code { (plain(path, LABEL_CHARS)) } }
                    }
                }
            }
        }
    }
}

fn history(view: &RepoView) -> Markup {
    let figures = &view.history;
    html! {
        section id="history" {
            h2 { "History" }
            @if figures.commits == 0 {
                p.empty { "No git history read yet." }
            } @else {
                dl.figures {
                    dt { "Commits" } dd { (figures.commits) }
                    dt { "Authors" } dd { (figures.authors) }
                    dt { "Files changed" } dd { (figures.files) }
                    @if let (Some(first), Some(last)) = (figures.first_commit_at, figures.last_commit_at) {
                        dt { "Span" } dd { (day(first)) " – " (day(last)) }
                    }
                }
            }
            @if !view.couplings.is_empty() {
                h3 { "Files that change together" }
                table.couplings {
                    thead { tr { th { "Files" } th { "Commits" } th { "Confidence" } } }
                    tbody {
                        @for coupling in &view.couplings {
                            tr {
                                td { code { (plain(&coupling.a, LABEL_CHARS)) } " + " code { (plain(&coupling.b, LABEL_CHARS)) } }
                                td.num { (coupling.commits) }
                                td.num { (format!("{:.0}%", coupling.confidence * 100.0)) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// `/signin`.
pub fn sign_in(frame: &Frame<'_>, start_url: Option<&str>) -> Markup {
    let content = html! {
        h1 { "Sign in" }
        @match start_url {
            Some(url) => {
                p { "gitlore shows a private repository's page to the people GitHub lets read the repository. Sign in with your GitHub account: GitHub asks you to authorise gitlore, then sends you back here." }
                p { a.button href=(url) { "Sign in with GitHub" } }
            }
            None => p.empty { "Signing in is not configured on this server: the operator sets the App's OAuth client (GITLORE_OAUTH_CLIENT_ID, GITLORE_OAUTH_CLIENT_SECRET) and GITLORE_PUBLIC_URL." },
        }
    };
    layout(frame, "Sign in", content)
}

/// A page in place of a repository the viewer may not read, or that does not exist: the same
/// for both, so a private repository's existence shows to nobody.
pub fn not_found(frame: &Frame<'_>) -> Markup {
    let content = html! {
        h1 { "Not found" }
        p { "There is no repository here that you can read." }
        @if frame.viewer.session().is_none() && frame.sign_in {
            p { "If it is private, " a href="/signin" { "sign in with GitHub" } " first." }
        }
    };
    layout(frame, "Not found", content)
}

/// A page saying something went wrong, in words for the reader (details are in the log).
pub fn problem(frame: &Frame<'_>, title: &str, message: &str) -> Markup {
    layout(frame, title, html! { h1 { (title) } p { (message) } })
}

/// The page path of a repository.
pub fn repo_path(full_name: &str) -> String {
    format!("/repos/{full_name}")
}

/// `1 reviewer`, `2 reviewers`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Review text shown as prose: made plain, its code spans as `<code>`, nothing else as markup.
fn prose(text: &str, max_chars: usize) -> Markup {
    let text = plain(text, max_chars);
    html! {
        @for piece in inline(&text) {
            @match piece {
                Inline::Text(text) => (text),
                Inline::Code(code) => code { (code) },
            }
        }
    }
}

/// `content` linked to `url` when `url` is on GitHub's web host, as a link that passes on no
/// ranking and no access to this page; otherwise `content` alone.
fn external(frame: &Frame<'_>, url: &str, content: Markup) -> Markup {
    html! {
        @if on_github(frame, url) {
            a href=(url) rel="nofollow noopener" { (content) }
        } @else {
            (content)
        }
    }
}

fn on_github(frame: &Frame<'_>, url: &str) -> bool {
    url.strip_prefix(frame.github_web)
        .is_some_and(|rest| rest.starts_with('/'))
}

fn is_hex(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_hexdigit())
}

fn short_sha(sha: &str) -> String {
    sha.chars().take(7).collect()
}

fn utc_time(unix_secs: i64) -> String {
    DateTime::from_timestamp(unix_secs, 0)
        .map_or_else(String::new, |t| t.format("%H:%M UTC").to_string())
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// The style sheet (`/assets/gitlore.css`).
pub const STYLE: &str = "\
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1f2328;background:#fff}
header{display:flex;justify-content:space-between;align-items:center;padding:.6em 1.5em;background:#24292f;color:#fff}
header a{color:#fff}header .home{font-weight:bold;text-decoration:none}
nav{display:flex;gap:1em;align-items:center}nav form{margin:0}
main{max-width:60em;margin:0 auto;padding:1em 1.5em}
h1{font-size:1.6em}h2{border-bottom:1px solid #d0d7de;padding-bottom:.2em;margin-top:1.6em}
table{border-collapse:collapse}td,th{padding:.3em .8em;border-bottom:1px solid #d0d7de;text-align:left}
.num{text-align:right}.empty{color:#59636e}
.badge{font-size:.75em;border:1px solid #d0d7de;border-radius:1em;padding:0 .5em;color:#59636e}
.finding,.theme{border:1px solid #d0d7de;border-radius:6px;padding:.2em 1em;margin:1em 0}
.severity{font-size:.75em;text-transform:uppercase;padding:0 .4em;border-radius:4px;color:#fff}
.severity.high{background:#cf222e}.severity.medium{background:#9a6700}.severity.low{background:#59636e}
.category{color:#59636e;font-size:.85em}
.problems{border-left:4px solid #cf222e;padding-left:1em}
q{quotes:none;font-style:italic}
code{font:.9em ui-monospace,SFMono-Regular,Menlo,monospace;background:#f6f8fa;padding:.1em .3em;border-radius:4px;overflow-wrap:anywhere}
.button{display:inline-block;background:#1f883d;color:#fff;padding:.5em 1em;border-radius:6px;text-decoration:none}
dl.figures{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}dd{margin:0}
";

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::domain::findings::{Category, Severity, Status};
    use crate::domain::themes::ModelLabels;
    use crate::domain::{PrNumber, RepoId};
    use crate::store::findings::Listing;
    use crate::store::pages::{CitedComment, HistoryFigures};
    use crate::store::run_reports::RunReport;

    /// The page as someone not signed in sees it, at time 0.
    fn anonymous() -> Frame<'static> {
        Frame {
            viewer: &Viewer::Anonymous,
            github_web: "https://github.com",
            sign_in: true,
            now: 0,
        }
    }

    const HOSTILE: &str = "<img src=x onerror=alert(1)> <a href=\"https://evil.example\">x</a>";

    #[test]
    fn review_text_is_escaped_and_links_stay_on_github() {
        let finding = Finding {
            id: "f-1".into(),
            category: Category::Landmine,
            severity: Severity::High,
            title: HOSTILE.into(),
            insight: HOSTILE.into(),
            evidence: vec![
                Evidence {
                    kind: EvidenceKind::Comment,
                    id: "7".into(),
                    text: HOSTILE.into(),
                },
                Evidence {
                    kind: EvidenceKind::Comment,
                    id: "8".into(),
                    text: "fine".into(),
                },
            ],
            files: vec!["src/a.rs".into()],
            first_seen: 0,
            last_seen: 0,
            status: Status::Active,
        };
        let view = RepoView {
            repo: RepoEntry {
                id: RepoId(1),
                full_name: "acme/widgets".into(),
                private: true,
                last_run_at: None,
                findings: 1,
            },
            findings: Listing {
                active: vec![finding],
                ..Listing::default()
            },
            themes: Vec::new(),
            history: HistoryFigures::default(),
            couplings: Vec::new(),
            report: None,
            cited: HashMap::from([
                (
                    7,
                    CitedComment {
                        pr_number: PrNumber(1),
                        url: Some("https://evil.example/x".to_string()),
                    },
                ),
                (
                    8,
                    CitedComment {
                        pr_number: PrNumber(1),
                        url: Some("https://github.com/acme/widgets/pull/1#r8".to_string()),
                    },
                ),
            ]),
            issue_number: None,
        };
        let frame = anonymous();
        let html = repository(&frame, &view).into_string();
        assert!(
            !html.contains("<img") && !html.contains("<a href=\"https://evil"),
            "{html}"
        );
        assert!(
            html.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{html}"
        );
        assert!(!html.contains("href=\"https://evil.example/x\""), "{html}");
        assert!(
            html.contains("href=\"https://github.com/acme/widgets/pull/1#r8\""),
            "{html}"
        );
        assert!(!html.contains("<script"), "no script: {html}");
    }

    #[test]
    fn the_last_analysis_says_which_model_judged_the_comments() {
        let mut view = RepoView {
            repo: RepoEntry {
                id: RepoId(1),
                full_name: "acme/widgets".into(),
                private: false,
                last_run_at: None,
                findings: 0,
            },
            findings: Listing::default(),
            themes: Vec::new(),
            history: HistoryFigures::default(),
            couplings: Vec::new(),
            report: Some(RunReport::default()),
            cited: HashMap::new(),
            issue_number: None,
        };
        let frame = anonymous();
        let built_in = last_run(&frame, &view).into_string();
        assert!(!built_in.contains("judged"), "{built_in}");
        view.report = Some(RunReport {
            model_labels: Some(ModelLabels {
                model: "openai/gpt-x/965d1488bfb2".into(),
                asked: 40,
                judged: 38,
            }),
            ..RunReport::default()
        });
        let html = last_run(&frame, &view).into_string();
        assert!(
            html.contains(
                "The model <code>openai/gpt-x/965d1488bfb2</code> judged 38 of the 40 review comments asked about"
            ),
            "{html}"
        );
    }

    #[test]
    fn the_lessons_effect_shows_per_finding_and_for_the_repository_as_text() {
        use crate::domain::effect::{
            EffectReport, EffectSummary, LessonEffect, Ratio, Verdict, Window,
        };
        let window = |raised, pull_requests| Window {
            days: 90,
            raised,
            pull_requests,
        };
        let ratio = |estimate, verdict| Ratio {
            estimate: Some(estimate),
            low: 0.05,
            high: Some(0.6),
            verdict,
        };
        let finding = Finding {
            id: "f-t-1".into(),
            category: Category::CodePattern,
            severity: Severity::High,
            title: "Wrap storage errors".into(),
            insight: "Reviewers ask for context.".into(),
            evidence: Vec::new(),
            files: vec!["src/<b>/a.rs".into()],
            first_seen: 0,
            last_seen: 0,
            status: Status::Active,
        };
        let effect = EffectReport {
            lessons: vec![LessonEffect {
                finding_id: "f-t-1".into(),
                published_at: 0,
                before: window(6, 146),
                since: window(1, 141),
                ratio: ratio(0.17, Verdict::Fewer),
                control_before: window(20, 150),
                control_since: window(19, 140),
                still_repeated: false,
                scope: vec!["src/<b>/".into()],
                held_back: false,
            }],
            summary: Some(EffectSummary {
                lessons: 1,
                too_early: 2,
                before: window(6, 146),
                since: window(1, 141),
                control_before: window(20, 150),
                control_since: window(19, 140),
                relative: ratio(0.18, Verdict::Fewer),
                holdback: None,
            }),
        };
        let view = RepoView {
            repo: RepoEntry {
                id: RepoId(1),
                full_name: "acme/widgets".into(),
                private: false,
                last_run_at: None,
                findings: 1,
            },
            findings: Listing {
                active: vec![finding],
                ..Listing::default()
            },
            themes: Vec::new(),
            history: HistoryFigures::default(),
            couplings: Vec::new(),
            report: Some(RunReport {
                effect: Some(effect),
                ..RunReport::default()
            }),
            cited: HashMap::new(),
            issue_number: None,
        };
        let html = repository(&anonymous(), &view).into_string();
        assert!(
            html.contains(
                "Raised in 6 pull requests in the 90 days before it was written down, 1 in the 90 \
                 days since; 4.1 → 0.7 per 100 pull requests touching src/&lt;b&gt;/. Reviewers \
                 raise it less since."
            ),
            "{html}"
        );
        assert!(
            html.contains(
                "1 lesson measured: 4.1 → 0.7 raises per 100 pull requests touching their paths; \
                 the unpublished recurring themes 13.3 → 13.6 per 100 reviewed pull requests; the \
                 lessons are raised less, beyond the change in the unpublished themes (ratio 0.18, \
                 90 % interval 0.05–0.60) (2 lessons too early to tell)."
            ),
            "{html}"
        );
    }
}
