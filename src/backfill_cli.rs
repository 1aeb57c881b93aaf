//! `gitlore backfill --repo owner/name [--window-months N] [--force]`: finds the App's
//! installation on the repository, backfills it into the store of the data dir, prints a line per
//! committed page to stderr and a summary line to stdout.

use std::sync::Arc;

use anyhow::{Context, Result};

use crate::app;
use crate::clock::{Clock, SystemClock};
use crate::config::{ConfigError, Settings};
use crate::domain::RepoName;
use crate::github::auth::AppKey;
use crate::github::backfill::{BackfillRequest, Backfiller, Progress};
use crate::github::client::{As, GitHub, TokioPause};
use crate::store::Store;

/// The window a backfill reads when none is given, in months.
pub const DEFAULT_WINDOW_MONTHS: u32 = 12;

/// Runs the command.
pub fn run(settings: &Settings, repo: &str, window_months: u32, force: bool) -> Result<()> {
    let repo = RepoName::parse(repo)
        .with_context(|| format!("`{repo}` is not a repository name: use owner/name"))?;
    let app_id = settings.app_id.ok_or(ConfigError::Missing {
        name: "GITLORE_APP_ID",
        hint: "or APP_ID, or app_id in gitlore.toml",
    })?;
    let private_key = settings.private_key.as_ref().ok_or(ConfigError::Missing {
        name: "GITLORE_PRIVATE_KEY",
        hint: "the PEM text, or a file path in GITLORE_PRIVATE_KEY_PATH",
    })?;
    let key = AppKey::new(app_id, private_key)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("Cannot start the async runtime")?;
    // The HTTP client is built inside the runtime: it starts tasks of its own.
    let _runtime = runtime.enter();
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let client = Arc::new(GitHub::new(
        &settings.github_api_url,
        key,
        clock.clone(),
        Arc::new(TokioPause),
    )?);
    let store = Arc::new(Store::open_database(&settings.database())?);
    let backfiller = Backfiller {
        client: client.clone(),
        store,
        rules: Arc::new(app::noise_rules(settings)),
        clock,
    };
    runtime.block_on(async {
        let installation = client
            .repo_installation(&repo)
            .await?
            .with_context(|| format!("The App is not installed on {repo}: install it there first"))?;
        let request = BackfillRequest {
            repo: repo.clone(),
            who: As::Installation(installation),
            window_months,
            force,
        };
        let summary = backfiller
            .run(&request, |progress| eprintln!("{repo}: {}", describe(progress)))
            .await?;
        if summary.already_done {
            println!(
                "{repo} was backfilled before ({} pull requests, {} comments); pass --force to read it again",
                summary.progress.prs_done, summary.progress.comments_written
            );
        } else {
            println!("{repo} backfilled: {}", describe(&summary.progress));
        }
        Ok(())
    })
}

/// `120 pull requests, 4521 comments, 9 GraphQL requests, 4890 points left`.
fn describe(progress: &Progress) -> String {
    let mut line = format!(
        "{} pull requests, {} comments, {} GraphQL requests",
        progress.prs_done, progress.comments_written, progress.requests
    );
    if let Some(remaining) = progress.rate_limit_remaining {
        line.push_str(&format!(", {remaining} rate-limit points left"));
    }
    line
}
