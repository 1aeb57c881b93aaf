//! The lesson-effect story against the fake GitHub (behaviour §3.4): a published lesson raised
//! again in later pull requests touching its paths shows those repeats in the findings issue, on
//! the repository's web page, in the JSON export and on `/metrics`; unchanged figures publish nothing; a
//! repository with the hold-back publishes its held-back lessons once their weeks are over.

mod common;
mod fake_github;
#[path = "common/story.rs"]
mod story;

use std::collections::HashMap;

use axum::body::Body;
use gitlore::clock::Clock;
use gitlore::config::Settings;
use gitlore::lessons::report;
use gitlore::web::{self, WebState};
use http::Request;
use http_body_util::BodyExt;
use tower::ServiceExt;

use common::corpus::THEMES;
use common::snapshot::line_containing;
use story::{HOUR_MS, PATHS, REPO, Story};

const DAY_MS: i64 = 24 * HOUR_MS;

/// The lesson about the unwrap theme's directory, `src/server/`.
fn server_lesson(story: &Story) -> String {
    let findings = story.active_findings();
    let lesson = findings
        .iter()
        .find(|f| f.id.starts_with("f-t-") && f.files.iter().any(|p| p.starts_with("src/server/")));
    lesson.expect("a lesson about src/server/").id.clone()
}

/// Twelve days after the issue was published, alice raises the unwrap theme again on two new
/// pull requests changing `src/server/webhook.rs`; then maria refreshes.
async fn raised_twice_since(story: &Story) {
    story.advance(12 * DAY_MS);
    let mut last = None;
    for (i, said) in THEMES[0].iter().take(2).enumerate() {
        let (pr, sha) = story.open_pull(&[PATHS[0][0]]).await;
        let body = format!("{said} (again, {i})");
        story
            .review(pr, "alice", PATHS[0][0], 40 + i as u64, &body)
            .await;
        last = Some((pr, sha));
    }
    story.refresh_by("maria", last).await;
}

/// The repository's web page as an anonymous visitor gets it.
async fn web_page(story: &Story) -> String {
    let key = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/test-app-key.pem"
    );
    let vars: HashMap<&str, String> = [
        ("GITLORE_APP_ID", "4242".to_string()),
        ("GITLORE_PRIVATE_KEY_PATH", key.to_string()),
        ("GITLORE_WEBHOOK_SECRET", "whsec".to_string()),
        ("GITLORE_GITHUB_API_URL", story.gh.base_url()),
    ]
    .into_iter()
    .collect();
    let settings = Settings::from_sources(None, &|name| vars.get(name).cloned()).unwrap();
    let clock = story.app.clock.clone() as std::sync::Arc<dyn Clock>;
    let state = WebState::new(&settings, story.app.store.clone(), clock).unwrap();
    let answer = web::router(state)
        .oneshot(
            Request::get(format!("/repos/{REPO}"))
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let bytes = answer.into_body().collect().await.unwrap().to_bytes();
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[tokio::test]
async fn repeats_of_a_published_lesson_show_on_the_issue_the_page_and_in_json() {
    let story = Story::new().await;
    story.gh.seed(|m| m.add_repo(REPO).private = false);
    story.install().await;
    let lesson = server_lesson(&story);
    assert!(
        !story.issue_body().contains("Raised in"),
        "nothing to say yet"
    );
    raised_twice_since(&story).await;
    let expected = "Raised in 4 pull requests in the 12 days before it was written down, 2 in \
         the 12 days since; too early to tell whether that is a change: 2 pull requests touching \
         `src/server/` since and 4 before, 10 needed in each.";
    let line = line_containing(&story.issue_body(), "touching `src/server/`");
    assert_eq!(line, expected);
    let page = web_page(&story).await;
    assert!(page.contains(&expected.replace('`', "")), "{page}");
    let conn = story.app.db();
    let repo = report::find_repo(&conn, Some(REPO)).unwrap();
    let json = serde_json::to_value(report::load(&conn, &repo, None).unwrap().json()).unwrap();
    let lessons = json["effect"]["lessons"].as_array().unwrap();
    let measured = lessons.iter().find(|l| l["finding_id"] == lesson.as_str());
    let measured = measured.expect("the lesson is measured");
    assert_eq!(measured["since"]["raised"], 2);
    assert_eq!(measured["before"]["raised"], 4);
    assert_eq!(measured["ratio"]["verdict"], "too_early");
    let (_, _, metrics) = story.app.get("/metrics").await;
    let too_early = line_containing(&metrics, "gitlore_lessons_by_effect{verdict=\"too_early\"}");
    let count: usize = too_early.rsplit(' ').next().unwrap().parse().unwrap();
    assert_eq!(count, lessons.len(), "{metrics}");
}

#[tokio::test]
async fn unchanged_figures_leave_the_issue_alone() {
    let story = Story::installed().await;
    raised_twice_since(&story).await;
    let before = story.issue();
    assert!(
        before.body.contains("2 in the 12 days since"),
        "{}",
        before.body
    );
    story.advance(HOUR_MS);
    story.gh.clear_log();
    let analysed_before = story.last_analysis_at();
    story.refresh_by("maria", None).await;
    assert!(
        story.last_analysis_at() > analysed_before,
        "the analysis ran"
    );
    let issue = format!("/issues/{}", before.number);
    assert_eq!(
        story.count_exact("PATCH", &issue),
        0,
        "{:#?}",
        story.gh.writes()
    );
    assert_eq!(story.issue_body(), before.body);
}

#[tokio::test]
async fn held_back_lessons_are_published_after_their_weeks() {
    let story = Story::new().await;
    story.set_repo_config("[effect]\nholdback-percent = 100\nholdback-weeks = 2\n");
    story.install().await;
    let held = story.active_findings();
    assert!(!held.is_empty());
    let body = story.issue_body();
    for finding in &held {
        assert!(
            !body.contains(&finding.id),
            "{} is held back:\n{body}",
            finding.id
        );
    }
    story.advance(13 * DAY_MS);
    story.refresh_by("maria", None).await;
    assert!(!story.issue_body().contains(&held[0].id), "still held back");
    story.advance(DAY_MS + HOUR_MS);
    story.refresh_by("maria", None).await;
    let body = story.issue_body();
    for finding in &held {
        assert!(
            body.contains(&finding.id),
            "{} is published:\n{body}",
            finding.id
        );
    }
}
