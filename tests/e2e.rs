//! gitlore end to end (issue 6's acceptance), each test a short story: webhooks go through the
//! real router, ingress and worker; the job runner and the scheduler run on a manual clock and
//! publish to the fake GitHub over HTTP, which the tests then inspect and count.

mod common;
mod fake_github;

use std::sync::Arc;
use std::time::Duration;

use fake_github::{FakeGitHub, Fault, Role, Target};
use serde_json::{Value, json};

use common::corpus::{THEMES, UNRELATED};
use common::pause::NoPause;
use common::{APP_ID, START_MS, TestApp, at, conversation_comment, fixture, review_comment};
use gitlore::analysis::Outcome;
use gitlore::clock::Clock;
use gitlore::domain::Secret;
use gitlore::domain::findings::{Category, Evidence, EvidenceKind, Finding, Severity, Status};
use gitlore::domain::{RepoName, markers};
use gitlore::github::auth::AppKey;
use gitlore::github::client::GitHub;
use gitlore::knowledge::filter::NoiseRules;
use gitlore::publish::{IssueContext, issue, issue_view, link_style};
use gitlore::render::issue::{MAX_BODY_LEN, render_issue};
use gitlore::render::wording;
use gitlore::repo_config::RepoConfig;
use gitlore::runner::{HistorySource, Models, Runner, RunnerSettings};
use gitlore::scheduler;
use gitlore::store::{findings, jobs, publications};

const REPO: &str = "acme/widgets";
const INSTALLATION: i64 = 7;
const MINUTE_MS: i64 = 60_000;
const HOUR_MS: i64 = 60 * MINUTE_MS;

/// The files each theme of the corpus is reviewed on (two per theme).
const PATHS: [[&str; 2]; 5] = [
    ["src/server/webhook.rs", "src/server/signature.rs"],
    ["tests/worker.rs", "tests/ingest.rs"],
    ["src/store/comments.rs", "src/store/jobs.rs"],
    ["src/knowledge/filter.rs", "src/knowledge/cluster.rs"],
    ["src/lib.rs", "src/config.rs"],
];

/// A runner for the app that publishes to the fake through `github`.
fn runner(
    app: &TestApp,
    gh: &FakeGitHub,
    github: &Arc<GitHub>,
    settings: RunnerSettings,
) -> Runner {
    Runner::new(
        app.store.clone(),
        github.clone(),
        app.clock.clone() as Arc<dyn Clock>,
        Arc::new(NoiseRules::new(Some(APP_ID), Some("gitlore"), &[])),
        link_style(&gh.base_url(), None),
        Models::default(),
        settings,
    )
}

/// Waits (up to 20 s of real time) until `done` holds.
async fn eventually(what: &str, done: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "never happened: {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The app, the fake GitHub, and the runner, on one clock.
struct Story {
    app: TestApp,
    gh: FakeGitHub,
    github: Arc<GitHub>,
    runner: Runner,
    repo_id: i64,
}

impl Story {
    /// A fake GitHub with `acme/widgets` installed and reviewed: 20 merged pull requests whose
    /// review threads carry the corpus's five themes (two reviewers or more, two PRs or more
    /// each), one more with unrelated remarks; maria may write, rita may only read.
    async fn new() -> Story {
        Story::reviewed(10 * 24 * HOUR_MS, false).await
    }

    /// [`Story::new`] with the reviews made `age_ms` before the start and, with `closed`, every
    /// other pull request closed without being merged.
    async fn reviewed(age_ms: i64, closed: bool) -> Story {
        let gh = FakeGitHub::start().await;
        gh.with_test_app(APP_ID, "gitlore");
        gh.set_now_ms(START_MS - age_ms);
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
        gh.set_now_ms(START_MS);
        let repo_id = gh.inspect(|m| m.repo(REPO).id);
        let app = TestApp::new();
        let key = AppKey::new(APP_ID, &Secret::new(fake_github::test_private_key_pem())).unwrap();
        let client = GitHub::new(
            &gh.base_url(),
            key,
            app.clock.clone() as Arc<dyn Clock>,
            Arc::new(NoPause),
        )
        .unwrap();
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
    async fn installed() -> Story {
        let story = Story::new().await;
        story.install().await;
        story
    }

    /// GitHub installs the App on the repository; the backfill and the analysis run.
    async fn install(&self) {
        self.deliver_installation().await;
        let ran = self.run_jobs().await;
        assert_eq!(ran, 2, "the backfill, then the analysis");
    }

    /// Delivers the App's installation on the repository (which queues its backfill).
    async fn deliver_installation(&self) {
        let mut p = fixture("installation.created.1.json");
        p["installation"]["id"] = json!(INSTALLATION);
        p["installation"]["account"]["login"] = json!("acme");
        p["repositories"] = json!([{
            "id": self.repo_id, "node_id": "R_1", "name": "widgets",
            "full_name": REPO, "private": false,
        }]);
        self.deliver("installation", &p).await;
    }

    /// Moves the app's clock and the fake's together.
    fn advance(&self, ms: i64) {
        self.app.clock.advance_ms(ms);
        self.gh.advance(Duration::from_millis(ms as u64));
    }

    /// Delivers a webhook and lets the worker apply it.
    async fn deliver(&self, event: &str, payload: &Value) {
        assert!(self.app.send(event, payload).await.is_success());
        self.app.drain();
    }

    async fn run_jobs(&self) -> usize {
        self.runner.drain().await.unwrap()
    }

    /// What the scheduler does each minute, then the runner once the jitter is over.
    async fn scheduled_run(&self) -> usize {
        let queued = scheduler::tick(&self.app.store, self.app.clock.now_ms()).unwrap();
        self.advance(scheduler::MAX_JITTER_MS);
        self.run_jobs().await;
        queued
    }

    /// Sets the repository and installation of a payload built from a fixture.
    fn ours(&self, mut p: Value) -> Value {
        p["repository"]["id"] = json!(self.repo_id);
        p["repository"]["full_name"] = json!(REPO);
        p["repository"]["name"] = json!("widgets");
        p["repository"]["owner"]["login"] = json!("acme");
        p["installation"] = json!({ "id": INSTALLATION, "node_id": "x" });
        p
    }

    /// An inline review comment on `path` of merged PR `pr`, `minutes` after the start.
    fn review_comment(&self, id: i64, pr: i64, login: &str, path: &str, body: &str) -> Value {
        let minutes = (self.app.clock.now_ms() - START_MS) / MINUTE_MS;
        let mut p = self.ours(review_comment("created", id, body, minutes));
        p["pull_request"]["number"] = json!(pr);
        let c = &mut p["comment"];
        c["user"]["login"] = json!(login);
        c["path"] = json!(path);
        c["created_at"] = json!(at(minutes));
        c["html_url"] = json!(format!(
            "{}/{REPO}/pull/{pr}#discussion_r{id}",
            self.gh.origin()
        ));
        p
    }

    /// Opens a pull request changing `files` in the fake, and delivers its `opened` webhook.
    async fn open_pull(&self, files: &[&str]) -> (i64, String) {
        let (number, sha) = self.gh.seed(|m| {
            let pull = m.add_open_pull(REPO, "A change", "erin");
            for file in files {
                pull.changed_files.push(fake_github::model::ChangedFile {
                    filename: file.to_string(),
                    status: "modified".into(),
                    additions: 3,
                    deletions: 1,
                    patch: None,
                });
            }
            (pull.number as i64, pull.head_sha.clone())
        });
        let mut p = self.ours(fixture("pull_request.opened.0.json"));
        p["number"] = json!(number);
        p["pull_request"]["number"] = json!(number);
        p["pull_request"]["head"]["sha"] = json!(sha);
        p["pull_request"]["updated_at"] = json!(at(1));
        self.deliver("pull_request", &p).await;
        (number, sha)
    }

    /// `login` comments `body` on pull request `pr` (in the fake, then its webhook); returns
    /// the comment's id.
    async fn comment(&self, pr: i64, login: &str, body: &str) -> i64 {
        let id = self
            .gh
            .seed(|m| m.add_issue_comment(REPO, pr as u64, login, body));
        let mut p = self.ours(conversation_comment("created", id, body, login));
        p["issue"]["number"] = json!(pr);
        p["issue"]["pull_request"]["url"] =
            json!(format!("{}/repos/{REPO}/pulls/{pr}", self.gh.base_url()));
        self.deliver("issue_comment", &p).await;
        id
    }

    /// The findings issues in the fake: (number, body, pinned, open).
    fn issues(&self) -> Vec<(u64, String, bool)> {
        self.gh.inspect(|m| {
            m.repo(REPO)
                .issues
                .values()
                .filter(|i| i.labels.iter().any(|l| l == markers::DEFAULT_ISSUE_LABEL))
                .map(|i| (i.number, i.body.clone().unwrap_or_default(), i.pinned))
                .collect()
        })
    }

    /// The one findings issue's body.
    fn issue_body(&self) -> String {
        let issues = self.issues();
        assert_eq!(issues.len(), 1, "{issues:#?}");
        issues[0].1.clone()
    }

    /// The reactions on conversation comment `id`.
    fn reactions(&self, id: i64) -> Vec<String> {
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
    fn replies(&self, pr: i64) -> Vec<String> {
        self.gh.inspect(|m| {
            m.repo(REPO)
                .issue_comments
                .iter()
                .filter(|c| c.issue_number == pr as u64 && c.author.bot)
                .map(|c| c.body.clone())
                .collect()
        })
    }

    /// (title, summary, conclusion) of the check runs of `sha`.
    fn check_runs(&self, sha: &str) -> Vec<(String, String, String)> {
        self.gh.inspect(|m| {
            m.repo(REPO)
                .check_runs
                .iter()
                .filter(|r| r.head_sha == sha)
                .map(|r| {
                    (
                        r.title.clone().unwrap_or_default(),
                        r.summary.clone().unwrap_or_default(),
                        r.conclusion.clone().unwrap_or_default(),
                    )
                })
                .collect()
        })
    }

    /// Requests with `method` to exactly `path`.
    fn count_exact(&self, method: &str, path: &str) -> usize {
        self.gh
            .requests()
            .iter()
            .filter(|r| r.method == method && r.path == path)
            .count()
    }

    fn last_analysis_at(&self) -> i64 {
        self.app.count(&format!(
            "SELECT coalesce(max(last_run_at), 0) FROM analysis_runs WHERE repo_id = {}",
            self.repo_id
        ))
    }

    fn active_findings(&self) -> Vec<gitlore::domain::findings::Finding> {
        findings::load(&self.app.db(), self.repo_id).unwrap().active
    }

    /// 25 new review comments on the unwrap theme's file, as webhooks.
    async fn review_25_more(&self) {
        for i in 0..25 {
            let body = THEMES[0][i % 8];
            let p = self.review_comment(
                9_000_000 + i as i64,
                1,
                ["alice", "bob"][i % 2],
                PATHS[0][0],
                &format!("{body} (again, {i})"),
            );
            self.deliver("pull_request_review_comment", &p).await;
        }
    }

    /// A writer refreshes on a fresh pull request: returns (pr, sha, comment id).
    async fn refresh_by(&self, login: &str, pr: Option<(i64, String)>) -> (i64, String, i64) {
        let (pr, sha) = match pr {
            Some(known) => known,
            None => self.open_pull(&[PATHS[0][0]]).await,
        };
        self.run_jobs().await; // the pull request's own check run
        let id = self.comment(pr, login, "/gitlore refresh").await;
        self.run_jobs().await;
        (pr, sha, id)
    }
}

#[tokio::test]
async fn installation_backfills_and_publishes_one_pinned_issue_with_findings() {
    let story = Story::installed().await;
    let issues = story.issues();
    assert_eq!(issues.len(), 1, "{issues:#?}");
    let (_, body, pinned) = &issues[0];
    assert!(pinned, "the findings issue is pinned");
    assert!(body.starts_with("<!-- gitlore:findings -->"), "{body}");
    let found = story.active_findings();
    assert!(
        found.len() >= 4,
        "the corpus's themes become findings: {found:#?}"
    );
    for finding in &found {
        assert!(
            body.contains(&format!("gitlore:dismiss {}", finding.id)),
            "{} is in the issue",
            finding.id
        );
    }
    assert!(!body.contains("@alice") && !body.contains("@bob"), "{body}");
    println!("--- the findings issue, as published ---\n{body}\n--- end ---");
}

#[tokio::test]
async fn new_review_comments_make_the_scheduled_run_edit_the_same_issue() {
    let story = Story::installed().await;
    let (number, before, _) = story.issues()[0].clone();
    story.advance(HOUR_MS);
    story.review_25_more().await;
    story.gh.clear_log();
    assert_eq!(
        story.scheduled_run().await,
        1,
        "25 new comments make the run due"
    );
    let issues = story.issues();
    assert_eq!(issues.len(), 1, "never a second issue: {issues:#?}");
    assert_eq!(issues[0].0, number);
    assert_ne!(issues[0].1, before, "the issue was edited");
    assert_eq!(
        story
            .gh
            .count("PATCH", &format!("/repos/{REPO}/issues/{number}")),
        1
    );
    assert_eq!(
        story.count_exact("POST", &format!("/repos/{REPO}/issues")),
        0
    );
}

#[tokio::test]
async fn an_unchanged_scheduled_run_writes_nothing() {
    let story = Story::installed().await;
    let before = story.issue_body();
    // A day later only a bot said something: the run is due, and finds what is published.
    story.advance(25 * HOUR_MS);
    let p = story.review_comment(9_100_000, 1, "renovate[bot]", "Cargo.toml", "Bump serde.");
    story.deliver("pull_request_review_comment", &p).await;
    story.gh.clear_log();
    let analysed_before = story.last_analysis_at();
    assert_eq!(story.scheduled_run().await, 1);
    assert!(
        story.last_analysis_at() > analysed_before,
        "the analysis ran"
    );
    let requests = story.gh.requests();
    let writes = story.gh.writes();
    println!(
        "an unchanged scheduled run: {} requests, {} writes: {:?}",
        requests.len(),
        writes.len(),
        requests
            .iter()
            .map(|r| format!("{} {}", r.method, r.path))
            .collect::<Vec<_>>()
    );
    assert!(writes.is_empty(), "{writes:#?}");
    assert_eq!(story.issue_body(), before);
}

#[tokio::test]
async fn a_pull_request_gets_a_neutral_check_run_naming_what_applies() {
    let story = Story::installed().await;
    let (_, sha) = story.open_pull(&[PATHS[0][0], "src/server/mod.rs"]).await;
    let (_, other_sha) = story.open_pull(&["docs/guide.md"]).await;
    story.run_jobs().await;
    let runs = story.check_runs(&sha);
    assert_eq!(runs.len(), 1, "{runs:#?}");
    let (title, summary, conclusion) = &runs[0];
    assert_eq!(conclusion, "neutral");
    let applicable: Vec<_> = story
        .active_findings()
        .into_iter()
        .filter(|f| f.files.iter().any(|file| file.starts_with("src/server/")))
        .collect();
    assert!(!applicable.is_empty());
    assert_eq!(*title, wording::check_run_title(applicable.len()));
    assert!(summary.contains(PATHS[0][0]), "{summary}");
    println!("--- the check run's summary ---\n{title}\n\n{summary}\n--- end ---");
    let other = story.check_runs(&other_sha);
    assert_eq!(other.len(), 1, "{other:#?}");
    assert_eq!(other[0].1, wording::NOTHING_APPLIES);
    assert_eq!(other[0].2, "neutral");
}

#[tokio::test]
async fn a_check_run_for_a_replaced_head_is_skipped() {
    let story = Story::installed().await;
    let (pr, old_sha) = story.open_pull(&[PATHS[0][0]]).await;
    // A push before the runner got to it: the stored head moves on.
    let new_sha = "f".repeat(40);
    let mut p = story.ours(fixture("pull_request.synchronize.22.json"));
    p["number"] = json!(pr);
    p["pull_request"]["number"] = json!(pr);
    p["pull_request"]["head"]["sha"] = json!(new_sha);
    p["pull_request"]["updated_at"] = json!(at(2));
    story.deliver("pull_request", &p).await;
    story.run_jobs().await;
    assert!(
        story.check_runs(&old_sha).is_empty(),
        "no check run on the old commit"
    );
    assert_eq!(story.check_runs(&new_sha).len(), 1);
}

#[tokio::test]
async fn a_writer_refreshes_issue_and_check_run_with_reactions() {
    let story = Story::installed().await;
    let (pr, sha) = story.open_pull(&[PATHS[0][0]]).await;
    story.run_jobs().await;
    let (number, before, _) = story.issues()[0].clone();
    story.advance(HOUR_MS);
    story.review_25_more().await;
    story.gh.clear_log();
    let (_, _, comment) = story.refresh_by("maria", Some((pr, sha.clone()))).await;
    assert_eq!(story.reactions(comment), ["eyes", "rocket"]);
    let issues = story.issues();
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0].0, number);
    assert_ne!(issues[0].1, before, "the issue was updated");
    assert_eq!(story.check_runs(&sha).len(), 1, "one check run, updated");
    assert_eq!(
        story
            .gh
            .count("PATCH", &format!("/repos/{REPO}/check-runs/")),
        1,
        "the check run was updated with the new evidence"
    );
    let annotations = story.gh.inspect(|m| {
        m.repo(REPO)
            .check_runs
            .iter()
            .find(|r| r.head_sha == sha)
            .map(|r| r.annotations.clone())
            .unwrap_or_default()
    });
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
    assert!(
        story.replies(pr).is_empty(),
        "no reply to a refresh that ran"
    );
}

#[tokio::test]
async fn a_refresh_after_a_cluster_grew_annotates_each_place_once() {
    let story = Story::installed().await;
    let (pr, sha) = story.open_pull(&[PATHS[0][0]]).await;
    story.run_jobs().await;
    story.advance(HOUR_MS);
    let mut p = story.review_comment(9_100_000, 1, "bob", PATHS[0][0], "Same race again here.");
    p["comment"]["line"] = json!(12);
    p["comment"]["original_line"] = json!(12);
    story.deliver("pull_request_review_comment", &p).await;
    story.refresh_by("maria", Some((pr, sha.clone()))).await;
    let annotations = story.gh.inspect(|m| {
        m.repo(REPO)
            .check_runs
            .iter()
            .find(|r| r.head_sha == sha)
            .map(|r| r.annotations.clone())
            .unwrap_or_default()
    });
    assert!(!annotations.is_empty());
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

#[tokio::test]
async fn a_reader_is_refused_without_an_analysis() {
    let story = Story::installed().await;
    let analysed = story.last_analysis_at();
    story.advance(HOUR_MS);
    let (pr, _, comment) = story.refresh_by("rita", None).await;
    assert_eq!(story.last_analysis_at(), analysed, "no analysis ran");
    assert_eq!(
        story.replies(pr),
        [format!(
            "{}\n\n{}",
            wording::refused_no_permission(),
            markers::reply_marker(comment)
        )]
    );
    assert!(story.reactions(comment).is_empty(), "one answer: the reply");
}

#[tokio::test]
async fn a_second_refresh_within_the_cooldown_is_refused() {
    let story = Story::installed().await;
    story.advance(HOUR_MS);
    let (pr, sha, first) = story.refresh_by("maria", None).await;
    let analysed = story.last_analysis_at();
    story.advance(3 * MINUTE_MS);
    let (_, _, second) = story.refresh_by("maria", Some((pr, sha))).await;
    assert_eq!(story.reactions(first), ["eyes", "rocket"]);
    assert!(story.reactions(second).is_empty(), "one answer: the reply");
    assert_eq!(
        story.last_analysis_at(),
        analysed,
        "the second ran no analysis"
    );
    assert_eq!(
        story.replies(pr),
        [format!(
            "{}\n\n{}",
            wording::cooldown(7),
            markers::reply_marker(second)
        )]
    );
}

#[tokio::test]
async fn a_refresh_whose_comment_was_deleted_still_refreshes() {
    let story = Story::installed().await;
    let analysed = story.last_analysis_at();
    story.advance(HOUR_MS);
    let (pr, _) = story.open_pull(&[PATHS[0][0]]).await;
    story.run_jobs().await;
    let id = story.comment(pr, "maria", "/gitlore refresh").await;
    story
        .gh
        .seed(|m| m.repo_mut(REPO).issue_comments.retain(|c| c.id != id));
    story.run_jobs().await;
    assert_ne!(story.last_analysis_at(), analysed, "the refresh ran");
}

#[tokio::test]
async fn a_quoted_refresh_does_nothing() {
    let story = Story::installed().await;
    let (pr, _) = story.open_pull(&["docs/guide.md"]).await;
    story.run_jobs().await;
    story.gh.clear_log();
    let jobs_before = jobs::list(&story.app.db()).unwrap().len();
    story
        .comment(
            pr,
            "maria",
            "> /gitlore refresh\n\nDid you mean to run this?",
        )
        .await;
    assert_eq!(
        jobs::list(&story.app.db()).unwrap().len(),
        jobs_before,
        "no job"
    );
    assert_eq!(story.run_jobs().await, 0);
    assert!(story.gh.requests().is_empty());
}

#[tokio::test]
async fn help_and_unknown_words_get_one_reply_each() {
    let story = Story::installed().await;
    let (pr, _) = story.open_pull(&["docs/guide.md"]).await;
    story.run_jobs().await;
    let help = story.comment(pr, "rita", "/gitlore help").await;
    let typo = story.comment(pr, "rita", "/gitlore refrsh").await;
    story.run_jobs().await;
    let replies = story.replies(pr);
    assert_eq!(replies.len(), 2, "{replies:#?}");
    assert!(replies.contains(&format!(
        "{}\n\n{}",
        wording::help_text(),
        markers::reply_marker(help)
    )));
    assert!(replies.contains(&format!(
        "{}\n\n{}",
        wording::unknown_command("refrsh"),
        markers::reply_marker(typo)
    )));
}

#[tokio::test]
async fn a_ticked_dismiss_box_removes_the_finding_for_good() {
    let story = Story::installed().await;
    let (number, body, _) = story.issues()[0].clone();
    let dismissed = story.active_findings()[0].id.clone();
    let ticked = body.replace(
        &format!("- [ ] Dismiss <!-- gitlore:dismiss {dismissed} -->"),
        &format!("- [x] Dismiss <!-- gitlore:dismiss {dismissed} -->"),
    );
    assert_ne!(ticked, body, "the box is in the body");
    // A reader's tick is ignored.
    let edit = |login: &str| {
        let mut p = story.ours(fixture("issues.edited.0.json"));
        p["issue"]["number"] = json!(number);
        p["issue"]["body"] = json!(ticked);
        p["sender"]["login"] = json!(login);
        p
    };
    story.deliver("issues", &edit("rita")).await;
    story.run_jobs().await;
    assert!(story.active_findings().iter().any(|f| f.id == dismissed));
    // A writer's tick dismisses it.
    story.deliver("issues", &edit("maria")).await;
    story.run_jobs().await;
    assert!(!story.active_findings().iter().any(|f| f.id == dismissed));
    let after = story.issue_body();
    assert!(
        !after.contains(&format!("gitlore:dismiss {dismissed}")),
        "{after}"
    );
    // And it stays gone when the next analysis finds it again.
    story.advance(HOUR_MS);
    story.review_25_more().await;
    assert_eq!(story.scheduled_run().await, 1);
    assert!(!story.active_findings().iter().any(|f| f.id == dismissed));
    assert!(
        !story
            .issue_body()
            .contains(&format!("gitlore:dismiss {dismissed}"))
    );
}

#[tokio::test]
async fn an_issue_deleted_by_a_user_is_recreated_once() {
    let story = Story::installed().await;
    let (pr, sha) = story.open_pull(&[PATHS[0][0]]).await;
    let (number, _, _) = story.issues()[0].clone();
    story.gh.seed(|m| m.repo_mut(REPO).issues.remove(&number));
    story.advance(HOUR_MS);
    story.gh.clear_log();
    story.refresh_by("maria", Some((pr, sha.clone()))).await;
    assert_eq!(
        story
            .gh
            .count("GET", &format!("/repos/{REPO}/issues/{number}")),
        1,
        "the unchanged issue is verified with one read"
    );
    assert_eq!(
        story.count_exact("POST", &format!("/repos/{REPO}/issues")),
        1
    );
    let issues = story.issues();
    assert_eq!(issues.len(), 1, "{issues:#?}");
    assert_ne!(issues[0].0, number, "a new issue");
    assert!(issues[0].2, "pinned");
    let known = publications::findings_issue(&story.app.db(), story.repo_id)
        .unwrap()
        .unwrap();
    assert_eq!(known.number as u64, issues[0].0);
    // The next refresh finds it and creates nothing.
    story.advance(20 * MINUTE_MS);
    story.gh.clear_log();
    story.refresh_by("maria", Some((pr, sha))).await;
    assert_eq!(story.issues().len(), 1);
    assert_eq!(
        story.count_exact("POST", &format!("/repos/{REPO}/issues")),
        0
    );
}

#[tokio::test]
async fn github_errors_while_publishing_are_retried_later_without_duplicates() {
    let story = Story::new().await;
    // Every attempt the client makes to create the issue fails with a 502.
    story.gh.inject(
        Target::rest("POST", &format!("/repos/{REPO}/issues")),
        Fault::ServerError(502),
        4,
    );
    story.deliver_installation().await;
    story.run_jobs().await;
    assert!(story.issues().is_empty());
    let analysis = jobs::list(&story.app.db())
        .unwrap()
        .into_iter()
        .find(|j| j.kind == "analysis")
        .unwrap();
    assert_eq!(analysis.state, "pending", "to be retried");
    assert_eq!(story.run_jobs().await, 0, "not before its backoff");
    story.advance(30_000);
    assert_eq!(story.run_jobs().await, 1);
    assert_eq!(story.issues().len(), 1, "one issue, not two");

    // The same for a check run.
    story.gh.inject(
        Target::rest("POST", &format!("/repos/{REPO}/check-runs")),
        Fault::ServerError(503),
        4,
    );
    let (_, sha) = story.open_pull(&[PATHS[0][0]]).await;
    story.run_jobs().await;
    assert!(story.check_runs(&sha).is_empty());
    story.advance(30_000);
    story.run_jobs().await;
    assert_eq!(story.check_runs(&sha).len(), 1, "one check run, not two");
}

#[tokio::test]
async fn a_store_too_big_for_one_issue_is_published_shortened() {
    let story = Story::new().await;
    story.deliver_installation().await; // registers the repository; its jobs are left queued
    let now = START_MS / 1000;
    let severities = [Severity::High, Severity::Medium, Severity::Low];
    let big: Vec<Finding> = (0..400)
        .map(|i| Finding {
            id: format!("f-big-{i:04}"),
            category: Category::ALL[i % Category::ALL.len()],
            severity: severities[i % 3],
            title: format!("Lesson {i}: wrap storage errors with the failing query"),
            insight: "Reviewers keep asking for this in the storage layer. ".repeat(30),
            evidence: (0..15)
                .map(|e| Evidence {
                    kind: EvidenceKind::Comment,
                    id: "1".into(),
                    text: format!("Comment {e}: {}", "please wrap this error ".repeat(20)),
                })
                .collect(),
            files: vec!["src/store/orders.rs".into()],
            first_seen: now,
            last_seen: now,
            status: Status::Active,
        })
        .collect();
    let store = &story.app.store;
    store
        .write_derived(|tx| findings::save_run(tx, story.repo_id, now, &big))
        .unwrap();
    let outcome = Outcome {
        themes: Default::default(),
        comments: Default::default(),
        listing: findings::load(&store.reader().unwrap(), story.repo_id).unwrap(),
        new_ids: Default::default(),
        notes: Vec::new(),
        window: gitlore::analysis::Window {
            start: 0,
            end: now,
            left_out: 0,
        },
    };
    let repo = RepoName::parse(REPO).unwrap();
    let config = RepoConfig::default();
    let links = link_style(&story.gh.base_url(), None);
    let context = IssueContext {
        repo: &repo,
        window_months: config.analysis.window_months,
        problems: &[],
        head: None,
        backfill: None,
        links: Some(&links),
        now,
        notes: Vec::new(),
    };
    let body = render_issue(&issue_view(&outcome, &context));
    let github = story.github.repo(INSTALLATION, &repo);
    let target = issue::Target {
        github: &github,
        store,
        repo_id: story.repo_id,
        settings: &config.issue,
        now_ms: START_MS,
    };
    let outcome = issue::publish(&target, &body, false).await.unwrap();
    assert!(
        matches!(outcome, issue::IssueOutcome::Created(_)),
        "{outcome:?}"
    );
    let published = story.issue_body();
    assert!(
        published.encode_utf16().count() <= MAX_BODY_LEN,
        "{} long",
        published.len()
    );
    assert!(
        published.contains("Shortened to fit GitHub's size limit"),
        "{published}"
    );
    assert!(published.contains("left out (the least severe)"));
    let shown = published
        .matches("- [ ] Dismiss <!-- gitlore:dismiss f-big-")
        .count();
    assert!(shown > 10 && shown < 400, "{shown} shown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runner_and_the_scheduler_work_in_the_background_and_stop_when_told() {
    let story = Story::new().await;
    let settings = RunnerSettings {
        poll: Duration::from_millis(10),
        ..RunnerSettings::default()
    };
    let background = runner(&story.app, &story.gh, &story.github, settings);
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let runner_task = tokio::spawn({
        let stopped = stopped.clone();
        async move { background.run(stopped).await }
    });
    let scheduler_task = tokio::spawn(scheduler::run(
        story.app.store.clone(),
        story.app.clock.clone() as Arc<dyn Clock>,
        Duration::from_millis(10),
        story.app.path().to_path_buf(),
        stopped,
    ));
    story.deliver_installation().await;
    eventually("the findings issue is published", || {
        story.issues().len() == 1
    })
    .await;
    let (number, first, _) = story.issues()[0].clone();

    story.advance(HOUR_MS);
    story.review_25_more().await;
    let edited = || story.issues().first().is_some_and(|issue| issue.1 != first);
    eventually(
        "the scheduler queues the analysis (or it ran already)",
        || {
            edited()
                || jobs::list(&story.app.db())
                    .unwrap()
                    .iter()
                    .any(|job| job.kind == "analysis" && job.state == "pending")
        },
    )
    .await;
    story.advance(scheduler::MAX_JITTER_MS);
    eventually("the scheduled run edits the issue", edited).await;
    assert_eq!(story.issues().len(), 1);
    assert_eq!(story.issues()[0].0, number);

    stop.send(true).unwrap();
    let both = async { (runner_task.await, scheduler_task.await) };
    let (runner_done, scheduler_done) = tokio::time::timeout(Duration::from_secs(10), both)
        .await
        .expect("both stop when told");
    runner_done.unwrap();
    scheduler_done.unwrap();
}

#[tokio::test]
async fn the_check_runs_refresh_button_refreshes_quietly() {
    let story = Story::installed().await;
    let (pr, sha) = story.open_pull(&[PATHS[0][0]]).await;
    story.run_jobs().await;
    story.advance(HOUR_MS);
    story.review_25_more().await;
    let (_, before, _) = story.issues()[0].clone();
    let press = |login: &str| {
        let mut p = story.ours(fixture("check_run.requested_action.6.json"));
        p["check_run"]["app"]["id"] = json!(APP_ID);
        p["check_run"]["head_sha"] = json!(sha);
        p["check_run"]["pull_requests"][0]["number"] = json!(pr);
        p["requested_action"]["identifier"] = json!("refresh");
        p["sender"]["login"] = json!(login);
        p
    };
    // A reader's press does nothing.
    let analysed = story.last_analysis_at();
    story.deliver("check_run", &press("rita")).await;
    story.run_jobs().await;
    assert_eq!(story.last_analysis_at(), analysed);
    // A writer's press refreshes the issue and this check run, without a word.
    story.gh.clear_log();
    story.deliver("check_run", &press("maria")).await;
    story.run_jobs().await;
    assert!(story.last_analysis_at() > analysed);
    assert_ne!(story.issue_body(), before);
    assert_eq!(story.check_runs(&sha).len(), 1);
    assert_eq!(
        story
            .gh
            .count("PATCH", &format!("/repos/{REPO}/check-runs/")),
        1
    );
    assert!(story.replies(pr).is_empty());
    assert_eq!(
        story
            .gh
            .count("POST", &format!("/repos/{REPO}/issues/comments/")),
        0,
        "no reaction"
    );
}

#[tokio::test]
async fn with_three_pins_taken_the_issue_goes_on_unpinned() {
    let story = Story::new().await;
    story.gh.seed(|m| {
        for title in ["Roadmap", "Contributing", "FAQ"] {
            m.add_issue(REPO, title, "Pinned by the maintainers.", "erin")
                .pinned = true;
        }
    });
    story.install().await;
    let issues = story.issues();
    assert_eq!(issues.len(), 1, "{issues:#?}");
    assert!(!issues[0].2, "not pinned");
    let jobs = jobs::list(&story.app.db()).unwrap();
    assert!(jobs.iter().all(|j| j.state == "done"), "{jobs:#?}");
    let known = publications::findings_issue(&story.app.db(), story.repo_id)
        .unwrap()
        .unwrap();
    assert!(!known.pinned);
}

#[tokio::test]
async fn an_edit_answered_not_found_recreates_the_issue() {
    let story = Story::installed().await;
    let (number, _, _) = story.issues()[0].clone();
    story.gh.seed(|m| m.repo_mut(REPO).issues.remove(&number));
    story.advance(HOUR_MS);
    story.review_25_more().await;
    story.gh.clear_log();
    assert_eq!(story.scheduled_run().await, 1);
    let path = format!("/repos/{REPO}/issues/{number}");
    let failed_edits = story
        .gh
        .requests()
        .iter()
        .filter(|r| r.method == "PATCH" && r.path == path && r.status == 404)
        .count();
    assert_eq!(failed_edits, 1, "the edit found the issue gone");
    assert_eq!(
        story.count_exact("POST", &format!("/repos/{REPO}/issues")),
        1
    );
    assert_eq!(story.issues().len(), 1);
}

#[tokio::test]
async fn a_backfill_waiting_for_its_retry_shows_its_progress_in_the_issue() {
    let story = Story::new().await;
    // GitHub's GraphQL API fails every attempt of the client's first page read.
    story.gh.inject(
        Target::graphql("BackfillPullRequests"),
        Fault::ServerError(502),
        4,
    );
    story.deliver_installation().await;
    story.run_jobs().await;
    let progress = wording::backfill_progress(0, None);
    assert!(
        story.issue_body().contains(&progress),
        "{}",
        story.issue_body()
    );
    story.advance(30_000);
    assert_eq!(
        story.run_jobs().await,
        2,
        "the backfill again, then its analysis"
    );
    let body = story.issue_body();
    assert!(!body.contains(&progress), "{body}");
    assert!(
        body.contains("gitlore:dismiss"),
        "findings once the backfill is done"
    );
}

/// Runs git in `dir` at unix time `at`, isolated from the user's config.
fn git(dir: &std::path::Path, args: &[&str], at: i64) {
    let date = format!("@{at} +0000");
    let output = std::process::Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_DATE", &date)
        .env("GIT_COMMITTER_DATE", &date)
        .args(["-c", "user.name=erin", "-c", "user.email=erin@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A story whose runner reads the git history from repositories under `remotes`.
async fn story_with_history(remotes: &std::path::Path) -> Story {
    let mut story = Story::new().await;
    let settings = RunnerSettings {
        history: Some(HistorySource {
            data_dir: story.app.path().join("data"),
            remote_base: remotes.display().to_string(),
        }),
        ..RunnerSettings::default()
    };
    story.runner = runner(&story.app, &story.gh, &story.github, settings);
    story
}

#[tokio::test]
async fn the_analysis_reads_the_git_history_from_the_repositorys_mirror() {
    let remotes = tempfile::tempdir().unwrap();
    let origin = remotes.path().join("acme/widgets.git");
    std::fs::create_dir_all(origin.join("src/server")).unwrap();
    let start = START_MS / 1000 - 60 * 24 * 3600;
    git(&origin, &["init", "-q", "-b", "main"], start);
    std::fs::create_dir_all(origin.join("docs")).unwrap();
    for i in 0..24_i64 {
        // Half the commits change the two server files together, half change the docs.
        let paths = if i % 2 == 0 {
            [PATHS[0][0], PATHS[0][1]]
        } else {
            ["docs/guide.md", "docs/faq.md"]
        };
        for path in paths {
            let file = origin.join(path);
            let mut text = std::fs::read_to_string(&file).unwrap_or_default();
            text.push_str(&format!("change {i}\n"));
            std::fs::write(&file, text).unwrap();
        }
        let at = start + i * 24 * 3600;
        git(&origin, &["add", "-A"], at);
        git(&origin, &["commit", "-q", "-m", &format!("Change {i}")], at);
    }
    let story = story_with_history(remotes.path()).await;
    story.install().await;
    let mirror = story
        .app
        .path()
        .join(format!("data/mirrors/{}.git", story.repo_id));
    assert!(mirror.join("HEAD").exists(), "the mirror was cloned");
    let body = story.issue_body();
    let summary = body.lines().nth(1).unwrap();
    assert!(
        summary.contains(" at [`"),
        "the analysed commit is named: {summary}"
    );
    assert!(!body.contains(wording::HISTORY_UNAVAILABLE));
    let couplings = publications::couplings(&story.app.db(), story.repo_id).unwrap();
    assert!(
        couplings
            .iter()
            .any(|c| [&c.a, &c.b] == [PATHS[0][0], PATHS[0][1]]
                || [&c.b, &c.a] == [PATHS[0][0], PATHS[0][1]]),
        "{couplings:#?}"
    );
}

#[tokio::test]
async fn a_history_that_cannot_be_read_leaves_review_comments_and_a_note() {
    let remotes = tempfile::tempdir().unwrap(); // holds no repository
    let story = story_with_history(remotes.path()).await;
    story.install().await;
    let body = story.issue_body();
    assert!(body.contains(wording::HISTORY_UNAVAILABLE), "{body}");
    assert!(
        body.contains("gitlore:dismiss"),
        "findings from review comments: {body}"
    );
}

#[tokio::test]
async fn a_lost_issue_row_finds_the_issue_again_by_its_marker_and_label() {
    let story = Story::installed().await;
    let (number, _, _) = story.issues()[0].clone();
    story
        .app
        .store
        .write_derived(|tx| publications::forget_findings_issue(tx, story.repo_id))
        .unwrap();
    story.advance(HOUR_MS);
    story.review_25_more().await;
    story.gh.clear_log();
    assert_eq!(story.scheduled_run().await, 1);
    assert_eq!(
        story.count_exact("POST", &format!("/repos/{REPO}/issues")),
        0
    );
    let issues = story.issues();
    assert_eq!(issues.len(), 1, "{issues:#?}");
    assert_eq!(issues[0].0, number);
    assert_eq!(
        story.count_exact("PATCH", &format!("/repos/{REPO}/issues/{number}")),
        1,
        "found again, then edited"
    );
    let known = publications::findings_issue(&story.app.db(), story.repo_id)
        .unwrap()
        .unwrap();
    assert_eq!(
        (known.number as u64, known.body),
        (number, issues[0].1.clone())
    );
}

#[tokio::test]
async fn a_job_that_keeps_failing_fails_for_good_after_five_attempts_with_its_error() {
    let story = Story::new().await;
    story.gh.inject(
        Target::rest("POST", &format!("/repos/{REPO}/issues")),
        Fault::ServerError(502),
        100,
    );
    story.deliver_installation().await;
    story.run_jobs().await; // the backfill, and the analysis's first attempt
    for wait in [30_000, 120_000, 480_000, 1_920_000] {
        assert_eq!(story.run_jobs().await, 0, "not before its backoff");
        story.advance(wait);
        assert_eq!(story.run_jobs().await, 1);
    }
    let (state, attempts, error): (String, i64, String) = story
        .app
        .db()
        .query_row(
            "SELECT state, attempts, last_error FROM jobs WHERE kind = 'analysis'",
            [],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
        .unwrap();
    assert_eq!((state.as_str(), attempts), ("failed", 5));
    assert!(error.contains("502"), "{error}");
    story.advance(10 * HOUR_MS);
    assert_eq!(story.run_jobs().await, 0, "a failed job stays failed");
    assert!(story.issues().is_empty());
}

#[tokio::test]
async fn a_repo_config_github_cannot_serve_is_retried_not_replaced_by_the_defaults() {
    let story = Story::new().await;
    // Every attempt the client makes to read the config file fails with a 502.
    story.gh.inject(
        Target::rest(
            "GET",
            &format!("/repos/{REPO}/contents/.github/gitlore.toml"),
        ),
        Fault::ServerError(502),
        4,
    );
    story.deliver_installation().await;
    story.run_jobs().await;
    assert!(story.issues().is_empty(), "nothing published on a guess");
    story.advance(30_000);
    story.run_jobs().await;
    assert_eq!(story.issues().len(), 1);
    assert!(
        !story.issue_body().contains("Config problem"),
        "{}",
        story.issue_body()
    );
}

/// Collects what gitlore logs on this thread while the guard lives.
fn capture_logs() -> Arc<std::sync::Mutex<Vec<u8>>> {
    #[derive(Clone)]
    struct Sink(Arc<std::sync::Mutex<Vec<u8>>>);
    impl std::io::Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // One subscriber for the whole test binary: the runner logs from its own threads, which a
    // thread-local subscriber would not see.
    static LOGS: std::sync::OnceLock<Arc<std::sync::Mutex<Vec<u8>>>> = std::sync::OnceLock::new();
    let logs = LOGS.get_or_init(|| {
        let logs = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = Sink(logs.clone());
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || sink.clone())
            .with_ansi(false)
            .finish();
        tracing::subscriber::set_global_default(subscriber).unwrap();
        logs
    });
    logs.clone()
}

/// The state and attempts of every analysis job.
fn analysis_jobs(story: &Story) -> Vec<(String, i64)> {
    let db = story.app.db();
    let mut query = db
        .prepare("SELECT state, attempts FROM jobs WHERE kind = 'analysis'")
        .unwrap();
    query
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[tokio::test]
async fn a_repo_config_that_is_not_utf8_is_shown_with_the_defaults_at_once() {
    let story = Story::new().await;
    let utf16: Vec<u8> = "\u{FEFF}[publish]\ncheck-run = false\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    story.gh.seed(|m| {
        m.repo_mut(REPO)
            .binary_files
            .insert(".github/gitlore.toml".into(), utf16);
    });
    let logs = capture_logs();
    story.install().await;
    let body = story.issue_body();
    assert!(
        body.contains("**Config problem:**") && body.contains("UTF-8"),
        "{body}"
    );
    assert!(
        analysis_jobs(&story)
            .iter()
            .all(|(state, _)| state == "done"),
        "{:?}",
        analysis_jobs(&story)
    );
    let logs = String::from_utf8(logs.lock().unwrap().clone()).unwrap();
    assert!(logs.contains("UTF-8"), "{logs}");
}

#[tokio::test]
async fn a_config_over_a_megabyte_and_one_excluding_everything_are_shown() {
    let too_big = format!("# {}\n", "x".repeat(1_100_000));
    let cases = [
        (too_big.as_str(), "larger than"),
        ("[analysis]\nignore-paths = [\"**\"]\n", "leaves out every"),
        (
            "[analysis]\nignore-authors = [\"alice\", \"bob\", \"carol\", \"dana\", \"erin\"]\n",
            "leaves out every",
        ),
    ];
    for (config, says) in cases {
        let story = Story::new().await;
        story.gh.seed(|m| {
            let files = &mut m.repo_mut(REPO).files;
            files.insert(".github/gitlore.toml".into(), config.to_string());
        });
        story.install().await;
        let body = story.issue_body();
        assert!(body.contains(says), "{says:?} not in {body}");
    }
}

#[tokio::test]
async fn a_config_problem_is_logged_as_well_as_shown() {
    let story = Story::new().await;
    story.gh.seed(|m| {
        let files = &mut m.repo_mut(REPO).files;
        let config = "[publish]\nissue = false\n[analysis]\nwindow-months = \"twelve\"\n";
        files.insert(".github/gitlore.toml".into(), config.into());
    });
    let logs = capture_logs();
    story.install().await;
    let logs = String::from_utf8(logs.lock().unwrap().clone()).unwrap();
    assert!(
        logs.contains("acme/widgets:.github/gitlore.toml line 4"),
        "{logs}"
    );
}

#[tokio::test]
async fn a_whole_history_window_backfills_old_and_closed_pull_requests() {
    // Reviewed three years ago, half on pull requests closed without merging.
    let story = Story::reviewed(3 * 365 * 24 * HOUR_MS, true).await;
    story.gh.seed(|m| {
        let config = "[analysis]\nwindow-months = 0\n";
        let files = &mut m.repo_mut(REPO).files;
        files.insert(".github/gitlore.toml".into(), config.into());
    });
    story.install().await;
    let read = story.app.count(&format!(
        "SELECT count(*) FROM comments WHERE repo_id = {}",
        story.repo_id
    ));
    assert_eq!(read, 48, "every review comment of the 21 pull requests");
    let found = story.active_findings();
    assert!(found.len() >= 4, "the themes become findings: {found:#?}");
    let body = story.issue_body();
    let closed_pr = 2; // theme 0, part 1: closed without merging
    assert!(
        body.contains(&format!("/{REPO}/pull/{closed_pr}#discussion_r")),
        "review evidence from a closed pull request is cited: {body}"
    );
}

#[tokio::test]
async fn the_default_window_leaves_reviews_older_than_a_year_unread() {
    let story = Story::reviewed(3 * 365 * 24 * HOUR_MS, false).await;
    story.install().await;
    let read = story.app.count(&format!(
        "SELECT count(*) FROM comments WHERE repo_id = {}",
        story.repo_id
    ));
    assert_eq!(read, 0);
}

#[tokio::test]
async fn a_push_to_the_default_branch_makes_the_scheduled_run_due() {
    let story = Story::installed().await;
    story.advance(25 * HOUR_MS);
    assert_eq!(story.scheduled_run().await, 0, "nothing changed yet");
    let mut p = story.ours(fixture("push.none.0.json"));
    p["ref"] = json!("refs/heads/main");
    p["repository"]["default_branch"] = json!("main");
    story.deliver("push", &p).await;
    assert_eq!(story.scheduled_run().await, 1, "the push is a change");
    assert_eq!(story.scheduled_run().await, 0, "and counted once");
}
