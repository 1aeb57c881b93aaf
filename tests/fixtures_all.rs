//! Every real payload in tests/fixtures/webhooks goes through the real router and worker, and each
//! event kind of behaviour §1's table leaves the rows it should.

mod common;

use axum::http::StatusCode;
use common::{APP_ID, TestApp, fixture, fixtures_dir};
use gitlore::domain::{CommentKind, PrNumber};
use gitlore::store::{comments, deliveries, jobs};
use serde_json::json;

/// The event name of a fixture file: `<event>.<action>.<n>.json`.
fn event_of(file: &str) -> &str {
    file.split('.').next().unwrap()
}

#[tokio::test]
async fn every_fixture_is_accepted_and_none_fails() {
    let app = TestApp::new();
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert!(names.len() >= 100, "fixtures missing: {}", names.len());
    for name in &names {
        let status = app.send(event_of(name), &fixture(name)).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{name}");
    }
    let stats = app.drain();
    assert_eq!(stats.total(), names.len());
    assert_eq!((stats.failed, stats.retried), (0, 0), "{stats:?}");
    assert!(stats.done >= 25, "{stats:?}");
    let states = deliveries::count_by_state(&app.db()).unwrap();
    assert_eq!(states[0], ("pending", 0));
}

/// Sends fixtures in order to a fresh app and drains it.
async fn run(files: &[&str]) -> TestApp {
    let app = TestApp::new();
    for file in files {
        assert_eq!(
            app.send(event_of(file), &fixture(file)).await,
            StatusCode::ACCEPTED
        );
    }
    app.drain();
    app
}

/// Sends payloads to a fresh app and drains it.
async fn run_payloads(payloads: &[(&str, serde_json::Value)]) -> TestApp {
    let app = TestApp::new();
    for (event, payload) in payloads {
        assert_eq!(app.send(event, payload).await, StatusCode::ACCEPTED);
    }
    app.drain();
    app
}

/// A fixture with its installation id replaced (the fixtures come from different installations).
fn in_installation(file: &str, id: i64) -> serde_json::Value {
    let mut payload = fixture(file);
    payload["installation"]["id"] = json!(id);
    payload
}

#[tokio::test]
async fn installation_created_registers_repos_and_queues_backfill() {
    let app = run(&["installation.created.1.json"]).await;
    assert_eq!(
        app.count(
            "SELECT count(*) FROM installations WHERE id = 957387 AND account_login = 'Codertocat'"
        ),
        1
    );
    assert_eq!(app.count("SELECT count(*) FROM repos WHERE full_name = 'codertocat/hello-world' AND installation_id = 957387"), 1);
    let queued = jobs::list(&app.db()).unwrap();
    assert_eq!(queued.len(), 1);
    assert_eq!(
        (queued[0].kind.as_str(), queued[0].payload["repo"].as_str()),
        ("backfill", Some("codertocat/hello-world"))
    );
}

#[tokio::test]
async fn installation_suspend_and_delete() {
    let app = run_payloads(&[
        ("installation", fixture("installation.created.1.json")),
        (
            "installation",
            in_installation("installation.suspend.5.json", 957387),
        ),
    ])
    .await;
    assert_eq!(
        app.count("SELECT suspended FROM installations WHERE id = 957387"),
        1
    );

    let mut comment = fixture("pull_request_review_comment.created.1.json");
    comment["installation"] = json!({ "id": 957387 });
    let app = run_payloads(&[
        ("installation", fixture("installation.created.1.json")),
        ("pull_request_review_comment", comment.clone()),
        (
            "installation",
            in_installation("installation.deleted.0.json", 957387),
        ),
    ])
    .await;
    assert_eq!(
        app.count("SELECT deleted FROM installations WHERE id = 957387"),
        1
    );
    assert_eq!(app.count("SELECT count(*) FROM comments"), 0);
    assert_eq!(app.count("SELECT count(*) FROM jobs"), 0);
    assert_eq!(
        app.count("SELECT removed FROM repos WHERE id = 186853002"),
        1
    );
    // A late event of the uninstalled installation brings nothing back.
    app.send("pull_request_review_comment", &comment).await;
    assert_eq!(app.drain().ignored, 1);
    assert_eq!(app.count("SELECT count(*) FROM comments"), 0);
}

#[tokio::test]
async fn installation_repositories_added_and_removed() {
    let app = run(&["installation_repositories.added.0.json"]).await;
    assert_eq!(
        app.count(
            "SELECT count(*) FROM repos WHERE full_name = 'codertocat/space' AND removed = 0"
        ),
        1
    );
    assert_eq!(
        app.count("SELECT count(*) FROM jobs WHERE kind = 'backfill'"),
        1
    );
    let mut removed = in_installation("installation_repositories.removed.2.json", 957387);
    removed["repositories_removed"] =
        fixture("installation_repositories.added.0.json")["repositories_added"].clone();
    let app = run_payloads(&[
        (
            "installation_repositories",
            fixture("installation_repositories.added.0.json"),
        ),
        ("installation_repositories", removed),
    ])
    .await;
    assert_eq!(
        app.count(
            "SELECT count(*) FROM repos WHERE full_name = 'codertocat/space' AND removed = 1"
        ),
        1
    );
    assert_eq!(app.count("SELECT count(*) FROM jobs"), 0);
}

#[tokio::test]
async fn review_comments_are_stored_edited_and_tombstoned() {
    let app = run(&["pull_request_review_comment.created.1.json"]).await;
    let c = comments::get(&app.db(), CommentKind::Inline, 2_000_000).unwrap();
    assert!(c.is_none());
    let stored = comments::list_for_repo(&app.db(), "Codertocat/Hello-World").unwrap();
    assert_eq!(stored.len(), 1);
    let c = &stored[0];
    let place = (c.kind.as_str(), c.pr_number, c.path.as_deref());
    assert_eq!(place, ("inline", PrNumber(2), Some("README.md")));
    assert!(c.labels.is_some(), "classified on arrival");
    let title = c.pr_title.as_deref();
    assert_eq!(title, Some("Update the README with new information."));
}

#[tokio::test]
async fn review_bodies_are_stored_with_their_state() {
    let app = run(&["pull_request_review.submitted.2.json"]).await;
    assert_eq!(
        app.count("SELECT count(*) FROM comments"),
        0,
        "an empty review body is not a comment"
    );
    let app = TestApp::new();
    let mut review = fixture("pull_request_review.submitted.2.json");
    review["review"]["body"] = json!("Please split this function; it does parsing and IO.");
    review["review"]["state"] = json!("changes_requested");
    app.send("pull_request_review", &review).await;
    app.drain();
    let stored = comments::list_for_repo(&app.db(), "codertocat/hello-world").unwrap();
    assert_eq!(
        (stored[0].kind.as_str(), stored[0].review_state.as_deref()),
        ("review", Some("changes_requested"))
    );
}

#[tokio::test]
async fn thread_resolution_marks_the_threads_comments() {
    let app = TestApp::new();
    app.send(
        "pull_request_review_comment",
        &common::review_comment("created", 10, "This leaks the handle on error.", 1),
    )
    .await;
    app.send(
        "pull_request_review_comment",
        &common::reply(11, 10, "Good catch, will fix."),
    )
    .await;
    app.send(
        "pull_request_review_thread",
        &common::thread("resolved", 10),
    )
    .await;
    app.drain();
    assert_eq!(
        app.count("SELECT count(*) FROM comments WHERE resolved = 1"),
        2
    );
    app.send(
        "pull_request_review_thread",
        &common::thread("unresolved", 10),
    )
    .await;
    app.drain();
    assert_eq!(
        app.count("SELECT count(*) FROM comments WHERE resolved = 1"),
        0
    );
}

#[tokio::test]
async fn issue_comments_count_only_on_pull_requests() {
    let app = run(&["issue_comment.created.0.json"]).await;
    assert_eq!(app.count("SELECT count(*) FROM comments"), 0);
    app.send(
        "issue_comment",
        &common::conversation_comment(
            "created",
            77,
            "This should go through the repository layer, not raw SQL.",
            "alice",
        ),
    )
    .await;
    app.drain();
    assert_eq!(app.count("SELECT count(*) FROM comments WHERE kind = 'conversation' AND pr_number = 1 AND noise IS NULL"), 1);
}

#[tokio::test]
async fn pull_requests_are_tracked_and_queue_check_runs() {
    let mut pushed = fixture("pull_request.synchronize.22.json");
    pushed["pull_request"]["head"]["sha"] = json!("0123456789abcdef0123456789abcdef01234567");
    let app = run_payloads(&[
        ("pull_request", fixture("pull_request.opened.12.json")),
        ("pull_request", fixture("pull_request.synchronize.22.json")),
        ("pull_request", pushed),
        ("pull_request", fixture("pull_request.closed.3.json")),
    ])
    .await;
    assert_eq!(app.count("SELECT count(*) FROM pull_requests"), 1);
    assert_eq!(
        app.count("SELECT count(*) FROM jobs WHERE kind = 'check_run'"),
        2,
        "one per head sha"
    );
    let closed = fixture("pull_request.closed.3.json");
    let merged = closed["pull_request"]["merged"].as_bool().unwrap();
    assert_eq!(app.count("SELECT merged FROM pull_requests") == 1, merged);
    assert_eq!(app.count("SELECT state = 'closed' FROM pull_requests"), 1);
}

/// The stored (number, author) of every pull request.
fn pull_request_authors(app: &TestApp) -> Vec<(i64, Option<String>)> {
    app.db()
        .prepare("SELECT number, author_login FROM pull_requests ORDER BY number")
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<gitlore::store::sql::Result<_>>()
        .unwrap()
}

#[tokio::test]
async fn every_pull_request_event_stores_who_opened_it() {
    let mut issue_comment = fixture("issue_comment.created.0.json");
    issue_comment["issue"]["pull_request"] = json!({ "url": "u", "merged_at": null });
    issue_comment["issue"]["user"]["login"] = json!("opener");
    let cases = [
        ("pull_request", fixture("pull_request.opened.12.json")),
        (
            "pull_request_review",
            fixture("pull_request_review.submitted.0.json"),
        ),
        (
            "pull_request_review_comment",
            fixture("pull_request_review_comment.created.0.json"),
        ),
        (
            "pull_request_review_thread",
            fixture("pull_request_review_thread.resolved.0.json"),
        ),
        ("issue_comment", issue_comment),
    ];
    for (event, payload) in cases {
        let pr = if event == "issue_comment" {
            &payload["issue"]
        } else {
            &payload["pull_request"]
        };
        let expected = (
            pr["number"].as_i64().unwrap(),
            Some(pr["user"]["login"].as_str().unwrap().to_string()),
        );
        let app = run_payloads(&[(event, payload.clone())]).await;
        assert_eq!(pull_request_authors(&app), [expected], "{event}");
    }
}

#[tokio::test]
async fn a_comment_knows_whether_the_pull_requests_author_wrote_it() {
    // PR 1's issue is opened by Codertocat in the fixture.
    let app = run_payloads(&[
        (
            "issue_comment",
            common::conversation_comment("created", 81, "Done, thanks!", "Codertocat"),
        ),
        (
            "issue_comment",
            common::conversation_comment("created", 82, "Please add a test.", "alice"),
        ),
    ])
    .await;
    let by_pr_author = |id| {
        comments::get(&app.db(), CommentKind::Conversation, id)
            .unwrap()
            .unwrap()
            .by_pr_author()
    };
    assert!(by_pr_author(81));
    assert!(!by_pr_author(82));
    // A pull request event without the author (a trimmed payload) keeps the stored one.
    let mut later = fixture("pull_request.closed.3.json");
    later["pull_request"]["number"] = json!(1);
    later["pull_request"]["updated_at"] = json!("2030-01-01T00:00:00Z");
    later["pull_request"]["user"] = serde_json::Value::Null;
    later["installation"] = json!({ "id": 1, "node_id": "x" });
    app.send("pull_request", &later).await;
    app.drain();
    assert_eq!(app.count("SELECT state = 'closed' FROM pull_requests"), 1);
    assert_eq!(
        pull_request_authors(&app),
        [(1, Some("Codertocat".to_string()))]
    );
    assert!(by_pr_author(81));
}

#[tokio::test]
async fn findings_issue_edits_queue_dismissals() {
    let app = run(&["issues.edited.0.json"]).await;
    assert_eq!(
        app.count("SELECT count(*) FROM jobs"),
        0,
        "not gitlore's issue"
    );
    let mut edited = fixture("issues.edited.0.json");
    edited["issue"]["body"] = json!(format!(
        "{}\n- [x] dismiss `f-1`",
        gitlore::domain::markers::FINDINGS_MARKER
    ));
    app.send("issues", &edited).await;
    app.drain();
    let queued = jobs::list(&app.db()).unwrap();
    assert_eq!((queued.len(), queued[0].kind.as_str()), (1, "dismissals"));
}

#[tokio::test]
async fn the_refresh_button_of_our_check_run_queues_a_refresh() {
    let mut ours = fixture("check_run.requested_action.6.json");
    ours["check_run"]["app"]["id"] = json!(APP_ID);
    ours["requested_action"]["identifier"] = json!("refresh");
    let app = run_payloads(&[("check_run", ours)]).await;
    let queued = jobs::list(&app.db()).unwrap();
    let command = (
        queued[0].kind.as_str(),
        queued[0].payload["command"].as_str(),
    );
    assert_eq!(command, ("command", Some("refresh")));
    assert_eq!(queued[0].payload["prs"], json!([26764]));
}

#[tokio::test]
async fn pushes_to_the_default_branch_mark_the_mirror_stale() {
    let app = run(&["push.none.3.json"]).await; // a tag push: registers the repo, nothing more
    app.write(|tx| Ok(tx.execute("UPDATE repos SET mirror_stale = 0", [])?));
    let mut push = fixture("push.none.3.json");
    push["ref"] = json!("refs/heads/feature");
    app.send("push", &push).await;
    app.drain();
    assert_eq!(app.count("SELECT mirror_stale FROM repos"), 0);
    push["ref"] = json!("refs/heads/master");
    app.send("push", &push).await;
    app.drain();
    assert_eq!(app.count("SELECT mirror_stale FROM repos"), 1);
}

#[tokio::test]
async fn a_deleted_review_comment_is_a_tombstone_without_body_or_labels() {
    let app = run(&[
        "pull_request_review_comment.created.1.json",
        "pull_request_review_comment.deleted.3.json",
    ])
    .await;
    let stored = comments::list_for_repo(&app.db(), "codertocat/hello-world").unwrap();
    assert!(stored[0].deleted && stored[0].body.is_empty() && stored[0].labels.is_none());
}

#[tokio::test]
async fn the_refresh_button_of_another_apps_check_run_queues_nothing() {
    let app = run(&["check_run.requested_action.6.json"]).await;
    let queued = jobs::list(&app.db()).unwrap();
    assert!(queued.is_empty(), "another app's check run: {queued:?}");
}
