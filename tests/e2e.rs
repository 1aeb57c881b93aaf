//! gitlore end to end, each test a short story (see `tests/common/story.rs`): a person acts on
//! the fake GitHub, which delivers the webhook to the real router, ingress and worker; the job
//! runner and the scheduler run on a manual clock and publish to the fake over HTTP, which the
//! tests then inspect and count.

mod common;
mod fake_github;
#[path = "common/story.rs"]
mod story;

use std::sync::Arc;
use std::time::Duration;

use expect_test::expect;
use fake_github::{Fault, Target};

use common::START_MS;
use common::corpus::THEMES;
use common::logs::capture_logs;
use common::snapshot::{line_containing, numbers_as_n};
use gitlore::analysis::Outcome;
use gitlore::clock::Clock;
use gitlore::domain::findings::{Category, Evidence, EvidenceKind, Finding, Severity, Status};
use gitlore::domain::{InstallationId, RepoId, RepoName, UnixMs};
use gitlore::llm::{LlmClient, LlmSettings, Provider};
use gitlore::publish::{IssueContext, issue, issue_view, link_style};
use gitlore::render::issue::{MAX_BODY_LEN, render_issue};
use gitlore::repo_config::RepoConfig;
use gitlore::runner::{Models, RunnerSettings};
use gitlore::scheduler;
use gitlore::store::{findings, publications, run_reports};
use story::{HOUR_MS, INSTALLATION, MINUTE_MS, PATHS, REPO, Story, eventually};

#[tokio::test]
async fn installation_backfills_and_publishes_one_pinned_issue_with_findings() {
    let story = Story::installed().await;
    let issue = story.issue();
    assert!(issue.pinned, "the findings issue is pinned");
    let body = &issue.body;
    assert!(body.starts_with("<!-- gitlore:findings -->"), "{body}");
    let found = story.active_findings();
    assert!(found.len() >= 4, "the themes become findings: {found:#?}");
    for finding in &found {
        let dismiss = format!("gitlore:dismiss {}", finding.id);
        assert!(body.contains(&dismiss), "{} is in the issue", finding.id);
    }
    assert!(!body.contains("@alice") && !body.contains("@bob"), "{body}");
    println!("--- the findings issue, as published ---\n{body}\n--- end ---");
}

#[tokio::test]
async fn new_review_comments_make_the_scheduled_run_edit_the_same_issue() {
    let story = Story::installed().await;
    let before = story.issue();
    story.review_25_more_an_hour_later().await;
    story.gh.clear_log();
    let due = story.scheduled_run().await;
    assert_eq!(due, 1, "25 new comments make the run due");
    story.assert_issue_edited(&before);
    let edit = format!("/issues/{}", before.number);
    assert_eq!(story.count_under("PATCH", &edit), 1);
    assert_eq!(story.count_exact("POST", "/issues"), 0);
}

#[tokio::test]
async fn an_unchanged_scheduled_run_writes_nothing() {
    let story = Story::installed().await;
    let before = story.issue_body();
    // A day later only a bot said something: the run is due, and finds what is published.
    story.advance(25 * HOUR_MS);
    story
        .review(1, "renovate[bot]", "Cargo.toml", 3, "Bump serde.")
        .await;
    story.gh.clear_log();
    let analysed_before = story.last_analysis_at();
    assert_eq!(story.scheduled_run().await, 1);
    assert!(
        story.last_analysis_at() > analysed_before,
        "the analysis ran"
    );
    let writes = story.gh.writes();
    assert!(writes.is_empty(), "{writes:#?}");
    assert_eq!(story.issue_body(), before);
}

#[tokio::test]
async fn a_pull_request_gets_a_neutral_check_run_naming_what_applies() {
    let story = Story::installed().await;
    let sha = story
        .open_pull_checked(&[PATHS[0][0], "src/server/mod.rs"])
        .await
        .1;
    let run = story.check_run(&sha);
    assert_eq!(run.conclusion, "neutral");
    let applicable = story.findings_under("src/server/");
    assert!(applicable >= 1);
    let title = numbers_as_n(&run.title, applicable);
    expect!["N past lesson applies to this change"].assert_eq(&title);
    assert!(run.summary.contains(PATHS[0][0]), "{}", run.summary);
}

#[tokio::test]
async fn a_check_run_for_a_replaced_head_is_skipped() {
    let story = Story::installed().await;
    let (pr, old_sha) = story.open_pull(&[PATHS[0][0]]).await;
    // A push before the runner got to it: the stored head moves on.
    let new_sha = story.push_to_pull(pr).await;
    story.run_jobs().await;
    let old = story.check_runs(&old_sha);
    assert!(old.is_empty(), "no check run on the old commit: {old:#?}");
    story.check_run(&new_sha);
}

#[tokio::test]
async fn a_writer_refreshes_issue_and_check_run_with_reactions() {
    let story = Story::installed().await;
    let (pr, sha) = story.open_pull_checked(&[PATHS[0][0]]).await;
    let before = story.issue();
    story.review_25_more_an_hour_later().await;
    story.gh.clear_log();
    let (_, _, comment) = story.refresh_by("maria", Some((pr, sha.clone()))).await;
    assert_eq!(story.reactions(comment), ["eyes", "rocket"]);
    story.assert_issue_edited(&before);
    story.check_run(&sha); // one check run, updated
    let updates = story.count_under("PATCH", "/check-runs/");
    assert_eq!(updates, 1, "updated with the new evidence");
    story.assert_annotated_once_each(&sha);
    story.assert_no_replies(pr); // to a refresh that ran
}

#[tokio::test]
async fn a_refresh_after_a_cluster_grew_annotates_each_place_once() {
    let story = Story::installed().await;
    let (pr, sha) = story.open_pull_checked(&[PATHS[0][0]]).await;
    story.advance(HOUR_MS);
    story
        .review(1, "bob", PATHS[0][0], 12, "Same race again here.")
        .await;
    story.refresh_by("maria", Some((pr, sha.clone()))).await;
    story.assert_annotated_once_each(&sha);
}

#[tokio::test]
async fn a_reader_is_refused_without_an_analysis() {
    let story = Story::installed().await;
    let analysed = story.last_analysis_at();
    story.advance(HOUR_MS);
    let (pr, _, comment) = story.refresh_by("rita", None).await;
    assert_eq!(story.last_analysis_at(), analysed, "no analysis ran");
    expect!["Sorry, only people with write access to this repository can run `/gitlore refresh`."]
        .assert_eq(&story.reply_to(pr, comment));
    assert_eq!(story.replies(pr).len(), 1, "{:#?}", story.replies(pr));
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
    let analysed_now = story.last_analysis_at();
    assert_eq!(analysed_now, analysed, "the second ran no analysis");
    expect!["This repository was refreshed a moment ago; try again in 7 minutes."]
        .assert_eq(&story.reply_to(pr, second));
    assert_eq!(story.replies(pr).len(), 1, "{:#?}", story.replies(pr));
}

#[tokio::test]
async fn a_refresh_whose_comment_was_deleted_still_refreshes() {
    let story = Story::installed().await;
    let analysed = story.last_analysis_at();
    story.advance(HOUR_MS);
    let (pr, _) = story.open_pull_checked(&[PATHS[0][0]]).await;
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
    let (pr, _) = story.open_pull_checked(&["docs/guide.md"]).await;
    story.gh.clear_log();
    let jobs_before = story.jobs().len();
    let quoted = "> /gitlore refresh\n\nDid you mean to run this?";
    story.comment(pr, "maria", quoted).await;
    assert_eq!(story.jobs().len(), jobs_before, "no job");
    assert_eq!(story.run_jobs().await, 0);
    assert!(story.gh.requests().is_empty());
}

#[tokio::test]
async fn help_and_unknown_words_get_one_reply_each() {
    let story = Story::installed().await;
    let (pr, _) = story.open_pull_checked(&["docs/guide.md"]).await;
    let help = story.comment(pr, "rita", "/gitlore help").await;
    let typo = story.comment(pr, "rita", "/gitlore refrsh").await;
    story.run_jobs().await;
    assert_eq!(story.replies(pr).len(), 2, "{:#?}", story.replies(pr));
    let help_text = story.reply_to(pr, help);
    expect![[r#"
        gitlore learns what your reviews keep teaching and keeps it in the findings issue. Commands, in a pull request comment:

        - `/gitlore refresh`: re-run the analysis now and update the findings issue and this pull request's check (needs write access).
        - `/gitlore help`: this list."#]].assert_eq(&help_text);
    let typo_text = story.reply_to(pr, typo);
    let (first, rest) = typo_text.split_once("\n\n").unwrap();
    expect!["I don't know `/gitlore refrsh`."].assert_eq(first);
    assert_eq!(rest, help_text, "then the help");
}

#[tokio::test]
async fn a_ticked_dismiss_box_removes_the_finding_for_good() {
    let story = Story::installed().await;
    let dismissed = story.active_findings()[0].id.clone();
    story.tick_dismiss_box(&dismissed, "maria").await;
    assert!(!story.is_active(&dismissed));
    let shown = format!("gitlore:dismiss {dismissed}");
    assert!(
        !story.issue_body().contains(&shown),
        "{}",
        story.issue_body()
    );
    // And it stays gone when the next analysis finds it again.
    story.review_25_more_an_hour_later().await;
    assert_eq!(story.scheduled_run().await, 1);
    assert!(!story.is_active(&dismissed));
    assert!(!story.issue_body().contains(&shown));
}

#[tokio::test]
async fn an_issue_deleted_by_a_user_is_recreated_once() {
    let story = Story::installed().await;
    let (pr, sha) = story.open_pull(&[PATHS[0][0]]).await;
    let number = story.delete_issue_on_github();
    story.advance(HOUR_MS);
    story.gh.clear_log();
    story.refresh_by("maria", Some((pr, sha.clone()))).await;
    let reads = story.count_under("GET", &format!("/issues/{number}"));
    assert_eq!(reads, 1, "the unchanged issue is verified with one read");
    assert_eq!(story.count_exact("POST", "/issues"), 1);
    let recreated = story.issue();
    assert_ne!(recreated.number, number, "a new issue");
    assert!(recreated.pinned, "pinned");
    assert_eq!(story.known_issue().number as u64, recreated.number);
    // The next refresh finds it and creates nothing.
    story.advance(20 * MINUTE_MS);
    story.gh.clear_log();
    story.refresh_by("maria", Some((pr, sha))).await;
    story.issue();
    assert_eq!(story.count_exact("POST", "/issues"), 0);
}

#[tokio::test]
async fn github_errors_while_publishing_are_retried_later_without_duplicates() {
    let story = Story::new().await;
    // Every attempt the client makes to create the issue fails with a 502.
    story.fail_requests("POST", "/issues", 502, 4);
    story.deliver_installation().await;
    story.run_jobs().await;
    assert!(story.issues().is_empty());
    let jobs = story.jobs();
    let analysis = jobs.iter().find(|j| j.kind == "analysis").unwrap();
    assert_eq!(analysis.state, "pending", "to be retried");
    assert_eq!(story.run_jobs().await, 0, "not before its backoff");
    story.advance(30_000);
    assert_eq!(story.run_jobs().await, 1);
    assert_eq!(story.issues().len(), 1, "one issue, not two");
}

/// 400 findings with long insights and 15 pieces of evidence each: far over GitHub's limit.
fn too_many_findings(now: i64) -> Vec<Finding> {
    let severities = [Severity::High, Severity::Medium, Severity::Low];
    (0..400)
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
        .collect()
}

/// The findings issue's body for what the store holds, as an analysis would render it.
fn rendered_issue(story: &Story, now: i64) -> String {
    let listing = findings::load(&story.app.db(), RepoId(story.repo_id)).unwrap();
    let outcome = Outcome {
        themes: Default::default(),
        comments: Default::default(),
        listing,
        new_ids: Default::default(),
        notes: Vec::new(),
        window: gitlore::analysis::Window {
            start: 0,
            end: now,
            left_out: 0,
        },
        effect: Default::default(),
    };
    let links = link_style(&story.gh.base_url(), None);
    let context = IssueContext {
        repo: &RepoName::parse(REPO).unwrap(),
        window_months: RepoConfig::default().analysis.window_months,
        problems: &[],
        head: None,
        backfill: None,
        links: Some(&links),
        now,
        notes: Vec::new(),
    };
    render_issue(&issue_view(&outcome, &context))
}

#[tokio::test]
async fn a_store_too_big_for_one_issue_is_published_shortened() {
    let story = Story::new().await;
    story.deliver_installation().await; // registers the repository; its jobs are left queued
    let now = START_MS / 1000;
    let big = too_many_findings(now);
    let store = &story.app.store;
    store
        .write_derived(|tx| findings::save_run(tx, RepoId(story.repo_id), now, &big))
        .unwrap();
    let body = rendered_issue(&story, now);
    let (repo, config) = (RepoName::parse(REPO).unwrap(), RepoConfig::default());
    let github = story.github.repo(InstallationId(INSTALLATION), &repo);
    let target = issue::Target {
        github: &github,
        store,
        repo_id: RepoId(story.repo_id),
        settings: &config.issue,
        now: UnixMs(START_MS),
    };
    let outcome = issue::publish(&target, &body, false).await.unwrap();
    assert!(
        matches!(outcome, issue::IssueOutcome::Created(_)),
        "{outcome:?}"
    );
    let published = story.issue_body();
    let length = published.encode_utf16().count();
    assert!(length <= MAX_BODY_LEN, "{length} long");
    expect!["> **Shortened to fit GitHub's size limit:** evidence shortened for 147 findings; insight shortened for 147 findings; 253 findings left out (the least severe). For every finding in full, run `gitlore export --repo acme/widgets --format html` where gitlore runs, or `gitlore analyze --github acme/widgets --format html` in a clone."].assert_eq(&line_containing(&published, "Shortened to fit"));
    assert!(published.contains("left out (the least severe)"));
    let shown = published
        .matches("- [ ] Dismiss <!-- gitlore:dismiss f-big-")
        .count();
    assert!(shown > 10 && shown < 400, "{shown} shown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runner_and_the_scheduler_work_in_the_background_and_stop_when_told() {
    let story = Story::new().await;
    let poll = Duration::from_millis(10);
    let settings = RunnerSettings {
        poll,
        ..RunnerSettings::default()
    };
    let background = story::runner(&story.app, &story.gh, &story.github, settings);
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let runner_stopped = stopped.clone();
    let runner_task = tokio::spawn(async move { background.run(runner_stopped).await });
    let clock = story.app.clock.clone() as Arc<dyn Clock>;
    let dir = story.app.path().to_path_buf();
    let scheduler_task = tokio::spawn(scheduler::run(
        story.app.store.clone(),
        clock,
        poll,
        dir,
        stopped,
    ));
    story.deliver_installation().await;
    eventually("the findings issue is published", || {
        story.issues().len() == 1
    })
    .await;
    let first = story.issue();
    story.advance(HOUR_MS);
    story.review_25_more().await;
    let edited = || story.issues().first().is_some_and(|i| i.body != first.body);
    let queued = || {
        let jobs = story.jobs();
        jobs.iter()
            .any(|j| j.kind == "analysis" && j.state == "pending")
    };
    eventually(
        "the scheduler queues the analysis (or it ran already)",
        || edited() || queued(),
    )
    .await;
    story.advance(scheduler::MAX_JITTER.as_millis() as i64);
    eventually("the scheduled run edits the issue", edited).await;
    assert_eq!(story.issue().number, first.number);
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
    let (pr, sha) = story.open_pull_checked(&[PATHS[0][0]]).await;
    story.review_25_more_an_hour_later().await;
    let (before, analysed) = (story.issue(), story.last_analysis_at());
    story.gh.clear_log();
    story.press_refresh_button(&sha, "maria").await;
    story.run_jobs().await;
    // The issue and this check run are refreshed, without a word.
    assert!(story.last_analysis_at() > analysed);
    story.assert_issue_edited(&before);
    story.check_run(&sha);
    assert_eq!(story.count_under("PATCH", "/check-runs/"), 1);
    story.assert_no_replies(pr);
    let reactions = story.count_under("POST", "/issues/comments/");
    assert_eq!(reactions, 0, "no reaction");
}

#[tokio::test]
async fn with_three_pins_taken_the_issue_goes_on_unpinned() {
    let story = Story::new().await;
    story.gh.seed(|m| {
        for title in ["Roadmap", "Contributing", "FAQ"] {
            let pinned = m.add_issue(REPO, title, "Pinned by the maintainers.", "erin");
            pinned.pinned = true;
        }
    });
    story.install().await;
    assert!(!story.issue().pinned, "not pinned");
    story.assert_all_jobs_done();
    assert!(!story.known_issue().pinned);
}

#[tokio::test]
async fn an_edit_answered_not_found_recreates_the_issue() {
    let story = Story::installed().await;
    let number = story.delete_issue_on_github();
    story.review_25_more_an_hour_later().await;
    story.gh.clear_log();
    assert_eq!(story.scheduled_run().await, 1);
    let path = format!("/repos/{REPO}/issues/{number}");
    let requests = story.gh.requests();
    let failed_edits = requests
        .iter()
        .filter(|r| r.method == "PATCH" && r.path == path && r.status == 404);
    assert_eq!(failed_edits.count(), 1, "the edit found the issue gone");
    assert_eq!(story.count_exact("POST", "/issues"), 1);
    assert_eq!(story.issues().len(), 1);
}

#[tokio::test]
async fn a_backfill_waiting_for_its_retry_shows_its_progress_in_the_issue() {
    let story = Story::new().await;
    // GitHub's GraphQL API fails every attempt of the client's first page read.
    let first_page = Target::graphql("BackfillPullRequests");
    story.gh.inject(first_page, Fault::ServerError(502), 4);
    story.deliver_installation().await;
    story.run_jobs().await;
    let progress = line_containing(&story.issue_body(), "Still reading");
    expect!["> **Still reading past reviews:** 0 pull requests so far. Findings will fill in as it goes."].assert_eq(&progress);
    story.advance(30_000);
    let ran = story.run_jobs().await;
    assert_eq!(ran, 2, "the backfill again, then its analysis");
    let body = story.issue_body();
    assert!(!body.contains("Still reading"), "{body}");
    assert!(
        body.contains("gitlore:dismiss"),
        "findings once the backfill is done"
    );
}

#[tokio::test]
async fn the_analysis_reads_the_git_history_from_the_repositorys_mirror() {
    let remotes = tempfile::tempdir().unwrap();
    let origin = remotes.path().join("acme/widgets.git");
    let start = START_MS / 1000 - 60 * 24 * 3600;
    // Half the commits change the two server files together, half change the docs.
    let server = [PATHS[0][0], PATHS[0][1]];
    common::git::history(&origin, start, 24, |i| {
        if i % 2 == 0 {
            server.to_vec()
        } else {
            vec!["docs/guide.md", "docs/faq.md"]
        }
    });
    let story = Story::with_history(remotes.path()).await;
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
    assert!(!body.contains("git history could not be read"), "{body}");
    let couplings = publications::couplings(&story.app.db(), RepoId(story.repo_id)).unwrap();
    let pair = |c: &gitlore::domain::history::Coupling| {
        [c.a.as_str(), c.b.as_str()] == server || [c.b.as_str(), c.a.as_str()] == server
    };
    assert!(couplings.iter().any(pair), "{couplings:#?}");
}

#[tokio::test]
async fn a_history_that_cannot_be_read_leaves_review_comments_and_a_note() {
    let remotes = tempfile::tempdir().unwrap(); // holds no repository
    let story = Story::with_history(remotes.path()).await;
    story.install().await;
    let body = story.issue_body();
    let note = line_containing(&body, "git history could not be read");
    expect!["> **Note:** The git history could not be read this time, so these findings come from review comments alone."].assert_eq(&note);
    assert!(
        body.contains("gitlore:dismiss"),
        "findings from review comments: {body}"
    );
}

#[tokio::test]
async fn a_lost_issue_row_finds_the_issue_again_by_its_marker_and_label() {
    let story = Story::installed().await;
    let number = story.issue().number;
    let repo_id = story.repo_id;
    let store = &story.app.store;
    store
        .write_derived(|tx| publications::forget_findings_issue(tx, RepoId(repo_id)))
        .unwrap();
    story.review_25_more_an_hour_later().await;
    story.gh.clear_log();
    assert_eq!(story.scheduled_run().await, 1);
    assert_eq!(story.count_exact("POST", "/issues"), 0);
    let found = story.issue();
    assert_eq!(found.number, number);
    let edits = story.count_exact("PATCH", &format!("/issues/{number}"));
    assert_eq!(edits, 1, "found again, then edited");
    let known = story.known_issue();
    assert_eq!((known.number as u64, known.body), (number, found.body));
}

#[tokio::test]
async fn a_job_that_keeps_failing_fails_for_good_after_five_attempts_with_its_error() {
    let story = Story::new().await;
    story.fail_requests("POST", "/issues", 502, 100);
    story.deliver_installation().await;
    story.run_jobs().await; // the backfill, and the analysis's first attempt
    for wait in [30_000, 120_000, 480_000, 1_920_000] {
        assert_eq!(story.run_jobs().await, 0, "not before its backoff");
        story.advance(wait);
        assert_eq!(story.run_jobs().await, 1);
    }
    let (state, attempts, error) = story.app.job_attempts("analysis");
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
    story.fail_requests("GET", "/contents/.github/gitlore.toml", 502, 4);
    story.deliver_installation().await;
    story.run_jobs().await;
    assert!(story.issues().is_empty(), "nothing published on a guess");
    story.advance(30_000);
    story.run_jobs().await;
    let body = story.issue_body();
    assert!(!body.contains("Config problem"), "{body}");
}

#[tokio::test]
async fn a_repo_config_that_is_not_utf8_is_shown_with_the_defaults_at_once() {
    let story = Story::new().await;
    let utf16: Vec<u8> = "\u{FEFF}[publish]\ncheck-run = false\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    story.set_repo_config_bytes(utf16);
    let logs = capture_logs();
    story.install().await; // the backfill, then the analysis: no retry
    let body = story.issue_body();
    let problem = body.contains("**Config problem:**") && body.contains("UTF-8");
    assert!(problem, "{body}");
    story.assert_all_jobs_done();
    assert!(logs.text().contains("UTF-8"), "{}", logs.text());
}

#[tokio::test]
async fn a_config_over_a_megabyte_and_one_excluding_everything_are_shown() {
    let too_big = format!("# {}\n", "x".repeat(1_100_000));
    let everyone =
        "[analysis]\nignore-authors = [\"alice\", \"bob\", \"carol\", \"dana\", \"erin\"]\n";
    let cases = [
        (too_big.as_str(), "larger than"),
        ("[analysis]\nignore-paths = [\"**\"]\n", "leaves out every"),
        (everyone, "leaves out every"),
    ];
    for (config, says) in cases {
        let story = Story::new().await;
        story.set_repo_config(config);
        story.install().await;
        let body = story.issue_body();
        assert!(body.contains(says), "{says:?} not in {body}");
    }
}

#[tokio::test]
async fn a_config_problem_is_logged_as_well_as_shown() {
    let story = Story::new().await;
    story.set_repo_config("[publish]\ncheck-run = false\n[analysis]\nwindow-months = \"twelve\"\n");
    let logs = capture_logs();
    story.install().await;
    let logs = logs.text();
    assert!(
        logs.contains("acme/widgets:.github/gitlore.toml line 4"),
        "{logs}"
    );
}

#[tokio::test]
async fn a_misspelt_key_keeps_the_rest_of_the_config_and_the_findings() {
    // Reviewed three years ago: only a whole-history window finds anything.
    let story = Story::reviewed(3 * 365 * 24 * HOUR_MS, true).await;
    story.set_repo_config(
        "[analysis]\nwindow-months = 0\nignore-path = [\"docs/**\"]\n[publsh]\nissue = true\n",
    );
    story.install().await;
    assert!(
        story.active_findings().len() >= 4,
        "the window still applies"
    );
    let body = story.issue_body();
    let problems: Vec<&str> = body
        .lines()
        .filter(|l| l.contains("Config problem"))
        .collect();
    assert_eq!(problems.len(), 2, "each problem shown: {body}");
    assert!(
        problems[0].contains("line 3: \\[analysis\\] unknown field `ignore-path`"),
        "{body}"
    );
}

#[tokio::test]
async fn a_config_that_is_not_toml_leaves_the_last_good_one_in_force() {
    let story = Story::reviewed(3 * 365 * 24 * HOUR_MS, true).await;
    story.set_repo_config("[analysis]\nwindow-months = 0\n");
    story.install().await;
    let before = story.active_findings().len();
    assert!(before >= 4, "the whole history's findings");
    story.set_repo_config("[analysis]\nwindow-months = 0\nignore-paths = [\"docs/**\"\n");
    story.refresh_by("maria", None).await;
    assert_eq!(
        story.active_findings().len(),
        before,
        "the last good config still applies"
    );
    let body = story.issue_body();
    let problem = line_containing(&body, "Config problem");
    assert!(
        problem.contains("the last good configuration applies"),
        "{problem}"
    );
}

#[tokio::test]
async fn a_model_out_of_reach_is_noted_without_its_address() {
    let mut story = Story::new().await;
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = closed.local_addr().unwrap().to_string();
    drop(closed); // nothing listens there: the model cannot be reached
    let llm = LlmClient::new(LlmSettings {
        provider: Provider::OpenAi,
        base_url: format!("http://{address}/v1"),
        api_key: None,
        model: "m".into(),
        timeout: Duration::from_secs(5),
        max_tokens: 100,
        context_tokens: 128_000,
        max_retry_wait: Duration::ZERO,
        daily_tokens: None,
    })
    .unwrap();
    story.set_models(Models {
        llm: Some(llm),
        embedder: None,
    });
    story.install().await;
    let body = story.issue_body();
    let notes: Vec<&str> = body.lines().filter(|l| l.contains("**Note:**")).collect();
    assert!(!notes.is_empty(), "the fallback is noted: {body}");
    assert!(!body.contains(&address), "{body}");
    let report = run_reports::load(&story.app.db(), RepoId(story.repo_id))
        .unwrap()
        .unwrap();
    assert!(!report.notes.is_empty(), "the web page notes it too");
    assert!(
        !format!("{:?}", report.notes).contains(&address),
        "{:?}",
        report.notes
    );
}

#[tokio::test]
async fn a_whole_history_window_backfills_old_and_closed_pull_requests() {
    // Reviewed three years ago, half on pull requests closed without merging.
    let story = Story::reviewed(3 * 365 * 24 * HOUR_MS, true).await;
    story.set_repo_config("[analysis]\nwindow-months = 0\n");
    story.install().await;
    let read = story.app.stored_comments(REPO);
    assert_eq!(read, 48, "every review comment of the 21 pull requests");
    let found = story.active_findings();
    assert!(found.len() >= 4, "the themes become findings: {found:#?}");
    let closed_pr = 2; // theme 0, part 1: closed without merging
    let cited = format!("/{REPO}/pull/{closed_pr}#discussion_r");
    let body = story.issue_body();
    assert!(
        body.contains(&cited),
        "review evidence from a closed pull request: {body}"
    );
}

#[tokio::test]
async fn the_default_window_leaves_reviews_older_than_a_year_unread() {
    let story = Story::reviewed(3 * 365 * 24 * HOUR_MS, false).await;
    story.install().await;
    assert_eq!(story.app.stored_comments(REPO), 0);
}

#[tokio::test]
async fn a_push_to_the_default_branch_makes_the_scheduled_run_due() {
    let story = Story::installed().await;
    story.advance(25 * HOUR_MS);
    assert_eq!(story.scheduled_run().await, 0, "nothing changed yet");
    story.push_default_branch().await;
    assert_eq!(story.scheduled_run().await, 1, "the push is a change");
    assert_eq!(story.scheduled_run().await, 0, "and counted once");
}

#[tokio::test]
async fn a_pull_request_nothing_applies_to_gets_a_neutral_check_run_saying_so() {
    let story = Story::installed().await;
    let sha = story.open_pull_checked(&["docs/guide.md"]).await.1;
    let run = story.check_run(&sha);
    expect![[
        r#"Nothing gitlore learned from past reviews touches the files this pull request changes."#
    ]]
    .assert_eq(&run.summary);
    assert_eq!(run.conclusion, "neutral");
}

#[tokio::test]
async fn a_readers_ticked_dismiss_box_is_ignored() {
    let story = Story::installed().await;
    let dismissed = story.active_findings()[0].id.clone();
    story.tick_dismiss_box(&dismissed, "rita").await;
    assert!(story.is_active(&dismissed));
}

#[tokio::test]
async fn a_check_run_github_failed_to_create_is_created_once_later() {
    let story = Story::installed().await;
    story.fail_requests("POST", "/check-runs", 503, 4);
    let (_, sha) = story.open_pull_checked(&[PATHS[0][0]]).await;
    assert!(story.check_runs(&sha).is_empty());
    story.advance(30_000);
    story.run_jobs().await;
    assert_eq!(story.check_runs(&sha).len(), 1, "one check run, not two");
}

#[tokio::test]
async fn a_readers_press_on_the_refresh_button_does_nothing() {
    let story = Story::installed().await;
    let (_, sha) = story.open_pull_checked(&[PATHS[0][0]]).await;
    story.review_25_more_an_hour_later().await;
    let analysed = story.last_analysis_at();
    story.press_refresh_button(&sha, "rita").await;
    story.run_jobs().await;
    assert_eq!(story.last_analysis_at(), analysed);
}

#[tokio::test]
async fn a_mention_quoted_from_a_review_pings_nobody() {
    let story = Story::installed().await;
    story.advance(HOUR_MS);
    for i in 0..25 {
        let body = format!("@erin {} (again, {i})", THEMES[0][i % 8]);
        let line = 100 + i as u64;
        story
            .review(1, ["alice", "bob"][i % 2], PATHS[0][0], line, &body)
            .await;
    }
    assert_eq!(story.scheduled_run().await, 1);
    let body = story.issue_body();
    assert!(
        body.contains("(again, "),
        "the new comments are quoted: {body}"
    );
    assert!(!body.contains("@erin"), "{body}");
}

/// `count` pull requests opened on GitHub a minute apart, no webhook delivered (as before the
/// installation): their numbers and heads, oldest first.
fn pulls_opened_before_install(story: &Story, count: usize) -> Vec<(i64, String)> {
    (0..count)
        .map(|_| {
            story.advance(MINUTE_MS);
            let (number, sha, _not_delivered) =
                story.gh.act_open_pull(REPO, "erin", &[PATHS[0][0]]);
            (number as i64, sha)
        })
        .collect()
}

#[tokio::test]
async fn pull_requests_open_at_install_get_a_check_run_each_the_newest_thirty_linking_the_web_page()
{
    let mut story = Story::new().await;
    story.set_runner(RunnerSettings {
        public_url: Some("https://gitlore.example.com/".into()),
        ..RunnerSettings::default()
    });
    let opened = pulls_opened_before_install(&story, 32);
    story.install().await;
    let (older, newest) = opened.split_at(2);
    for (pr, sha) in newest {
        let run = story.check_run(sha);
        assert_eq!(
            run.details_url.as_deref(),
            Some("https://gitlore.example.com/repos/acme/widgets"),
            "#{pr}"
        );
    }
    for (pr, sha) in older {
        assert!(
            story.check_runs(sha).is_empty(),
            "#{pr} is beyond the 30 newest"
        );
    }
    assert_eq!(story.count_exact("POST", "/check-runs"), 30);

    // `/gitlore refresh` on one the installation left out gives it its check run; the others
    // keep theirs (one per head commit).
    story.advance(HOUR_MS);
    let (pr, sha) = older[0].clone();
    story.refresh_by("maria", Some((pr, sha.clone()))).await;
    story.check_run(&sha);
    for (_, sha) in newest {
        story.check_run(sha);
    }
}

#[tokio::test]
async fn the_refresh_button_in_the_cooldown_says_in_the_check_run_when_it_works_again() {
    let story = Story::installed().await;
    story.advance(HOUR_MS);
    let (pr, sha) = story.open_pull_checked(&[PATHS[0][0]]).await;
    story.refresh_by("maria", Some((pr, sha.clone()))).await;
    let before = story.check_run(&sha);
    story.advance(3 * MINUTE_MS);
    story.press_refresh_button(&sha, "maria").await;
    story.run_jobs().await;
    let after = story.check_run(&sha);
    let said = line_containing(&after.summary, "works again");
    expect!["Refreshed a moment ago: the Refresh button works again in 7 minutes."]
        .assert_eq(&said);
    assert!(
        !before.summary.contains("works again"),
        "{}",
        before.summary
    );
    story.assert_no_replies(pr);
}
