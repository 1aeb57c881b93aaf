//! Publication state: the findings issue row, check runs, the scheduler's activity figures and
//! the refresh cooldown.

mod common;

use std::time::Duration;

use common::store::TestStore;
use gitlore::domain::history::Coupling;
use gitlore::domain::{Author, Comment, CommentKind, PrNumber, RepoId, UnixMs};
use gitlore::scheduler::{self, MAX_JITTER};
use gitlore::store::publications::{self, PublishedCheckRun, PublishedIssue, RepoActivity};
use gitlore::store::{comments, jobs};

/// acme/widgets (id 7), installed as installation 99.
fn widgets() -> TestStore {
    TestStore::with_repos(&[(7, "acme/widgets")], Some(99))
}

/// ana's conversation comment `github_id` on PR 1, last updated at `updated_at`; its store id.
fn add_comment(db: &TestStore, github_id: i64, updated_at: i64) {
    let ana = Author {
        login: "ana".into(),
        ..Author::default()
    };
    let body = format!("Please wrap this error with context ({github_id}).");
    let comment = Comment {
        created_at: Some(updated_at),
        ..Comment::new(CommentKind::Conversation, github_id, ana, body, updated_at)
    };
    let version = comments::Version {
        body_hash: "h",
        noise: None,
        wins_tie: false,
    };
    db.write(|tx| comments::upsert(tx, RepoId(7), PrNumber(1), &comment, &version).map(drop));
}

/// The one repository's activity.
fn activity(db: &TestStore) -> RepoActivity {
    let all = db.read(publications::activity);
    assert_eq!(all.len(), 1);
    all.into_iter().next().unwrap()
}

/// The activity's (last run, new comments, changed).
fn figures(db: &TestStore) -> (Option<UnixMs>, i64, bool) {
    let a = activity(db);
    (a.last_run_at, a.new_comments, a.changed)
}

/// Records an analysis at `now` (ms) that read the comments up to store id `newest`.
fn record_analysis(db: &TestStore, now: i64, newest: i64) {
    db.write(|tx| {
        publications::record_analysis(tx, RepoId(7), UnixMs(now), newest, &Default::default())
    });
}

#[test]
fn activity_counts_what_arrived_since_the_last_analysis() {
    let db = widgets();
    assert_eq!(figures(&db), (None, 0, false));
    for id in 1..=3 {
        add_comment(&db, id, 1_000);
    }
    assert_eq!(figures(&db), (None, 3, true));
    let stored = db.read(|conn| comments::list_for_repo(conn, "acme/widgets"));
    let newest = stored.iter().map(|c| c.id).max().unwrap();
    record_analysis(&db, 2_000_000, newest);
    assert_eq!(figures(&db), (Some(UnixMs(2_000_000)), 0, false));
    add_comment(&db, 4, 3_000);
    assert_eq!(figures(&db), (Some(UnixMs(2_000_000)), 1, true));
}

#[test]
fn the_refresh_cooldown_admits_one_refresh_per_window() {
    let db = widgets();
    let take = |job: i64, now: i64| {
        db.write(|tx| {
            publications::take_refresh_slot(
                tx,
                RepoId(7),
                job,
                UnixMs(now),
                Duration::from_secs(600),
            )
        })
    };
    assert!(take(1, 1_000_000));
    assert!(!take(2, 1_000_001));
    assert!(
        take(1, 1_300_000),
        "a retry of the job that took it keeps it"
    );
    assert!(
        !take(3, 1_599_999),
        "the retry did not move the slot's time…"
    );
    assert!(take(3, 1_600_000), "…so the window ends on time");
    assert!(!take(1, 1_600_001), "job 1 lost the slot to job 3");
}

#[test]
fn a_published_issue_round_trips_and_can_be_forgotten() {
    let db = widgets();
    let issue_of_7 = || db.read(|conn| publications::findings_issue(conn, RepoId(7)));
    assert_eq!(issue_of_7(), None);
    let issue = PublishedIssue {
        number: 12,
        node_id: Some("I_kw".into()),
        body: "body".into(),
        pinned: true,
    };
    db.write(|tx| publications::save_findings_issue(tx, RepoId(7), &issue, UnixMs(5)));
    assert_eq!(issue_of_7(), Some(issue));
    db.write(|tx| publications::forget_findings_issue(tx, RepoId(7)));
    assert_eq!(issue_of_7(), None);
}

#[test]
fn couplings_are_replaced_by_each_analysis() {
    let db = widgets();
    let pair = |a: &str, b: &str, lift: f64| Coupling {
        a: a.into(),
        b: b.into(),
        support: 4.0,
        confidence: 0.5,
        lift,
        commits: 4,
    };
    let first = vec![pair("a.rs", "b.rs", 2.0), pair("c.rs", "d.rs", 3.0)];
    db.write(|tx| publications::save_couplings(tx, RepoId(7), &first));
    let read = || db.read(|conn| publications::couplings(conn, RepoId(7)));
    assert_eq!(read(), vec![first[1].clone(), first[0].clone()]);
    db.write(|tx| publications::save_couplings(tx, RepoId(7), &first[..1]));
    assert_eq!(read(), first[..1]);
}

#[test]
fn the_scheduler_queues_one_jittered_analysis_per_due_repository() {
    let db = widgets();
    let now = 10_000_000;
    let tick = |now: i64| scheduler::tick(&db.store, UnixMs(now)).unwrap();
    assert_eq!(tick(now), 0, "no comments yet");
    add_comment(&db, 1, 1_000);
    assert_eq!(tick(now), 1);
    assert_eq!(tick(now), 1, "still due…");
    let queued = db.read(jobs::list);
    assert_eq!(queued.len(), 1, "…but queued once: {queued:?}");
    let queued = (queued[0].kind.as_str(), queued[0].repo_id);
    assert_eq!(queued, ("analysis", Some(RepoId(7))));
    let claimed =
        db.write(|tx| jobs::claim(tx, "w", UnixMs(now) + MAX_JITTER, Duration::from_secs(1)));
    let claimed = claimed.expect("due within the jitter");
    db.write(|tx| jobs::complete(tx, claimed.id));
    record_analysis(&db, now, 1);
    assert_eq!(tick(now + 1_000), 0, "just analysed");
}

#[test]
fn a_published_check_run_round_trips_by_its_commit() {
    let db = widgets();
    let run = PublishedCheckRun {
        check_run_id: 31,
        output_hash: "abc".into(),
    };
    db.write(|tx| {
        publications::save_check_run(tx, RepoId(7), "deadbeef", PrNumber(3), &run, UnixMs(5))
    });
    let run_of = |sha: &str| db.read(|conn| publications::check_run(conn, RepoId(7), sha));
    assert_eq!(run_of("deadbeef"), Some(run));
    assert_eq!(run_of("other"), None);
}
