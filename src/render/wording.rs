//! Every sentence gitlore publishes, in one place: the findings issue, the check run and the
//! replies to commands. Short, plain and friendly. Callers pass only text that is already safe
//! markdown (see `links`).

use chrono::DateTime;

use crate::domain::effect::{EffectSummary, HoldBackComparison, Verdict, Window};
use crate::domain::findings::{Category, EvidenceKind, Severity};
use crate::render::links::{code_span, truncate};

/// Marks a finding first seen in this run.
pub const NEW_MARKER: &str = "**new**";

/// The text of a finding's dismiss checkbox.
pub const DISMISS_LABEL: &str = "Dismiss";

/// The heading of findings that disappeared since the last run.
pub const RESOLVED_HEADING: &str = "Resolved since the last update";

/// Said when the daily LLM token budget of a repository is spent.
pub const LLM_BUDGET_SPENT: &str = "Today's LLM budget for this repository is spent, so the built-in \
     analysis wrote this update. The LLM takes over again tomorrow.";

/// Said when an analysis found nothing worth publishing yet.
pub const NO_FINDINGS_YET: &str = "Nothing to report yet: a lesson needs review comments that raise \
     it on at least two pull requests, or one comment backed by the git history.";

/// The findings issue's closing lines.
pub const ISSUE_FOOTER: &str = "Tick **Dismiss** under a finding to hide it for good (needs write \
     access). Comment `/gitlore refresh` on a pull request to update now, or `/gitlore help` for \
     more.";

/// The note when the repository's git history could not be read for an analysis.
pub const HISTORY_UNAVAILABLE: &str = "The git history could not be read this time, so these \
     findings come from review comments alone.";

/// The check run's summary when no finding applies.
pub const NOTHING_APPLIES: &str =
    "Nothing gitlore learned from past reviews touches the files this pull request changes.";

/// The check run's "Refresh" button: label (GitHub allows 20 characters).
pub const REFRESH_LABEL: &str = "Refresh";

/// The check run's "Refresh" button: description (GitHub allows 40 characters).
pub const REFRESH_DESCRIPTION: &str = "Re-run the analysis for this repository";

/// `Landmines`, `Fragile areas`, …: the heading of a category's section.
pub fn category_heading(category: Category) -> &'static str {
    match category {
        Category::Landmine => "Landmines",
        Category::FragileArea => "Fragile areas",
        Category::Architecture => "Architecture",
        Category::CodePattern => "Code patterns",
        Category::Convention => "Conventions",
        Category::Testing => "Testing",
        Category::Tooling => "Tooling",
        Category::ReviewerFocus => "Reviewer focus",
    }
}

/// `landmine`, `fragile area`, …: a category named in a sentence.
pub fn category_name(category: Category) -> &'static str {
    match category {
        Category::Landmine => "landmine",
        Category::FragileArea => "fragile area",
        Category::Architecture => "architecture",
        Category::CodePattern => "code pattern",
        Category::Convention => "convention",
        Category::Testing => "testing",
        Category::Tooling => "tooling",
        Category::ReviewerFocus => "reviewer focus",
    }
}

/// `high severity`, …
pub fn severity_label(severity: Severity) -> String {
    format!("{severity} severity")
}

/// Unix seconds as `2026-11-22 21:05 UTC`.
pub fn utc_minute(unix_secs: i64) -> String {
    DateTime::from_timestamp(unix_secs, 0).map_or_else(
        || unix_secs.to_string(),
        |t| t.format("%Y-%m-%d %H:%M UTC").to_string(),
    )
}

/// What introduces the update time in the summary line (the publisher leaves the time out when
/// it compares bodies).
pub const UPDATED_PREFIX: &str = "Updated ";

/// The findings issue's one-line summary. `head` is the analysed commit, already a link.
pub fn summary_line(
    counts: SummaryCounts,
    window: ReviewWindow,
    updated_at: i64,
    head: Option<&str>,
) -> String {
    let at_commit = head.map(|head| format!(" at {head}")).unwrap_or_default();
    let left_out = match window.left_out {
        0 => String::new(),
        n => format!(
            "; {} left out",
            count(n, "older review comment", "older review comments")
        ),
    };
    let window = match window.months {
        0 => format!(
            "over the whole history{}",
            if left_out.is_empty() {
                String::new()
            } else {
                format!(" ({})", &left_out[2..])
            }
        ),
        months => format!(
            "in the last {} {WINDOW_SINCE}{}{left_out})",
            count(months as usize, "month", "months"),
            utc_day(window.start)
        ),
    };
    format!(
        "**{}** from {} by {} on {} {window}. {UPDATED_PREFIX}{}{at_commit}.",
        count(counts.findings, "finding", "findings"),
        count(counts.comments, "review comment", "review comments"),
        count(counts.reviewers, "reviewer", "reviewers"),
        count(counts.pull_requests, "pull request", "pull requests"),
        utc_minute(updated_at),
    )
}

/// What introduces the window's start date in the summary line (the publisher leaves the date
/// out when it compares bodies: it moves every day).
pub const WINDOW_SINCE: &str = "(since ";

/// What the summary line counts.
#[derive(Debug, Clone, Copy)]
pub struct SummaryCounts {
    pub findings: usize,
    pub comments: usize,
    pub reviewers: usize,
    pub pull_requests: usize,
}

/// The review window the summary line states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReviewWindow {
    /// 0 for the whole history.
    pub months: u32,
    /// Unix seconds.
    pub start: i64,
    /// Review comments written before the start.
    pub left_out: usize,
}

/// A day as people say it, from `now`'s point of view (both Unix seconds, UTC): `today`,
/// `yesterday`, or the date ([`day`]).
pub fn day_said(unix_secs: i64, now: i64) -> String {
    let date = |secs: i64| DateTime::from_timestamp(secs, 0).map(|t| t.date_naive());
    match (date(unix_secs), date(now)) {
        (Some(at), Some(today)) if at == today => "today".into(),
        (Some(at), Some(today)) if Some(at) == today.pred_opt() => "yesterday".into(),
        _ => day(unix_secs),
    }
}

/// Unix seconds as a date people read without guessing the order: `3 Nov 2026` (UTC).
pub fn day(unix_secs: i64) -> String {
    DateTime::from_timestamp(unix_secs, 0)
        .map_or_else(String::new, |t| t.format("%-d %b %Y").to_string())
}

/// When gitlore first noticed something: `first seen today`, `first seen 3 Nov 2026`.
pub fn first_seen(unix_secs: i64, now: i64) -> String {
    format!("first seen {}", day_said(unix_secs, now))
}

/// Unix seconds as `2026-11-22`.
pub fn utc_day(unix_secs: i64) -> String {
    DateTime::from_timestamp(unix_secs, 0).map_or_else(
        || unix_secs.to_string(),
        |t| t.format("%Y-%m-%d").to_string(),
    )
}

/// What a piece of evidence is, in front of its link and text.
pub fn evidence_label(kind: EvidenceKind) -> &'static str {
    match kind {
        EvidenceKind::Comment => "review comment",
        EvidenceKind::Commit => "commit",
        EvidenceKind::File => "file",
        EvidenceKind::Stat => "figure",
    }
}

/// The `<summary>` of a finding's folded evidence.
pub fn evidence_summary(items: usize) -> String {
    format!("Evidence ({items})")
}

/// Said under evidence that was cut for space.
pub fn evidence_left_out(items: usize) -> String {
    format!(
        "{} left out here for space.",
        count(items, "more piece", "more pieces")
    )
}

/// Ends a list of files cut short.
pub fn more_files(files: usize) -> String {
    format!("and {files} more")
}

/// Ends the "Resolved" list when it was cut short.
pub fn more_resolved(findings: usize) -> String {
    format!("…and {} more.", count(findings, "finding", "findings"))
}

/// A problem with `.github/gitlore.toml` (already worded and escaped).
pub fn config_problem(problem: &str) -> String {
    format!(
        "**Config problem:** {problem}. gitlore uses the rest of the file, and the defaults for \
         what it could not read; fix the file on the default branch and the next update picks it up."
    )
}

/// The config problems not shown, counted.
pub fn more_config_problems(n: usize) -> String {
    format!(
        "**{}** not shown here: fix the ones above and the next update lists the rest.",
        count(n, "more config problem", "more config problems")
    )
}

/// The backfill's progress while it reads the repository's past pull requests.
pub fn backfill_progress(read: usize, total: Option<usize>) -> String {
    let so_far = match total {
        Some(total) => format!("{read} of {total} pull requests"),
        None => count(read, "pull request", "pull requests"),
    };
    format!("**Still reading past reviews:** {so_far} so far. Findings will fill in as it goes.")
}

/// A note from the analysis (already escaped), e.g. that the LLM fell back.
pub fn note(text: &str) -> String {
    format!("**Note:** {text}")
}

/// What was cut to fit GitHub's size limit, and where to read everything.
pub fn shortening_notice(
    evidence_shortened: usize,
    insights_shortened: usize,
    findings_left_out: usize,
    repo: &str,
    dashboard_url: Option<&str>,
) -> String {
    let mut cuts = Vec::new();
    if evidence_shortened > 0 {
        cuts.push(format!(
            "evidence shortened for {}",
            count(evidence_shortened, "finding", "findings")
        ));
    }
    if insights_shortened > 0 {
        cuts.push(format!(
            "insight shortened for {}",
            count(insights_shortened, "finding", "findings")
        ));
    }
    if findings_left_out > 0 {
        cuts.push(format!(
            "{} left out (the least severe)",
            count(findings_left_out, "finding", "findings")
        ));
    }
    let export = format!("`gitlore export --repo {repo} --format html`");
    let analyze = format!("`gitlore analyze --github {repo} --format html`");
    let everything = match dashboard_url {
        Some(url) => format!(
            "see [the dashboard]({url}), run {export} where gitlore runs, or {analyze} in a clone"
        ),
        None => format!("run {export} where gitlore runs, or {analyze} in a clone"),
    };
    format!(
        "**Shortened to fit GitHub's size limit:** {}. For every finding in full, {everything}.",
        cuts.join("; ")
    )
}

/// The check run's title.
pub fn check_run_title(applicable: usize) -> String {
    match applicable {
        0 => "No past lessons apply".to_string(),
        1 => "1 past lesson applies to this change".to_string(),
        n => format!("{n} past lessons apply to this change"),
    }
}

/// The check run's opening sentence when findings apply.
pub fn check_run_intro(applicable: usize) -> String {
    format!(
        "Past reviews of this repository taught {} that {} the files this pull request changes:",
        count(applicable, "lesson", "lessons"),
        if applicable == 1 { "touches" } else { "touch" }
    )
}

/// Ends the check run's list when it was cut for size.
pub fn check_run_more(findings: usize) -> String {
    format!("…and {findings} more; see the findings issue.")
}

/// Points from the check run to the findings issue (`link` already a markdown link).
pub fn see_findings_issue(link: &str) -> String {
    format!("Everything gitlore learned is in {link}.")
}

/// The label of the findings issue link.
pub const FINDINGS_ISSUE_LINK_LABEL: &str = "the findings issue";

/// Why a finding applies: the pull request changes one of its files (already code spans).
pub fn why_direct(path: &str) -> String {
    format!("changes {path}")
}

/// Why a finding applies: the pull request changes a file in one of its directories.
pub fn why_same_directory(changed: &str, directory: &str) -> String {
    format!("changes {changed} in {directory}, where this applies")
}

/// Why a finding applies: the pull request changes a file that usually changes with one of its
/// files.
pub fn why_coupled(changed: &str, coupled: &str) -> String {
    format!("changes {changed}, which usually changes together with {coupled}")
}

/// A why line as a sentence about the pull request.
pub fn why_sentence(line: &str) -> String {
    format!("This pull request {line}.")
}

/// The title of an annotation where past review comments cluster.
pub fn annotation_title(comments: usize) -> String {
    format!("Reviewers often comment here ({comments})")
}

/// The message of an annotation (plain text): how many past comments, and one of them.
pub fn annotation_message(comments: usize, example: &str) -> String {
    format!(
        "{} on these lines in past pull requests, e.g.: “{example}”",
        count(comments, "review comment", "review comments")
    )
}

/// The reply to `/gitlore help`.
pub fn help_text() -> String {
    "gitlore learns what your reviews keep teaching and keeps it in the findings issue. \
     Commands, in a pull request comment:\n\n\
     - `/gitlore refresh`: re-run the analysis now and update the findings issue and this pull \
     request's check (needs write access).\n\
     - `/gitlore help`: this list."
        .to_string()
}

/// The reply when someone without write access asks for a refresh.
pub fn refused_no_permission() -> String {
    "Sorry, only people with write access to this repository can run `/gitlore refresh`."
        .to_string()
}

/// The reply when a refresh comes too soon after the last one.
pub fn cooldown(minutes_left: u64) -> String {
    format!(
        "This repository was refreshed a moment ago; try again in {}.",
        count(minutes_left.max(1) as usize, "minute", "minutes")
    )
}

/// The line above a check run's summary when its Refresh button was pressed during the
/// cooldown (the button gets no reply).
pub fn cooldown_button(minutes_left: u64) -> String {
    format!(
        "Refreshed a moment ago: the Refresh button works again in {}.",
        count(minutes_left.max(1) as usize, "minute", "minutes")
    )
}

/// The reply to `/gitlore <word>` with a word gitlore does not know (`word` as typed: it is
/// shown as code, capped).
pub fn unknown_command(word: &str) -> String {
    let command = code_span(&truncate(&format!("/gitlore {word}"), UNKNOWN_WORD_CHARS));
    format!("I don't know {command}.\n\n{}", help_text())
}

/// Characters of an unknown command echoed back: enough to recognise a typo.
const UNKNOWN_WORD_CHARS: usize = 40;

/// A lesson's effect line under its insight in the findings issue and on the web page
/// (behaviour §3.4), when enough pull requests touched its paths since: raises before and since,
/// the rates, and what they say. `scope` is the lesson's directories, already formatted (code
/// spans in markdown, plain on the page); `rates` is `(before, since)` per 100 pull requests.
pub fn lesson_effect(
    (before, since): (&Window, &Window),
    rates: (f64, f64),
    scope: &str,
    verdict: Verdict,
    still_repeated: bool,
) -> String {
    let outcome = match verdict {
        Verdict::Fewer => "Reviewers raise it less since.",
        Verdict::More => "Reviewers raise it more since.",
        Verdict::NoEffect if still_repeated => {
            "Still raised at the same rate: reword it or dismiss it."
        }
        Verdict::NoEffect | Verdict::TooEarly => "No change shown.",
    };
    format!(
        "Raised in {} in the {} before it was written down, {} in the {} since; {:.1} → {:.1} per \
         100 pull requests {}. {outcome}",
        count(before.raised as usize, "pull request", "pull requests"),
        count(before.days as usize, "day", "days"),
        since.raised,
        count(since.days as usize, "day", "days"),
        rates.0,
        rates.1,
        touching(scope),
    )
}

/// A lesson's effect line while too few pull requests touched its paths before or since it was
/// written down (`needed`: `domain::effect::MIN_PULL_REQUESTS`): the raises, and why they say
/// nothing yet.
pub fn lesson_effect_too_early(
    (before, since): (&Window, &Window),
    needed: u64,
    scope: &str,
) -> String {
    format!(
        "Raised in {} in the {} before it was written down, {} in the {} since; too early to \
         tell whether that is a change: {} {} since and {} before, {needed} needed in each.",
        count(before.raised as usize, "pull request", "pull requests"),
        count(before.days as usize, "day", "days"),
        since.raised,
        count(since.days as usize, "day", "days"),
        count(
            since.pull_requests as usize,
            "pull request",
            "pull requests"
        ),
        touching(scope),
        before.pull_requests,
    )
}

/// `touching `src/store/`` or, for a lesson about no path, `reviewed`.
fn touching(scope: &str) -> String {
    if scope.is_empty() {
        "reviewed".to_string()
    } else {
        format!("touching {scope}")
    }
}

/// The repository's summary of the lessons' effect on its web page (behaviour §3.4).
pub fn effect_summary(summary: &EffectSummary) -> String {
    let rate = |w: &Window| w.per_hundred().unwrap_or(0.0);
    let measured = if summary.lessons == 0 {
        "No lesson has been published long enough to tell whether reviewers stop raising it"
            .to_string()
    } else {
        let verdict = match summary.relative.verdict {
            Verdict::Fewer => {
                "the lessons are raised less, beyond the change in the unpublished themes"
            }
            Verdict::More => {
                "the lessons are raised more, beyond the change in the unpublished themes"
            }
            Verdict::NoEffect | Verdict::TooEarly => {
                "no effect shown beyond the change in the unpublished themes"
            }
        };
        format!(
            "{} measured: {:.1} → {:.1} raises per 100 pull requests touching their paths; the \
             unpublished recurring themes {:.1} → {:.1} per 100 reviewed pull requests; {verdict}{}",
            count(summary.lessons, "lesson", "lessons"),
            rate(&summary.before),
            rate(&summary.since),
            rate(&summary.control_before),
            rate(&summary.control_since),
            ratio_text(
                summary.relative.estimate,
                summary.relative.low,
                summary.relative.high
            ),
        )
    };
    let early = match summary.too_early {
        0 => String::new(),
        n => format!(" ({} too early to tell)", count(n, "lesson", "lessons")),
    };
    format!("{measured}{early}.")
}

/// The hold-back's comparison on the web page: lessons shown against lessons held back.
pub fn holdback_summary(comparison: &HoldBackComparison) -> String {
    let rate = |w: &Window| w.per_hundred().unwrap_or(0.0);
    let verdict = match comparison.ratio.verdict {
        Verdict::TooEarly => "too early to tell",
        Verdict::Fewer => "published lessons are raised less",
        Verdict::More => "published lessons are raised more",
        Verdict::NoEffect => "no effect shown",
    };
    format!(
        "Hold-back: in their first weeks, lessons published at once were raised {:.1} times per \
         100 pull requests touching their paths, lessons held back {:.1}; {verdict}{}.",
        rate(&comparison.published),
        rate(&comparison.held_back),
        ratio_text(
            comparison.ratio.estimate,
            comparison.ratio.low,
            comparison.ratio.high
        ),
    )
}

/// ` (ratio 0.62, 90 % interval 0.41–0.93)`, or nothing without an estimate.
fn ratio_text(estimate: Option<f64>, low: f64, high: Option<f64>) -> String {
    let Some(estimate) = estimate else {
        return String::new();
    };
    let high = high.map_or("∞".to_string(), |high| format!("{high:.2}"));
    format!(" (ratio {estimate:.2}, 90 % interval {low:.2}–{high})")
}

/// `1 finding`, `3 findings`.
pub fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_said_from_today() {
        // 2026-11-22 21:00 UTC.
        let now = 1_795_381_200;
        assert_eq!(first_seen(now - 3600, now), "first seen today");
        assert_eq!(day_said(now - 22 * 3600, now), "yesterday");
        assert_eq!(day_said(now - 19 * 86_400, now), "3 Nov 2026");
        assert_eq!(day(now), "22 Nov 2026");
    }

    #[test]
    fn refresh_button_fits_githubs_limits() {
        assert!(REFRESH_LABEL.chars().count() <= 20);
        assert!(REFRESH_DESCRIPTION.chars().count() <= 40);
    }

    #[test]
    fn a_window_of_zero_months_is_the_whole_history() {
        let counts = SummaryCounts {
            findings: 1,
            comments: 2,
            reviewers: 1,
            pull_requests: 2,
        };
        let line = |months, left_out| {
            let window = ReviewWindow {
                months,
                start: 86_400 * 365,
                left_out,
            };
            summary_line(counts, window, 0, None)
        };
        let whole = line(0, 0);
        assert!(
            whole.contains(" on 2 pull requests over the whole history."),
            "{whole}"
        );
        let month = line(1, 0);
        assert!(
            month.contains(" in the last 1 month (since 1971-01-01)."),
            "{month}"
        );
        let year = line(12, 37);
        assert!(
            year.contains(
                " in the last 12 months (since 1971-01-01; 37 older review comments left out)."
            ),
            "{year}"
        );
    }

    #[test]
    fn an_unknown_command_is_echoed_as_code() {
        assert_eq!(
            unknown_command("refesh @everyone"),
            format!(
                "I don't know `/gitlore refesh @everyone`.\n\n{}",
                help_text()
            )
        );
    }

    #[test]
    fn counts_agree_in_number() {
        assert_eq!(
            evidence_left_out(1),
            "1 more piece left out here for space."
        );
        assert_eq!(more_resolved(2), "…and 2 findings more.");
        assert_eq!(
            cooldown(0),
            "This repository was refreshed a moment ago; try again in 1 minute."
        );
    }
}
