//! Publication state: the findings issue row, check runs, the scheduler's activity figures and
//! the refresh cooldown.

use gitlore::domain::{Author, Comment, CommentKind, Repo, RepoName};
use gitlore::store::publications::{self, PublishedCheckRun, PublishedIssue, RepoActivity};
use gitlore::store::{Store, comments, repos};

fn store_with_repo(dir: &tempfile::TempDir) -> Store {
    let store = Store::open(&dir.path().join("gitlore.db")).unwrap();
    let repo = Repo {
        id: 7,
        name: RepoName::parse("acme/widgets").unwrap(),
        default_branch: Some("main".into()),
        private: false,
    };
    store
        .write(|tx| repos::upsert_repo(tx, &repo, Some(99), true))
        .unwrap();
    store
}

fn add_comment(store: &Store, github_id: i64, updated_at: i64) {
    let comment = Comment {
        kind: CommentKind::Conversation,
        github_id,
        node_id: None,
        author: Author {
            login: "ana".into(),
            ..Author::default()
        },
        body: format!("Please wrap this error with context ({github_id})."),
        path: None,
        line: None,
        diff_hunk: None,
        in_reply_to: None,
        review_id: None,
        review_state: None,
        created_at: Some(updated_at),
        updated_at,
        html_url: None,
    };
    store
        .write(|tx| {
            let version = comments::Version {
                body_hash: "h",
                noise: None,
                wins_tie: false,
            };
            comments::upsert(tx, 7, 1, &comment, &version).map(drop)
        })
        .unwrap();
}

fn activity(store: &Store) -> RepoActivity {
    let all = store.write(|tx| publications::activity(tx)).unwrap();
    assert_eq!(all.len(), 1);
    all.into_iter().next().unwrap()
}

#[test]
fn activity_counts_what_arrived_since_the_last_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_repo(&dir);
    let fresh = activity(&store);
    assert_eq!(
        (fresh.last_run_at, fresh.new_comments, fresh.changed),
        (None, 0, false)
    );
    for id in 1..=3 {
        add_comment(&store, id, 1_000);
    }
    assert_eq!(
        (activity(&store).new_comments, activity(&store).changed),
        (3, true)
    );
    let newest: i64 = store
        .write(|tx| Ok(tx.query_row("SELECT max(id) FROM comments", [], |r| r.get(0))?))
        .unwrap();
    store
        .write(|tx| publications::record_analysis(tx, 7, 2_000_000, newest, &Default::default()))
        .unwrap();
    let after = activity(&store);
    assert_eq!(
        (after.last_run_at, after.new_comments, after.changed),
        (Some(2_000_000), 0, false)
    );
    add_comment(&store, 4, 3_000);
    let later = activity(&store);
    assert_eq!((later.new_comments, later.changed), (1, true));
}

#[test]
fn the_refresh_cooldown_admits_one_refresh_per_window() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_repo(&dir);
    let take = |job: i64, now: i64| {
        store
            .write(|tx| publications::take_refresh_slot(tx, 7, job, now, 600_000))
            .unwrap()
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
fn published_issue_and_check_runs_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_repo(&dir);
    assert_eq!(
        store
            .write(|tx| publications::findings_issue(tx, 7))
            .unwrap(),
        None
    );
    let issue = PublishedIssue {
        number: 12,
        node_id: Some("I_kw".into()),
        body: "body".into(),
        pinned: true,
    };
    store
        .write(|tx| publications::save_findings_issue(tx, 7, &issue, 5))
        .unwrap();
    assert_eq!(
        store
            .write(|tx| publications::findings_issue(tx, 7))
            .unwrap(),
        Some(issue)
    );
    store
        .write(|tx| publications::forget_findings_issue(tx, 7))
        .unwrap();
    assert_eq!(
        store
            .write(|tx| publications::findings_issue(tx, 7))
            .unwrap(),
        None
    );
    let run = PublishedCheckRun {
        check_run_id: 31,
        output_hash: "abc".into(),
    };
    store
        .write(|tx| publications::save_check_run(tx, 7, "deadbeef", 3, &run, 5))
        .unwrap();
    assert_eq!(
        store
            .write(|tx| publications::check_run(tx, 7, "deadbeef"))
            .unwrap(),
        Some(run)
    );
    assert_eq!(
        store
            .write(|tx| publications::check_run(tx, 7, "other"))
            .unwrap(),
        None
    );
}

#[test]
fn couplings_are_replaced_by_each_analysis() {
    use gitlore::domain::history::Coupling;
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_repo(&dir);
    let pair = |a: &str, b: &str, lift: f64| Coupling {
        a: a.into(),
        b: b.into(),
        support: 4.0,
        confidence: 0.5,
        lift,
        commits: 4,
    };
    let first = vec![pair("a.rs", "b.rs", 2.0), pair("c.rs", "d.rs", 3.0)];
    store
        .write(|tx| publications::save_couplings(tx, 7, &first))
        .unwrap();
    let read = store.write(|tx| publications::couplings(tx, 7)).unwrap();
    assert_eq!(read, vec![first[1].clone(), first[0].clone()]);
    store
        .write(|tx| publications::save_couplings(tx, 7, &first[..1]))
        .unwrap();
    assert_eq!(
        store.write(|tx| publications::couplings(tx, 7)).unwrap(),
        first[..1]
    );
}

#[test]
fn the_scheduler_queues_one_jittered_analysis_per_due_repository() {
    use gitlore::scheduler::{self, MAX_JITTER_MS};
    use gitlore::store::jobs;
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_repo(&dir);
    let now = 10_000_000;
    assert_eq!(scheduler::tick(&store, now).unwrap(), 0, "no comments yet");
    add_comment(&store, 1, 1_000);
    assert_eq!(scheduler::tick(&store, now).unwrap(), 1);
    assert_eq!(scheduler::tick(&store, now).unwrap(), 1, "still due…");
    let queued = store.write(|tx| jobs::list(tx)).unwrap();
    assert_eq!(queued.len(), 1, "…but queued once: {queued:?}");
    assert_eq!(
        (queued[0].kind.as_str(), queued[0].repo_id),
        ("analysis", Some(7))
    );
    let claimed = store
        .write(|tx| jobs::claim(tx, "w", now + MAX_JITTER_MS, 1_000))
        .unwrap()
        .expect("due within the jitter");
    store.write(|tx| jobs::complete(tx, claimed.id)).unwrap();
    let newest = 1;
    store
        .write(|tx| publications::record_analysis(tx, 7, now, newest, &Default::default()))
        .unwrap();
    assert_eq!(
        scheduler::tick(&store, now + 1_000).unwrap(),
        0,
        "just analysed"
    );
}
