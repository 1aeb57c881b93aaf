//! The story harness (after rust-lang/bors's test suite): the real router, ingress, worker,
//! job runner and scheduler of [`TestApp`] on one manual clock with a [`FakeGitHub`] over HTTP.
//! A person's action on github.com ("open a pull request", "comment `/gitlore refresh`") changes
//! the fake's state and delivers the signed webhook the fake builds from it; what gitlore did
//! is read back from the fake (issues, check runs, replies, reactions) and from the store's own
//! functions. Declared next to `mod common; mod fake_github;` with
//! `#[path = "common/story.rs"] mod story;` (it needs both).
#![allow(dead_code)] // each test file uses a different part of the harness

use std::sync::Arc;
use std::time::Duration;

use crate::common::corpus::{THEMES, UNRELATED};
use crate::common::pause::NoPause;
use crate::common::{APP_ID, START_MS, TestApp};
use crate::fake_github::webhooks::Webhook;
use crate::fake_github::{self, FakeGitHub, Fault, Role, Target};
use gitlore::clock::Clock;
use gitlore::domain::findings::Finding;
use gitlore::domain::markers;
use gitlore::domain::{RepoId, Secret};
use gitlore::github::auth::AppKey;
use gitlore::github::client::GitHub;
use gitlore::knowledge::filter::NoiseRules;
use gitlore::publish::link_style;
use gitlore::runner::{HistorySource, Models, Runner, RunnerSettings};
use gitlore::scheduler;
use gitlore::store::{findings, jobs, publications};

pub const REPO: &str = "acme/widgets";
pub const INSTALLATION: i64 = 7;
pub const MINUTE_MS: i64 = 60_000;
pub const HOUR_MS: i64 = 60 * MINUTE_MS;

/// The files each theme of the corpus is reviewed on (two per theme).
pub const PATHS: [[&str; 2]; 5] = [
    ["src/server/webhook.rs", "src/server/signature.rs"],
    ["tests/worker.rs", "tests/ingest.rs"],
    ["src/store/comments.rs", "src/store/jobs.rs"],
    ["src/knowledge/filter.rs", "src/knowledge/cluster.rs"],
    ["src/lib.rs", "src/config.rs"],
];

/// A runner for the app that publishes to the fake through `github`.
pub fn runner(
    app: &TestApp,
    gh: &FakeGitHub,
    github: &Arc<GitHub>,
    settings: RunnerSettings,
) -> Runner {
    runner_with_models(app, gh, github, settings, Models::default())
}

/// [`runner`] with an LLM or an embedder.
pub fn runner_with_models(
    app: &TestApp,
    gh: &FakeGitHub,
    github: &Arc<GitHub>,
    settings: RunnerSettings,
    models: Models,
) -> Runner {
    Runner::new(
        app.store.clone(),
        github.clone(),
        app.clock.clone() as Arc<dyn Clock>,
        Arc::new(NoiseRules::new(Some(APP_ID), Some("gitlore"), &[])),
        link_style(&gh.base_url(), None),
        models,
        settings,
    )
}

/// A check run as the fake holds it.
#[derive(Debug, Clone)]
pub struct CheckRunSeen {
    pub title: String,
    pub summary: String,
    pub conclusion: String,
    pub annotations: Vec<serde_json::Value>,
    pub details_url: Option<String>,
}

/// The findings issue as the fake holds it.
#[derive(Debug, Clone)]
pub struct IssueSeen {
    pub number: u64,
    pub body: String,
    pub pinned: bool,
}

/// The app, the fake GitHub, and the runner, on one clock.
pub struct Story {
    pub app: TestApp,
    pub gh: FakeGitHub,
    pub github: Arc<GitHub>,
    pub runner: Runner,
    pub repo_id: i64,
}

/// Seeds `gh` as [`Story::reviewed`] finds it, the reviews starting at `reviewed_at_ms`: the App,
/// `acme/widgets` installed and reviewed (the corpus's five themes), maria a writer, rita a reader.
pub fn seed_reviews(gh: &FakeGitHub, reviewed_at_ms: i64, closed: bool) {
    gh.with_test_app(APP_ID, "gitlore");
    gh.set_now_ms(reviewed_at_ms);
    gh.seed(|m| {
        m.add_installation(INSTALLATION, "acme", &[REPO]);
        m.set_role(REPO, "maria", Role::Write);
        m.set_role(REPO, "rita", Role::Read);
        for (t, bodies) in THEMES.iter().enumerate() {
            for pair in 0..4 {
                let pull = m.add_merged_pull(REPO, &format!("Theme {t}, part {pair}"), "erin");
                if closed && pair % 2 == 1 {
                    (pull.merged, pull.merged_at_ms) = (false, None);
                }
                let number = pull.number;
                for i in [2 * pair, 2 * pair + 1] {
                    let login = if t == 4 {
                        "dana"
                    } else {
                        ["alice", "bob", "carol"][(t + i) % 3]
                    };
                    let path = PATHS[t][usize::from(i % 3 == 2)];
                    m.add_thread(REPO, number, path, 10 + i as u64, login, bodies[i]);
                }
                m.now_ms += HOUR_MS;
            }
        }
        let number = m.add_merged_pull(REPO, "Housekeeping", "erin").number;
        for (i, body) in UNRELATED.iter().enumerate() {
            m.add_thread(REPO, number, "README.md", 1 + i as u64, "erin", body);
        }
    });
}

impl Story {
    /// A fake GitHub with `acme/widgets` installed and reviewed: 20 merged pull requests whose
    /// review threads carry the corpus's five themes (two reviewers or more, two PRs or more
    /// each), one more with unrelated remarks; maria may write, rita may only read.
    pub async fn new() -> Story {
        Story::reviewed(10 * 24 * HOUR_MS, false).await
    }

    /// [`Story::new`] with the reviews made `age_ms` before the start and, with `closed`, every
    /// other pull request closed without being merged.
    pub async fn reviewed(age_ms: i64, closed: bool) -> Story {
        let gh = FakeGitHub::start().await;
        seed_reviews(&gh, START_MS - age_ms, closed);
        gh.set_now_ms(START_MS);
        let repo_id = gh.inspect(|m| m.repo(REPO).id);
        let app = TestApp::new();
        let key = AppKey::new(APP_ID, &Secret::new(fake_github::test_private_key_pem())).unwrap();
        let clock = app.clock.clone() as Arc<dyn Clock>;
        let client = GitHub::new(&gh.base_url(), key, clock, Arc::new(NoPause)).unwrap();
        let github = Arc::new(client);
        let runner = runner(&app, &gh, &github, RunnerSettings::default());
        Story {
            app,
            gh,
            github,
            runner,
            repo_id,
        }
    }

    /// A story that starts after the installation: backfilled, analysed, issue published.
    pub async fn installed() -> Story {
        let story = Story::new().await;
        story.install().await;
        story
    }

    /// [`Story::new`] whose runner reads the git history from repositories under `remotes`.
    pub async fn with_history(remotes: &std::path::Path) -> Story {
        let mut story = Story::new().await;
        let history = HistorySource {
            data_dir: story.app.path().join("data"),
            remote_base: remotes.display().to_string(),
        };
        story.set_runner(RunnerSettings {
            history: Some(history),
            ..RunnerSettings::default()
        });
        story
    }

    /// Replaces the runner with one of these settings.
    pub fn set_runner(&mut self, settings: RunnerSettings) {
        self.runner = runner(&self.app, &self.gh, &self.github, settings);
    }

    /// Replaces the runner with one (of the default settings) that uses these models.
    pub fn set_models(&mut self, models: Models) {
        self.runner = runner_with_models(
            &self.app,
            &self.gh,
            &self.github,
            RunnerSettings::default(),
            models,
        );
    }

    /// GitHub installs the App on the repository; the backfill and the analysis run.
    pub async fn install(&self) {
        self.deliver_installation().await;
        let ran = self.run_jobs().await;
        assert_eq!(ran, 2, "the backfill, then the analysis");
    }

    /// Delivers the App's installation on the repository (which queues its backfill).
    pub async fn deliver_installation(&self) {
        let hook = self.gh.installation_event("created", INSTALLATION);
        self.deliver(hook).await;
    }

    /// Moves the app's clock and the fake's together.
    pub fn advance(&self, ms: i64) {
        let span = Duration::from_millis(ms as u64);
        self.app.clock.advance(span);
        self.gh.advance(span);
    }

    /// Delivers a webhook signed as GitHub signs it and lets the worker apply it.
    pub async fn deliver(&self, hook: Webhook) {
        let status = self.app.send(hook.event, &hook.payload).await;
        assert!(status.is_success(), "{} answered {status}", hook.event);
        self.app.drain();
    }

    pub async fn run_jobs(&self) -> usize {
        self.runner.drain().await.unwrap()
    }

    /// What the scheduler does each minute, then the runner once the jitter is over.
    pub async fn scheduled_run(&self) -> usize {
        let queued = scheduler::tick(&self.app.store, self.app.clock.now()).unwrap();
        self.advance(scheduler::MAX_JITTER.as_millis() as i64);
        self.run_jobs().await;
        queued
    }

    /// erin opens a pull request changing `files`; returns its number and head commit.
    pub async fn open_pull(&self, files: &[&str]) -> (i64, String) {
        let (number, sha, hook) = self.gh.act_open_pull(REPO, "erin", files);
        self.deliver(hook).await;
        (number as i64, sha)
    }

    /// [`Story::open_pull`], then the jobs run (its check run among them).
    pub async fn open_pull_checked(&self, files: &[&str]) -> (i64, String) {
        let opened = self.open_pull(files).await;
        self.run_jobs().await;
        opened
    }

    /// A new commit is pushed to pull request `pr`; returns the new head.
    pub async fn push_to_pull(&self, pr: i64) -> String {
        let (sha, hook) = self.gh.act_push_to_pull(REPO, pr as u64);
        self.deliver(hook).await;
        sha
    }

    /// erin pushes to the default branch.
    pub async fn push_default_branch(&self) {
        let hook = self.gh.push_event(REPO, "refs/heads/main");
        self.deliver(hook).await;
    }

    /// `login` starts a review thread on `path`/`line` of pull request `pr`; returns the
    /// comment's id.
    pub async fn review(&self, pr: i64, login: &str, path: &str, line: u64, body: &str) -> i64 {
        let (id, hook) = self
            .gh
            .act_review_comment(REPO, pr as u64, login, path, line, body);
        self.deliver(hook).await;
        id
    }

    /// `login` comments `body` on pull request `pr`; returns the comment's id.
    pub async fn comment(&self, pr: i64, login: &str, body: &str) -> i64 {
        let (id, hook) = self.gh.act_comment(REPO, pr as u64, login, body);
        self.deliver(hook).await;
        id
    }

    /// `login` replaces the body of issue `number` with `body`.
    pub async fn edit_issue(&self, number: u64, login: &str, body: &str) {
        let hook = self.gh.act_edit_issue(REPO, number, login, body);
        self.deliver(hook).await;
    }

    /// `login` presses the check run's refresh button on commit `sha`.
    pub async fn press_refresh_button(&self, sha: &str, login: &str) {
        let hook = self
            .gh
            .check_run_action_event(REPO, sha, markers::REFRESH_ACTION, login);
        self.deliver(hook).await;
    }

    /// 25 new review comments on the unwrap theme's file.
    pub async fn review_25_more(&self) {
        for i in 0..25 {
            let body = format!("{} (again, {i})", THEMES[0][i % 8]);
            let login = ["alice", "bob"][i % 2];
            self.review(1, login, PATHS[0][0], 100 + i as u64, &body)
                .await;
        }
    }

    /// An hour passes, then [`Story::review_25_more`].
    pub async fn review_25_more_an_hour_later(&self) {
        self.advance(HOUR_MS);
        self.review_25_more().await;
    }

    /// `login` ticks finding `id`'s dismiss box in the findings issue, and the jobs run.
    pub async fn tick_dismiss_box(&self, id: &str, login: &str) {
        let issue = self.issue();
        let unticked = format!("- [ ] Dismiss <!-- gitlore:dismiss {id} -->");
        let ticked = unticked.replace("[ ]", "[x]");
        assert!(issue.body.contains(&unticked), "the box is in the body");
        let body = issue.body.replace(&unticked, &ticked);
        self.edit_issue(issue.number, login, &body).await;
        self.run_jobs().await;
    }

    /// Someone deletes the findings issue on GitHub; returns its number.
    pub fn delete_issue_on_github(&self) -> u64 {
        let number = self.issue().number;
        self.gh.seed(|m| m.repo_mut(REPO).issues.remove(&number));
        number
    }

    /// The repository's `.github/gitlore.toml` on GitHub becomes `text`.
    pub fn set_repo_config(&self, text: &str) {
        self.gh.seed(|m| {
            let files = &mut m.repo_mut(REPO).files;
            files.insert(".github/gitlore.toml".into(), text.to_string());
        });
    }

    /// The repository's `.github/gitlore.toml` on GitHub becomes these bytes (not UTF-8 text).
    pub fn set_repo_config_bytes(&self, bytes: Vec<u8>) {
        self.gh.seed(|m| {
            let files = &mut m.repo_mut(REPO).binary_files;
            files.insert(".github/gitlore.toml".into(), bytes);
        });
    }

    /// The next `times` requests `method path` (relative to `/repos/acme/widgets`) fail with
    /// `status`.
    pub fn fail_requests(&self, method: &str, path: &str, status: u16, times: usize) {
        let target = Target::rest(method, &format!("/repos/{REPO}{path}"));
        self.gh.inject(target, Fault::ServerError(status), times);
    }

    /// `login` comments `/gitlore refresh` on pull request `pr` (a fresh one changing the
    /// unwrap theme's file when `None`) and the jobs run: returns (pr, sha, comment id).
    pub async fn refresh_by(&self, login: &str, pr: Option<(i64, String)>) -> (i64, String, i64) {
        let (pr, sha) = match pr {
            Some(known) => known,
            None => self.open_pull(&[PATHS[0][0]]).await,
        };
        self.run_jobs().await; // the pull request's own check run
        let id = self.comment(pr, login, "/gitlore refresh").await;
        self.run_jobs().await;
        (pr, sha, id)
    }

    /// The findings issues in the fake.
    pub fn issues(&self) -> Vec<IssueSeen> {
        self.gh.inspect(|m| {
            m.repo(REPO)
                .issues
                .values()
                .filter(|i| i.labels.iter().any(|l| l == markers::DEFAULT_ISSUE_LABEL))
                .map(|i| IssueSeen {
                    number: i.number,
                    body: i.body.clone().unwrap_or_default(),
                    pinned: i.pinned,
                })
                .collect()
        })
    }

    /// The one findings issue (asserting there is exactly one).
    pub fn issue(&self) -> IssueSeen {
        let issues = self.issues();
        assert_eq!(issues.len(), 1, "{issues:#?}");
        issues[0].clone()
    }

    /// The one findings issue's body.
    pub fn issue_body(&self) -> String {
        self.issue().body
    }

    /// The reactions on conversation comment `id`.
    pub fn reactions(&self, id: i64) -> Vec<String> {
        self.gh.inspect(|m| {
            m.repo(REPO)
                .issue_comments
                .iter()
                .find(|c| c.id == id)
                .map(|c| c.reactions.iter().map(|r| r.content.clone()).collect())
                .unwrap_or_default()
        })
    }

    /// The bot's replies on pull request `pr`.
    pub fn replies(&self, pr: i64) -> Vec<String> {
        self.gh.inspect(|m| {
            m.repo(REPO)
                .issue_comments
                .iter()
                .filter(|c| c.issue_number == pr as u64 && c.author.bot)
                .map(|c| c.body.clone())
                .collect()
        })
    }

    /// The text of the bot's one reply on `pr` to comment `to`: asserts it ends with the hidden
    /// marker naming `to`, and returns what is above the marker (for an inline snapshot).
    pub fn reply_to(&self, pr: i64, to: i64) -> String {
        let marker = format!("\n\n{}", markers::reply_marker(to));
        let replies: Vec<String> = self
            .replies(pr)
            .into_iter()
            .filter(|r| r.ends_with(&marker))
            .collect();
        assert_eq!(
            replies.len(),
            1,
            "one reply to {to}: {:#?}",
            self.replies(pr)
        );
        replies[0].trim_end_matches(&marker).to_string()
    }

    /// The check runs of `sha`.
    pub fn check_runs(&self, sha: &str) -> Vec<CheckRunSeen> {
        self.gh.inspect(|m| {
            m.repo(REPO)
                .check_runs
                .iter()
                .filter(|r| r.head_sha == sha)
                .map(|r| CheckRunSeen {
                    title: r.title.clone().unwrap_or_default(),
                    summary: r.summary.clone().unwrap_or_default(),
                    conclusion: r.conclusion.clone().unwrap_or_default(),
                    annotations: r.annotations.clone(),
                    details_url: r.details_url.clone(),
                })
                .collect()
        })
    }

    /// The one check run of `sha` (asserting there is exactly one).
    pub fn check_run(&self, sha: &str) -> CheckRunSeen {
        let runs = self.check_runs(sha);
        assert_eq!(runs.len(), 1, "one check run on {sha}: {runs:#?}");
        runs[0].clone()
    }

    /// Asserts the check run of `sha` is annotated, each place once.
    pub fn assert_annotated_once_each(&self, sha: &str) {
        let annotations = self.check_run(sha).annotations;
        assert!(
            !annotations.is_empty(),
            "past comments on the file are annotated"
        );
        let places: std::collections::HashSet<(String, u64)> = annotations
            .iter()
            .map(|a| (a["path"].to_string(), a["start_line"].as_u64().unwrap()))
            .collect();
        assert_eq!(
            places.len(),
            annotations.len(),
            "no place annotated twice: {annotations:#?}"
        );
    }

    /// Requests with `method` to exactly `path` (relative to `/repos/acme/widgets`).
    pub fn count_exact(&self, method: &str, path: &str) -> usize {
        let path = format!("/repos/{REPO}{path}");
        self.gh
            .requests()
            .iter()
            .filter(|r| r.method == method && r.path == path)
            .count()
    }

    /// Requests with `method` to paths starting with `path` (relative to `/repos/acme/widgets`).
    pub fn count_under(&self, method: &str, path: &str) -> usize {
        self.gh.count(method, &format!("/repos/{REPO}{path}"))
    }

    /// When the repository was last analysed (0 before its first analysis).
    pub fn last_analysis_at(&self) -> i64 {
        publications::activity(&self.app.db())
            .unwrap()
            .into_iter()
            .find(|a| a.repo_id == RepoId(self.repo_id))
            .and_then(|a| a.last_run_at)
            .map_or(0, |at| at.0)
    }

    pub fn active_findings(&self) -> Vec<Finding> {
        findings::load(&self.app.db(), RepoId(self.repo_id))
            .unwrap()
            .active
    }

    /// How many active findings touch a file under `prefix`.
    pub fn findings_under(&self, prefix: &str) -> usize {
        let touches = |f: &Finding| f.files.iter().any(|file| file.starts_with(prefix));
        self.active_findings().iter().filter(|f| touches(f)).count()
    }

    /// Asserts the one findings issue is still `before`'s, with a new body.
    pub fn assert_issue_edited(&self, before: &IssueSeen) {
        let after = self.issue(); // never a second issue
        assert_eq!(after.number, before.number, "the same issue");
        assert_ne!(after.body, before.body, "the issue was edited");
    }

    /// Whether finding `id` is active.
    pub fn is_active(&self, id: &str) -> bool {
        self.active_findings().iter().any(|f| f.id == id)
    }

    /// The jobs' rows, oldest first.
    pub fn jobs(&self) -> Vec<jobs::JobRow> {
        jobs::list(&self.app.db()).unwrap()
    }

    /// Asserts every job ran to its end (none waits for a retry, none failed).
    pub fn assert_all_jobs_done(&self) {
        let jobs = self.jobs();
        assert!(jobs.iter().all(|j| j.state == "done"), "{jobs:#?}");
    }

    /// Asserts the bot wrote no reply on pull request `pr`.
    pub fn assert_no_replies(&self, pr: i64) {
        let replies = self.replies(pr);
        assert!(replies.is_empty(), "no reply: {replies:#?}");
    }

    /// The stored findings issue.
    pub fn known_issue(&self) -> publications::PublishedIssue {
        publications::findings_issue(&self.app.db(), RepoId(self.repo_id))
            .unwrap()
            .expect("a findings issue is stored")
    }
}

/// Waits (up to 20 s of real time) until `done` holds.
pub async fn eventually(what: &str, done: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "never happened: {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
