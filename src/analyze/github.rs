//! `gitlore analyze --github owner/name`: the repository's review comments read from GitHub
//! with a personal token (`GITHUB_TOKEN`) through the backfill, the webhooks' own ingest path.

use std::sync::Arc;

use anyhow::{Context, Result, bail};

use crate::app;
use crate::clock::{Clock, SystemClock};
use crate::config::Settings;
use crate::domain::Secret;
use crate::domain::{RepoId, RepoName};
use crate::github::backfill::{BackfillRequest, Backfiller};
use crate::github::client::{As, GitHub, TokioPause};
use crate::store::Store;
use crate::store::backfills;

/// The environment variable holding the token.
pub const TOKEN_VAR: &str = "GITHUB_TOKEN";

/// Months a backfill reads for "everything" (`--window-months 0`): a century.
const ALL_MONTHS: u32 = 1_200;
/// Seconds in an average month.
const MONTH_SECS: i64 = 2_629_746;

/// The token of `GITHUB_TOKEN`; an error saying what to do when it is missing.
pub fn token_from_env() -> Result<Secret> {
    match std::env::var(TOKEN_VAR) {
        Ok(token) if !token.trim().is_empty() => Ok(Secret::new(token.trim())),
        _ => bail!(
            "--github needs {TOKEN_VAR}: set it to a token that can read the repository's pull requests"
        ),
    }
}

/// How many months back from today the backfill reads so that the analysis window (`months`
/// ending at the newest commit, when older than today) is covered; 0 months is everything.
pub fn backfill_months(months: u32, newest_commit_at: Option<i64>, now: i64) -> u32 {
    if months == 0 {
        return ALL_MONTHS;
    }
    let behind = newest_commit_at.map_or(0, |at| (now - at).max(0));
    let behind_months = u32::try_from((behind + MONTH_SECS - 1) / MONTH_SECS).unwrap_or(ALL_MONTHS);
    months.saturating_add(behind_months).min(ALL_MONTHS)
}

/// Reads the merged and closed pull requests of `repo` updated in the last `months` into `store` and
/// returns the repository's id there. Progress goes to stderr, one line per page.
pub async fn backfill(
    settings: &Settings,
    store: Arc<Store>,
    repo: &RepoName,
    token: Secret,
    months: u32,
) -> Result<RepoId> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let client = GitHub::with_token(
        &settings.github_api_url,
        token,
        clock.clone(),
        Arc::new(TokioPause),
    )?;
    let backfiller = Backfiller {
        client: Arc::new(client),
        store: store.clone(),
        rules: Arc::new(app::noise_rules(settings)),
        clock,
    };
    let request = BackfillRequest {
        repo: repo.clone(),
        who: As::Token,
        window_months: months,
        // A store kept with --data-dir is brought up to date; the rows are idempotent upserts.
        force: true,
    };
    let summary = backfiller
        .run(&request, |progress| {
            eprintln!(
                "analyze: read {} pull requests and {} comments of {repo} from GitHub",
                progress.prs_done, progress.comments_written
            );
        })
        .await?;
    eprintln!(
        "analyze: {} pull requests and {} comments of {repo} read in {} GraphQL requests",
        summary.progress.prs_done, summary.progress.comments_written, summary.progress.requests
    );
    let state = backfills::find_by_name(&store.reader()?, repo.as_str())?
        .with_context(|| format!("The backfill of {repo} left no state in the store"))?;
    Ok(state.repo_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backfill_reaches_back_to_the_window_of_an_old_history() {
        let now = 1_800_000_000;
        assert_eq!(backfill_months(12, Some(now), now), 12);
        assert_eq!(backfill_months(12, None, now), 12);
        // Newest commit three and a bit months ago: four more months.
        assert_eq!(
            backfill_months(12, Some(now - 3 * MONTH_SECS - 10), now),
            16
        );
        assert_eq!(backfill_months(0, Some(now), now), ALL_MONTHS);
        assert_eq!(backfill_months(u32::MAX, Some(now), now), ALL_MONTHS);
    }
}
