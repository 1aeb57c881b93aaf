//! `gitlore migrate-store`: an installation's SQLite store, copied into PostgreSQL, keeps every
//! row but the sign-in sessions; the next analysis on the copy publishes nothing new; a store
//! that holds data is never copied into.

mod common;
mod fake_github;
#[path = "common/story.rs"]
mod story;

use std::process::Command;
use std::time::Duration;

use common::TestApp;
use common::backend::{TestDatabase, empty_postgres};
use gitlore::clock::Clock;
use gitlore::domain::RepoId;
use gitlore::domain::Secret;
use gitlore::domain::job::{Analysis, AnalysisReason, Job};
use gitlore::store::{Database, comments, jobs, web_sessions};
use gitlore::worker::WorkerSettings;
use story::Story;

fn migrate_store(from: &str, to: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gitlore"))
        .args(["migrate-store", "--from", from, "--to", to])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("GITLORE_LOG", "warn")
        .output()
        .unwrap()
}

#[tokio::test]
async fn a_store_copied_to_postgres_publishes_nothing_new_at_its_next_analysis() {
    let Some((database, schema)) = empty_postgres() else {
        return;
    };
    let Database::Postgres { url, .. } = &database else {
        unreachable!("empty_postgres gives a PostgreSQL database")
    };
    let story = Story::installed().await;
    assert_eq!(
        story.count_exact("POST", "/issues"),
        1,
        "the findings issue"
    );
    let sqlite = format!("sqlite:{}", story.app.path().join("gitlore.db").display());
    // A signed-in person: sessions are left behind on purpose, not refused as unknown.
    story.app.write(|tx| {
        web_sessions::insert(
            tx,
            &"a".repeat(64),
            "alice",
            &Secret::new("gho_x"),
            i64::MAX,
        )
    });

    let out = migrate_store(&sqlite, url);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("every table's count matches"), "{stdout}");
    assert!(
        !stdout.contains("gitlore_test:"),
        "no password printed: {stdout}"
    );

    let again = migrate_store(&sqlite, url);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(!again.status.success(), "a second copy is refused");
    assert!(stderr.contains("already holds data"), "{stderr}");

    let copy = TestDatabase::open(database.clone(), schema);
    let app = TestApp::on(
        tempfile::tempdir().unwrap(),
        copy,
        WorkerSettings::default(),
    );
    let elapsed = story.app.clock.now().0 - app.clock.now().0;
    app.clock
        .advance(Duration::from_millis(u64::try_from(elapsed).unwrap()));
    assert_eq!(app.count("SELECT count(*) FROM web_sessions"), 0);
    assert_eq!(
        comments::counts(&app.db()).unwrap(),
        comments::counts(&story.app.db()).unwrap(),
        "every comment, deleted and noise ones too"
    );
    let requests_before = story.gh.requests().len();
    let analysis = Job::Analysis(Analysis {
        reason: AnalysisReason::Schedule,
    });
    let now = app.clock.now();
    app.write(|tx| jobs::enqueue_again(tx, RepoId(story.repo_id), &analysis, now));
    let runner = story::runner(
        &app,
        &story.gh,
        &story.github,
        gitlore::runner::RunnerSettings::default(),
    );
    assert_eq!(
        runner.drain().await.unwrap(),
        1,
        "the analysis ran on the copy"
    );
    let writes: Vec<String> = story.gh.requests()[requests_before..]
        .iter()
        .filter(|r| r.method != "GET")
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    let quiet: Vec<&String> = writes
        .iter()
        .filter(|w| !w.ends_with("/access_tokens"))
        .collect();
    assert!(quiet.is_empty(), "nothing new is published: {quiet:?}");
}

#[test]
fn a_missing_source_or_an_unknown_store_is_refused_by_name() {
    let out = migrate_store("sqlite:/nonexistent/gitlore.db", "sqlite:/tmp/elsewhere.db");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("--from: there is no database"), "{stderr}");
    let out = migrate_store("mysql://x", "sqlite:/tmp/x.db");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--from takes sqlite:PATH or a postgres:// URL"),
        "{stderr}"
    );
}
