//! Applies a parsed event to the store: the effects of behaviour §1's table. Runs inside the worker's
//! write transaction, so a delivery's effects and its "done" mark commit together; the effects are
//! also idempotent on their own (upserts keyed by GitHub ids, deduplicated jobs), so applying a
//! delivery twice changes nothing.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use crate::store::Connection;
use anyhow::Result;

use crate::commands;
use crate::domain::classification::BUILTIN_NAME;
use crate::domain::job::{
    Backfill, CheckRun, Command, CommandJob, CommandSource, Dismissals, Job, Occasion,
};
use crate::domain::markers::{FINDINGS_MARKER, REFRESH_ACTION};
use crate::domain::{
    Author, Comment, CommentKind, InstallationId, PullRequest, Repo, RepoId, UnixMs, body_hash,
    is_pr_author,
};
use crate::events::{Event, Installation, InstallationChange, Origin};
use crate::knowledge::classify::{self, CommentText};
use crate::knowledge::filter::{self, NoiseRules};
use crate::store::comments::{self, Upserted};
use crate::store::deliveries;
use crate::store::jobs;
use crate::store::repos::{self, RepoStatus};

/// What applying an event did, in a few words for the delivery's `outcome` column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applied {
    Done(String),
    Ignored(String),
}

/// Applies `event` (from delivery `delivery_id`) to the store.
pub fn apply(
    conn: &Connection,
    rules: &NoiseRules,
    event: &Event,
    delivery_id: &str,
    now: UnixMs,
) -> Result<Applied> {
    apply_with_memo(conn, rules, event, delivery_id, now, &mut Memo::default())
}

/// [`apply`] for one of several deliveries applied in the same transaction: `memo` remembers
/// what this transaction already wrote, so that a batch about one repository and pull request
/// registers them once. A memo is valid for one transaction only (a rollback voids it).
pub fn apply_with_memo(
    conn: &Connection,
    rules: &NoiseRules,
    event: &Event,
    delivery_id: &str,
    now: UnixMs,
    memo: &mut Memo,
) -> Result<Applied> {
    if matches!(
        event,
        Event::Installation { .. } | Event::ReposAdded { .. } | Event::ReposRemoved { .. }
    ) {
        memo.clear(); // registrations and tombstones change
    }
    let ingest = Ingest {
        conn,
        rules,
        delivery_id,
        now,
        memo: RefCell::new(memo),
        run_commands: true,
    };
    ingest.apply(event)
}

/// Applies an event the backfill read from GitHub (a comment or a thread's resolution): the same
/// effects as the webhook of the same change, except that `/gitlore` commands found in old
/// comments are never queued.
pub fn apply_backfilled(
    conn: &Connection,
    rules: &NoiseRules,
    event: &Event,
    now: UnixMs,
    memo: &mut Memo,
) -> Result<Applied> {
    let ingest = Ingest {
        conn,
        rules,
        delivery_id: "backfill",
        now,
        memo: RefCell::new(memo),
        run_commands: false,
    };
    ingest.apply(event)
}

/// What one transaction already wrote or checked; see [`apply_with_memo`].
#[derive(Debug, Default)]
pub struct Memo {
    /// Why events of (installation, repository id) are ignored, or `None` when they are not.
    skips: HashMap<(Option<InstallationId>, RepoId), Option<String>>,
    /// Repositories registered as seen (with their installation).
    origins: HashSet<(Option<InstallationId>, Repo)>,
    /// Pull-request snapshots stored, by repository id.
    pull_requests: HashSet<(RepoId, PullRequest)>,
}

impl Memo {
    fn clear(&mut self) {
        self.skips.clear();
        self.origins.clear();
        self.pull_requests.clear();
    }
}

struct Ingest<'a, 'm> {
    conn: &'a Connection<'a>,
    rules: &'a NoiseRules,
    delivery_id: &'a str,
    now: UnixMs,
    memo: RefCell<&'m mut Memo>,
    /// Whether `/gitlore` commands in conversation comments are queued (not for the backfill).
    run_commands: bool,
}

impl Ingest<'_, '_> {
    fn apply(&self, event: &Event) -> Result<Applied> {
        if let Some(reason) = self.skip_reason(event)? {
            return Ok(Applied::Ignored(reason));
        }
        match event {
            Event::Ping => Ok(done("ping")),
            Event::Ignored(reason) => Ok(Applied::Ignored(reason.clone())),
            Event::Installation {
                installation,
                change,
                repos,
            } => self.installation(installation, *change, repos),
            Event::ReposAdded {
                installation,
                repos,
            } => {
                self.register(installation, repos, Occasion::Once)?;
                Ok(done(&format!("{} repositories added", repos.len())))
            }
            Event::ReposRemoved { repos, .. } => {
                for repo in repos {
                    repos::remove_repo(self.conn, repo.id)?;
                }
                Ok(done(&format!("{} repositories removed", repos.len())))
            }
            Event::CommentUpserted {
                origin,
                pr,
                comment,
                is_edit,
                previous_body,
            } => self.upsert_comment(origin, pr, comment, *is_edit, previous_body.as_deref()),
            Event::CommentDeleted {
                origin,
                pr,
                comment,
            } => {
                self.register_origin(origin)?;
                self.store_pull_request(origin.repo.id, pr)?;
                comments::tombstone(self.conn, origin.repo.id, pr.number, comment)?;
                Ok(done("comment deleted"))
            }
            Event::ThreadResolution {
                origin,
                pr,
                root_id,
                node_id,
                resolved,
            } => {
                self.register_origin(origin)?;
                self.store_pull_request(origin.repo.id, pr)?;
                comments::set_thread_resolution(
                    self.conn,
                    origin.repo.id,
                    *root_id,
                    node_id.as_deref(),
                    *resolved,
                )?;
                Ok(done(if *resolved {
                    "thread resolved"
                } else {
                    "thread unresolved"
                }))
            }
            Event::PullRequestChanged {
                origin,
                pr,
                wants_check_run,
            } => self.pull_request(origin, pr, *wants_check_run),
            Event::IssueEdited {
                origin,
                issue_number,
                body,
                editor,
            } => self.issue_edited(origin, *issue_number, body, editor),
            Event::CheckRunAction {
                origin,
                check_run_id,
                app_id,
                head_sha,
                pr_numbers,
                identifier,
                requester,
            } => {
                let ours = self.rules.app_id.is_some() && *app_id == self.rules.app_id;
                if !ours || identifier != REFRESH_ACTION {
                    return Ok(Applied::Ignored(
                        "requested action of another app's check run".into(),
                    ));
                }
                self.register_origin(origin)?;
                let job = Job::Command(CommandJob {
                    command: Command::Refresh,
                    author: requester.clone(),
                    source: CommandSource::CheckRun {
                        check_run_id: *check_run_id,
                        head_sha: head_sha.clone(),
                        prs: pr_numbers.clone(),
                    },
                });
                self.enqueue(origin.repo.id, &job, Occasion::Delivery(self.delivery_id))?;
                Ok(done("refresh requested from the check run"))
            }
            Event::Push { origin, git_ref } => {
                self.register_origin(origin)?;
                let default = repos::default_branch(self.conn, origin.repo.id)?;
                if default.is_some_and(|branch| *git_ref == format!("refs/heads/{branch}")) {
                    repos::record_default_branch_push(self.conn, origin.repo.id, self.now)?;
                    Ok(done(
                        "default branch pushed: mirror stale, a change to analyse",
                    ))
                } else {
                    Ok(Applied::Ignored(format!("push to {git_ref}")))
                }
            }
        }
    }

    /// Events for an uninstalled installation or a removed repository are ignored, except the
    /// ones that install or add them again.
    fn skip_reason(&self, event: &Event) -> Result<Option<String>> {
        let origin = match event {
            Event::CommentUpserted { origin, .. }
            | Event::CommentDeleted { origin, .. }
            | Event::ThreadResolution { origin, .. }
            | Event::PullRequestChanged { origin, .. }
            | Event::IssueEdited { origin, .. }
            | Event::CheckRunAction { origin, .. }
            | Event::Push { origin, .. } => origin,
            _ => return Ok(None),
        };
        let key = (origin.installation_id, origin.repo.id);
        if let Some(known) = self.memo.borrow().skips.get(&key) {
            return Ok(known.clone());
        }
        let (uninstalled, status) =
            repos::origin_status(self.conn, origin.installation_id, origin.repo.id)?;
        let reason = if uninstalled {
            Some("its installation was uninstalled".to_string())
        } else if status == RepoStatus::Removed {
            Some(format!("{} was removed from gitlore", origin.repo.name))
        } else {
            None
        };
        self.memo.borrow_mut().skips.insert(key, reason.clone());
        Ok(reason)
    }

    fn installation(
        &self,
        installation: &Installation,
        change: InstallationChange,
        repos: &[Repo],
    ) -> Result<Applied> {
        match change {
            InstallationChange::Deleted => {
                let removed = repos::delete_installation(self.conn, installation.id)?;
                // The raw bodies it sent hold comment text: they go too.
                let bodies = deliveries::delete_installation_bodies(self.conn, installation.id)?;
                Ok(done(&format!(
                    "installation deleted with {removed} repositories and {bodies} delivery bodies"
                )))
            }
            InstallationChange::Suspended => {
                repos::upsert_installation(self.conn, installation, true)?;
                Ok(done("installation suspended"))
            }
            InstallationChange::Registered => {
                self.register(installation, repos, Occasion::Once)?;
                Ok(done(&format!(
                    "installation registered with {} repositories",
                    repos.len()
                )))
            }
            InstallationChange::Unsuspended => {
                // A fresh backfill catches up on what happened while suspended.
                self.register(installation, repos, Occasion::Delivery(self.delivery_id))?;
                Ok(done(&format!(
                    "installation registered with {} repositories",
                    repos.len()
                )))
            }
        }
    }

    /// Registers an installation's repositories and queues their backfill. A repository is
    /// backfilled once (its removal clears that), or again for each distinct `occasion`.
    fn register(
        &self,
        installation: &Installation,
        repos: &[Repo],
        occasion: Occasion<'_>,
    ) -> Result<()> {
        repos::upsert_installation(self.conn, installation, false)?;
        for repo in repos {
            repos::upsert_repo(self.conn, repo, Some(installation.id), true)?;
            let job = Job::Backfill(Backfill {
                repo: repo.name.as_str().to_string(),
            });
            self.enqueue(repo.id, &job, occasion)?;
        }
        Ok(())
    }

    fn register_origin(&self, origin: &Origin) -> Result<()> {
        let key = (origin.installation_id, origin.repo.clone());
        if self.memo.borrow().origins.contains(&key) {
            return Ok(());
        }
        repos::upsert_repo(self.conn, &origin.repo, origin.installation_id, false)?;
        self.memo.borrow_mut().origins.insert(key);
        Ok(())
    }

    /// Stores a pull request snapshot, once per transaction.
    fn store_pull_request(&self, repo_id: RepoId, pr: &PullRequest) -> Result<()> {
        let key = (repo_id, pr.clone());
        if self.memo.borrow().pull_requests.contains(&key) {
            return Ok(());
        }
        repos::upsert_pull_request(self.conn, repo_id, pr)?;
        self.memo.borrow_mut().pull_requests.insert(key);
        Ok(())
    }

    fn upsert_comment(
        &self,
        origin: &Origin,
        pr: &PullRequest,
        comment: &Comment,
        is_edit: bool,
        previous_body: Option<&str>,
    ) -> Result<Applied> {
        self.register_origin(origin)?;
        self.store_pull_request(origin.repo.id, pr)?;
        if comment.kind == CommentKind::Review
            && comment.body.trim().is_empty()
            && !comments::exists(self.conn, comment.kind, comment.github_id)?
        {
            return Ok(Applied::Ignored("review without a body".into()));
        }
        let hash = body_hash(&comment.body);
        let text = filter::analysable_text(&comment.body);
        let by_pr_author = is_pr_author(&comment.author.login, pr.author.as_deref());
        let reading = classify::builtin::read(&CommentText {
            body: &text,
            path: comment.path.as_deref(),
            diff_hunk: comment.diff_hunk.as_deref(),
        });
        let noise = self
            .rules
            .classify(&comment.author, &text, by_pr_author, reading.content_free);
        let stored = comments::Version {
            body_hash: &hash,
            noise: noise.map(filter::Noise::as_str),
            wins_tie: is_edit,
        };
        let upserted = comments::upsert(self.conn, origin.repo.id, pr.number, comment, &stored)?;
        let (id, outcome) = match upserted {
            Upserted::Inserted { id } => (id, "comment stored"),
            Upserted::Updated {
                id,
                body_changed: true,
            } => (id, "comment updated"),
            Upserted::Updated { .. } => return Ok(done("comment updated, same body")),
            Upserted::Stale => return Ok(Applied::Ignored("older than the stored version".into())),
            Upserted::Tombstoned => return Ok(Applied::Ignored("comment was deleted".into())),
        };
        let labels = serde_json::to_string(&reading.labels)?;
        let key = classification_key(self.rules, &hash);
        comments::set_classification(self.conn, id, BUILTIN_NAME, &key, &labels)?;
        if self.run_commands
            && comment.kind == CommentKind::Conversation
            && noise.is_none_or(|n| n == filter::Noise::Trivial)
        {
            self.record_commands(origin, pr, comment, previous_body)?;
        }
        Ok(done(outcome))
    }

    /// Queues the `/gitlore` commands of a conversation comment: all of them for a new comment,
    /// only the ones an edit added otherwise.
    fn record_commands(
        &self,
        origin: &Origin,
        pr: &PullRequest,
        comment: &Comment,
        previous_body: Option<&str>,
    ) -> Result<()> {
        let found = match previous_body {
            Some(before) => commands::newly_added(before, &comment.body),
            None => commands::parse(&comment.body),
        };
        for command in found {
            let job = Job::Command(CommandJob {
                command,
                author: comment.author.login.clone(),
                source: CommandSource::Comment {
                    comment_id: comment.github_id,
                    pr: pr.number,
                },
            });
            self.enqueue(origin.repo.id, &job, Occasion::Once)?;
        }
        Ok(())
    }

    fn pull_request(
        &self,
        origin: &Origin,
        pr: &PullRequest,
        wants_check_run: bool,
    ) -> Result<Applied> {
        self.register_origin(origin)?;
        self.store_pull_request(origin.repo.id, pr)?;
        let Some(sha) = pr.head_sha.as_deref().filter(|_| wants_check_run) else {
            return Ok(done("pull request state stored"));
        };
        let job = Job::CheckRun(CheckRun {
            pr: pr.number,
            head_sha: sha.to_string(),
        });
        self.enqueue(origin.repo.id, &job, Occasion::Once)?;
        Ok(done("pull request stored, check run queued"))
    }

    fn issue_edited(
        &self,
        origin: &Origin,
        number: i64,
        body: &str,
        editor: &str,
    ) -> Result<Applied> {
        if !body.contains(FINDINGS_MARKER) {
            return Ok(Applied::Ignored(
                "edit of an issue that is not gitlore's".into(),
            ));
        }
        self.register_origin(origin)?;
        let job = Job::Dismissals(Dismissals {
            issue: number,
            body: body.to_string(),
            editor: editor.to_string(),
        });
        self.enqueue(origin.repo.id, &job, Occasion::Delivery(self.delivery_id))?;
        Ok(done("findings issue edited: dismissals queued"))
    }

    fn enqueue(&self, repo_id: RepoId, job: &Job, occasion: Occasion<'_>) -> Result<bool> {
        jobs::enqueue(self.conn, repo_id, job, occasion, self.now)
    }
}

fn done(what: &str) -> Applied {
    Applied::Done(what.to_string())
}

/// Reclassifies (noise and labels) the comments of `repo_id` that the current built-in classifier
/// has not read yet: after an upgrade, once each. Returns how many it read.
pub fn refresh_classifications(
    conn: &Connection,
    repo_id: RepoId,
    rules: &NoiseRules,
) -> Result<usize> {
    let stale = comments::unclassified(conn, repo_id, BUILTIN_NAME, &reading_version(rules))?;
    for comment in &stale {
        let text = filter::analysable_text(&comment.body);
        let by_pr_author = is_pr_author(&comment.author_login, comment.pr_author.as_deref());
        let reading = classify::builtin::read(&CommentText {
            body: &text,
            path: comment.path.as_deref(),
            diff_hunk: comment.diff_hunk.as_deref(),
        });
        let author = Author {
            login: comment.author_login.clone(),
            is_bot_account: comment.author_is_bot,
            ..Author::default()
        };
        let noise = rules.classify(&author, &text, by_pr_author, reading.content_free);
        comments::set_noise(conn, comment.id, noise.map(filter::Noise::as_str))?;
        let labels = serde_json::to_string(&reading.labels)?;
        let key = classification_key(rules, &comment.body_hash);
        comments::set_classification(conn, comment.id, BUILTIN_NAME, &key, &labels)?;
    }
    Ok(stale.len())
}

/// The version of what a stored classification holds: the built-in classifier's (labels and
/// the noise model) and the noise filter's `rules`.
fn reading_version(rules: &NoiseRules) -> String {
    format!("{}-{}", classify::builtin::version(), rules.revision())
}

/// The stored key of a built-in classification by `rules`: [`reading_version`] and the body's
/// hash.
pub fn classification_key(rules: &NoiseRules, body_hash: &str) -> String {
    format!("{}:{body_hash}", reading_version(rules))
}
