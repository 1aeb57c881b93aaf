//! Publishes a repository's findings issue (behaviour §5.1): created once, found again by its marker
//! and label if the store lost track of it, edited only when the body changed, pinned when
//! GitHub allows it, recreated if someone deleted it.

use anyhow::Result;

use crate::domain::markers::FINDINGS_MARKER;
use crate::domain::{RepoId, UnixMs};
use crate::github::ops::issues::{IssueUpdate, NewIssue, PinOutcome};
use crate::github::repo::RepoClient;
use crate::render::wording;
use crate::repo_config::IssueSettings;
use crate::store::Store;
use crate::store::publications::{self, PublishedIssue};

/// What publishing did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IssueOutcome {
    /// The body was the same as last published: no request was made.
    Unchanged,
    /// The issue was edited in place.
    Edited(i64),
    /// A new issue was created (or found again by its marker).
    Created(i64),
}

/// Where and as whom an issue is published.
pub struct Target<'a> {
    pub github: &'a RepoClient<'a>,
    pub store: &'a Store,
    pub repo_id: RepoId,
    pub settings: &'a IssueSettings,
    pub now: UnixMs,
}

/// Publishes `body` as the findings issue. A body whose content is the one last published
/// (see [`same_content`]) makes no request; with `verify` (a `/gitlore refresh`) it is still
/// checked against GitHub with one read, so that a deleted issue is recreated.
pub async fn publish(target: &Target<'_>, body: &str, verify: bool) -> Result<IssueOutcome> {
    let known = publications::findings_issue(&target.store.reader()?, target.repo_id)?;
    let Some(known) = known else {
        return create(target, body).await;
    };
    if same_content(&known.body, body) {
        if !verify {
            return Ok(IssueOutcome::Unchanged);
        }
        match target.github.get_issue(known.number).await {
            Ok(issue) if issue.body.contains(FINDINGS_MARKER) => {
                return Ok(IssueOutcome::Unchanged);
            }
            Ok(_) => {} // the marker was edited out: the body is written again
            Err(error) if error.is_gone() => return recreate(target, &known, body).await,
            Err(error) => return Err(error.into()),
        }
    }
    let update = IssueUpdate {
        body: Some(body),
        ..IssueUpdate::default()
    };
    match target.github.update_issue(known.number, &update).await {
        Ok(_) => {
            let pinned = ensure_pinned(target, &known).await?;
            save(target, known.number, known.node_id.clone(), body, pinned)?;
            Ok(IssueOutcome::Edited(known.number))
        }
        Err(error) if error.is_gone() => recreate(target, &known, body).await,
        Err(error) => Err(error.into()),
    }
}

/// Forgets a deleted issue and creates it again.
async fn recreate(target: &Target<'_>, known: &PublishedIssue, body: &str) -> Result<IssueOutcome> {
    tracing::info!(repo = %target.github.name(), issue = known.number, "the findings issue is gone: recreating it");
    target
        .store
        .write_derived(|tx| publications::forget_findings_issue(tx, target.repo_id))?;
    create(target, body).await
}

/// Whether two bodies show the same thing. The update time in the summary line and the "new"
/// marks are left out: they describe the last change, so an analysis that found what the
/// issue already shows does not edit it.
pub fn same_content(published: &str, rendered: &str) -> bool {
    published == rendered || stable_part(published) == stable_part(rendered)
}

/// `body` without the summary line's update time and without the "new" marks.
fn stable_part(body: &str) -> String {
    let new_mark = format!(" · {}", wording::NEW_MARKER);
    let mut lines = body.lines();
    let mut stable = String::with_capacity(body.len());
    if let Some(marker) = lines.next() {
        stable.push_str(marker);
        stable.push('\n');
    }
    if let Some(summary) = lines.next() {
        stable.push_str(&without_window_start(&without_update_time(summary)));
        stable.push('\n');
    }
    for line in lines {
        stable.push_str(&line.replace(&new_mark, ""));
        stable.push('\n');
    }
    stable
}

/// The summary line without the date its window starts on, which moves with every day.
fn without_window_start(summary: &str) -> String {
    let Some(start) = summary.find(wording::WINDOW_SINCE) else {
        return summary.to_string();
    };
    let date = start + wording::WINDOW_SINCE.len();
    let end = summary[date..]
        .find([';', ')'])
        .map_or(summary.len(), |n| date + n);
    format!("{}{}", &summary[..date], &summary[end..])
}

/// The summary line without its `Updated … UTC` time.
fn without_update_time(summary: &str) -> String {
    let Some(start) = summary.rfind(wording::UPDATED_PREFIX) else {
        return summary.to_string();
    };
    let rest = &summary[start..];
    match rest.find(" UTC") {
        Some(end) => format!("{}{}", &summary[..start], &rest[end + " UTC".len()..]),
        None => summary.to_string(),
    }
}

/// Creates the issue, or finds it again by its marker, and pins it.
async fn create(target: &Target<'_>, body: &str) -> Result<IssueOutcome> {
    let new = NewIssue {
        title: &target.settings.title,
        body,
        label: &target.settings.label,
        marker: FINDINGS_MARKER,
    };
    let mut issue = target.github.create_issue_once(&new).await?;
    if !same_content(&issue.body, body) {
        // Found again by its marker with an older body.
        let update = IssueUpdate {
            body: Some(body),
            ..IssueUpdate::default()
        };
        issue = target.github.update_issue(issue.number, &update).await?;
    }
    let unpinned = PublishedIssue {
        number: issue.number,
        node_id: Some(issue.node_id.clone()),
        body: issue.body.clone(),
        pinned: false,
    };
    // Recorded before pinning, so that a failed pin never leads to a second issue.
    save(
        target,
        issue.number,
        unpinned.node_id.clone(),
        &issue.body,
        false,
    )?;
    let pinned = ensure_pinned(target, &unpinned).await?;
    save(target, issue.number, unpinned.node_id, &issue.body, pinned)?;
    Ok(IssueOutcome::Created(issue.number))
}

/// Pins the issue unless it is pinned already; a repository with 3 pins keeps it unpinned.
async fn ensure_pinned(target: &Target<'_>, issue: &PublishedIssue) -> Result<bool> {
    let Some(node_id) = issue.node_id.as_deref().filter(|_| !issue.pinned) else {
        return Ok(issue.pinned);
    };
    match target.github.pin_issue(node_id).await? {
        PinOutcome::Pinned => Ok(true),
        PinOutcome::LimitReached => {
            tracing::warn!(
                repo = %target.github.name(),
                issue = issue.number,
                "the repository already has 3 pinned issues: the findings issue stays unpinned"
            );
            Ok(false)
        }
    }
}

fn save(
    target: &Target<'_>,
    number: i64,
    node_id: Option<String>,
    body: &str,
    pinned: bool,
) -> Result<()> {
    let issue = PublishedIssue {
        number,
        node_id,
        body: body.to_string(),
        pinned,
    };
    target.store.write_derived(|tx| {
        publications::save_findings_issue(tx, target.repo_id, &issue, target.now)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str = "<!-- gitlore:findings -->\n\
        **2 findings** from 9 review comments by 3 reviewers on 4 pull requests in the last 12 \
        months (since 2025-11-22; 3 older review comments left out). Updated 2026-11-22 21:05 UTC at [`abc1234`](https://x/commit/abc1234).\n\n\
        ### Return errors instead of unwrapping\n\n\
        **high severity** · **new** · `src/a.rs`\n";

    #[test]
    fn the_update_time_and_new_marks_alone_are_no_change() {
        let later = BODY
            .replace("2026-11-22 21:05 UTC", "2026-11-23 09:00 UTC")
            .replace("since 2025-11-22", "since 2025-11-23")
            .replace(" · **new**", "");
        assert!(same_content(BODY, &later));
    }

    #[test]
    fn anything_else_is_a_change() {
        for changed in [
            BODY.replace("9 review comments", "10 review comments"),
            BODY.replace("3 older", "4 older"),
            BODY.replace("abc1234", "def5678"),
            BODY.replace("`src/a.rs`", "`src/b.rs`"),
            BODY.replace("unwrapping", "panicking"),
        ] {
            assert!(!same_content(BODY, &changed), "{changed}");
        }
    }
}
