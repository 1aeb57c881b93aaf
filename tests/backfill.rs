//! The backfill against the fake GitHub over HTTP (issue 3's acceptance): every comment of the
//! window recovered with nested pagination and a request count near one per 25 PRs, rows
//! identical to the webhooks', resumption after an aborted run, webhooks during the backfill,
//! faults, a personal token, uninstall purging every row, and the `gitlore backfill` command.
//! Each test is a short story on a [`Scene`]: a seeded fake, an app, and a backfiller.

mod common;
mod fake_github;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fake_github::webhooks::Webhook;
use fake_github::{FakeGitHub, Fault, Model, Target};
use gitlore::store::sql::Value as SqlValue;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinHandle;

use common::pause::Recorder;
use common::{APP_ID, TestApp};
use gitlore::clock::ManualClock;
use gitlore::domain::CommentKind::{Conversation, Inline};
use gitlore::domain::Secret;
use gitlore::domain::{InstallationId, RepoId, RepoName, UnixMs};
use gitlore::github::auth::AppKey;
use gitlore::github::backfill::{BackfillRequest, Backfiller, Progress, Summary};
use gitlore::github::client::{As, GitHub};
use gitlore::knowledge::filter::NoiseRules;
use gitlore::store::backfills::{self, BackfillState, BackfillStatus};
use gitlore::store::themes::{self, SavedTheme};
use gitlore::store::{Store, comments, deliveries, jobs};

const REPO: &str = "acme/widgets";
const OTHER: &str = "other/thing";
const MINUTE_MS: i64 = 60_000;
const DAY_MS: i64 = 24 * 60 * MINUTE_MS;

/// A fake GitHub with `acme/widgets` (installation 7) and `other/thing` (8), seeded; an app
/// with its own database; and a backfiller writing into that database through the fake.
struct Scene {
    gh: FakeGitHub,
    app: TestApp,
    backfiller: Backfiller,
    /// The waits the backfiller's client asked for.
    pauses: Arc<Recorder>,
}

impl Scene {
    async fn new(seed: impl FnOnce(&mut Model)) -> Scene {
        let gh = FakeGitHub::start().await;
        gh.with_test_app(APP_ID, "gitlore");
        gh.seed(|m| {
            m.add_installation(7, "acme", &[REPO]);
            m.add_installation(8, "other", &[OTHER]);
            seed(m);
        });
        let app = TestApp::new();
        let (backfiller, pauses) = backfiller(&gh, app.store.clone());
        Scene {
            gh,
            app,
            backfiller,
            pauses,
        }
    }

    /// Backfills `acme/widgets` as installation 7.
    async fn backfill(&self) -> Summary {
        self.backfiller
            .run(&request(REPO, 7), |_| {})
            .await
            .unwrap()
    }

    /// Starts backfilling `acme/widgets` in the background; its progress arrives page by page.
    fn spawn(
        &self,
    ) -> (
        JoinHandle<anyhow::Result<Summary>>,
        UnboundedReceiver<Progress>,
    ) {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<Progress>();
        let backfiller = self.backfiller.clone();
        let task = tokio::spawn(async move {
            let report = move |p: &Progress| {
                let _ = tx.send(p.clone());
            };
            backfiller.run(&request(REPO, 7), report).await
        });
        (task, rx)
    }

    /// Delivers a webhook to the app and applies it.
    async fn deliver(&self, hook: Webhook) {
        let status = self.app.send(hook.event, &hook.payload).await;
        assert!(status.is_success(), "{} answered {status}", hook.event);
        self.app.drain();
    }

    /// The stored backfill of `acme/widgets`.
    fn state(&self) -> BackfillState {
        let conn = self.app.store.reader().unwrap();
        backfills::find_by_name(&conn, REPO).unwrap().unwrap()
    }

    /// What the fake says must be recovered: the comments and each inline one's resolution.
    fn seeded(&self) -> (BTreeSet<Key>, BTreeMap<i64, bool>) {
        self.gh.inspect(|m| seeded(m, REPO))
    }

    /// Asserts the store holds exactly the seeded comments, one row each, with their threads'
    /// resolution; returns how many.
    fn assert_all_recovered(&self) -> usize {
        let (want, want_resolved) = self.seeded();
        let (got, got_resolved, rows) = stored(&self.app.store, REPO);
        assert_eq!(got.difference(&want).count(), 0, "nothing outside the seed");
        assert_eq!(want.difference(&got).count(), 0, "nothing missing");
        assert_eq!(rows, want.len(), "one row per comment");
        assert_eq!(got_resolved, want_resolved, "thread resolution");
        want.len()
    }
}

fn backfiller(gh: &FakeGitHub, store: Arc<Store>) -> (Backfiller, Arc<Recorder>) {
    let clock = Arc::new(ManualClock::new(UnixMs(gh.now_ms())));
    let pauses = Arc::new(Recorder::new(clock.clone()));
    let key = AppKey::new(APP_ID, &Secret::new(fake_github::test_private_key_pem())).unwrap();
    let client = GitHub::new(&gh.base_url(), key, clock.clone(), pauses.clone()).unwrap();
    let backfiller = Backfiller {
        client: Arc::new(client),
        store,
        rules: Arc::new(NoiseRules::new(Some(APP_ID), Some("gitlore"), &[])),
        clock,
    };
    (backfiller, pauses)
}

fn request(repo: &str, installation: i64) -> BackfillRequest {
    BackfillRequest {
        repo: RepoName::parse(repo).unwrap(),
        who: As::Installation(InstallationId(installation)),
        window_months: 12,
        force: false,
    }
}

/// Sets a pull request's last activity `ago_ms` before the fake's now.
fn touch(m: &mut Model, repo: &str, number: u64, ago_ms: i64) {
    let now = m.now_ms;
    m.pull_mut(repo, number).updated_at_ms = now - ago_ms;
}

/// 120 merged pull requests in the window: two with 150 review threads, three threads of 120
/// comments (one of them beyond the first 50 threads), one PR with 130 conversation comments,
/// one with 60 reviews, bots, empty approvals and an old `/gitlore` command; a closed unmerged
/// PR, whose reviews count as much; plus what must be skipped: three merged PRs updated 400 days
/// ago and an open PR, all with comments.
fn seed_history(m: &mut Model) {
    for i in 0..120u64 {
        let number = m
            .add_merged_pull(REPO, &format!("Change {i}"), "alice")
            .number;
        let threads = if i == 3 || i == 60 { 150 } else { 2 };
        for t in 0..threads {
            let body = format!("#{number} thread {t}: prefer a match over unwrap here");
            let index = m.add_thread(REPO, number, &format!("src/f{t}.rs"), 10 + t, "bob", &body);
            m.add_reply(
                REPO,
                number,
                index,
                "alice",
                &format!("#{number}/{t}: done, thanks"),
            );
            let long = (i == 3 && t == 70) || (i == 10 && t == 0) || (i == 110 && t == 1);
            if long {
                for r in 0..118 {
                    let who = if r % 2 == 0 { "bob" } else { "carol" };
                    m.add_reply(
                        REPO,
                        number,
                        index,
                        who,
                        &format!("#{number}/{t} reply {r}"),
                    );
                }
            }
            m.pull_mut(REPO, number).threads[index].resolved = t % 3 == 0;
        }
        m.add_review(
            REPO,
            number,
            "carol",
            "CHANGES_REQUESTED",
            &format!("#{number}: please add a test for the error path"),
        );
        m.add_review(REPO, number, "dave", "APPROVED", "");
        m.add_issue_comment(
            REPO,
            number,
            "erin",
            &format!("#{number}: changelog entry?"),
        );
        if i % 10 == 0 {
            m.add_issue_comment(REPO, number, "codecov[bot]", "Coverage: 81% (+0.2%)");
        }
        if i == 5 {
            m.add_issue_comment(REPO, number, "erin", "/gitlore refresh");
        }
        if i == 20 {
            for c in 0..130 {
                m.add_issue_comment(REPO, number, "frank", &format!("#{number} talk {c}"));
            }
        }
        if i == 40 {
            for r in 0..59 {
                m.add_review(
                    REPO,
                    number,
                    "gina",
                    "COMMENTED",
                    &format!("#{number} pass {r}"),
                );
            }
        }
        touch(m, REPO, number, i as i64 * MINUTE_MS);
    }
    for i in 0..3u64 {
        let number = m.add_merged_pull(REPO, &format!("Old {i}"), "alice").number;
        m.add_thread(REPO, number, "old.rs", 1, "bob", "an old remark");
        touch(m, REPO, number, 400 * DAY_MS);
    }
    let open = m.add_open_pull(REPO, "Still open", "alice").number;
    m.add_thread(REPO, open, "open.rs", 1, "bob", "a remark on an open PR");
    let closed = m.add_open_pull(REPO, "Abandoned", "alice").number;
    m.add_thread(
        REPO,
        closed,
        "closed.rs",
        1,
        "bob",
        "a remark on a closed PR",
    );
    m.add_issue_comment(REPO, closed, "erin", "closing this");
    m.pull_mut(REPO, closed).open = false;
}

/// A small history: `prs` merged PRs with one two-comment thread, a review and a comment each.
fn seed_small(m: &mut Model, repo: &str, prs: u64) {
    for i in 0..prs {
        let number = m
            .add_merged_pull(repo, &format!("Small {i}"), "alice")
            .number;
        let index = m.add_thread(repo, number, "lib.rs", 3, "bob", "why not a Result here?");
        m.add_reply(
            repo,
            number,
            index,
            "alice",
            "it cannot fail: the input is checked",
        );
        m.add_review(
            repo,
            number,
            "carol",
            "COMMENTED",
            "a few remarks on naming",
        );
        m.add_issue_comment(repo, number, "erin", "could this be split in two PRs?");
    }
}

/// `(kind, GitHub id, body)` of a comment.
type Key = (String, i64, String);

/// The in-window merged or closed pull requests of `repo` in the fake, by number.
fn window_pulls(m: &Model, repo: &str) -> Vec<u64> {
    let horizon = m.now_ms - 300 * DAY_MS;
    m.repo(repo)
        .pulls
        .values()
        .filter(|p| !p.open && p.updated_at_ms >= horizon)
        .map(|p| p.number)
        .collect()
}

/// Every comment the backfill must recover (reviews without a body are not stored), and the
/// resolution of each inline comment's thread.
fn seeded(m: &Model, repo: &str) -> (BTreeSet<Key>, BTreeMap<i64, bool>) {
    let numbers = window_pulls(m, repo);
    let r = m.repo(repo);
    let mut keys = BTreeSet::new();
    let mut resolved = BTreeMap::new();
    for number in &numbers {
        let pull = &r.pulls[number];
        for thread in &pull.threads {
            for c in &thread.comments {
                keys.insert(("inline".into(), c.id, c.body.clone()));
                resolved.insert(c.id, thread.resolved);
            }
        }
        for review in pull.reviews.iter().filter(|r| !r.body.is_empty()) {
            keys.insert(("review".into(), review.id, review.body.clone()));
        }
    }
    for c in r
        .issue_comments
        .iter()
        .filter(|c| numbers.contains(&c.issue_number))
    {
        keys.insert(("conversation".into(), c.id, c.body.clone()));
    }
    (keys, resolved)
}

/// The GraphQL requests a full backfill of `repo` needs: pull-request pages of 25 until one
/// reaches past the window, plus the nested pages (first pages of 50 come with their parent,
/// later ones hold 100).
fn expected_requests(m: &Model, repo: &str) -> (usize, usize) {
    let horizon = m.now_ms - 300 * DAY_MS;
    let mut merged: Vec<_> = m.repo(repo).pulls.values().filter(|p| p.merged).collect();
    merged.sort_by_key(|p| std::cmp::Reverse((p.updated_at_ms, p.number)));
    let mut pages = 0;
    for start in (0..merged.len().max(1)).step_by(25) {
        pages += 1;
        let page = &merged[start..(start + 25).min(merged.len())];
        if page.iter().any(|p| p.updated_at_ms < horizon) {
            break;
        }
    }
    let more = |n: usize| n.saturating_sub(50).div_ceil(100);
    let r = m.repo(repo);
    let mut nested = 0;
    for number in window_pulls(m, repo) {
        let pull = &r.pulls[&number];
        nested += more(pull.threads.len()) + more(pull.reviews.len());
        nested += pull
            .threads
            .iter()
            .map(|t| more(t.comments.len()))
            .sum::<usize>();
        let talk = r
            .issue_comments
            .iter()
            .filter(|c| c.issue_number == number)
            .count();
        nested += more(talk);
    }
    (pages, nested)
}

/// What the store holds for `repo`: live comments as keys, resolution by inline id, row count.
fn stored(store: &Store, repo: &str) -> (BTreeSet<Key>, BTreeMap<i64, bool>, usize) {
    let rows = comments::list_for_repo(&store.reader().unwrap(), repo).unwrap();
    let keys = rows
        .iter()
        .filter(|c| !c.deleted)
        .map(|c| (c.kind.clone(), c.github_id, c.body.clone()))
        .collect();
    let resolved = rows
        .iter()
        .filter(|c| c.kind == "inline")
        .map(|c| (c.github_id, c.resolved))
        .collect();
    (keys, resolved, rows.len())
}

#[tokio::test]
async fn recovers_every_comment_of_the_window_with_few_requests() {
    let scene = Scene::new(seed_history).await;
    let pages_seen = Arc::new(Mutex::new(0));
    let seen = pages_seen.clone();
    let on_page = move |_: &Progress| *seen.lock().unwrap() += 1;
    let summary = scene
        .backfiller
        .run(&request(REPO, 7), on_page)
        .await
        .unwrap();
    let recovered = scene.assert_all_recovered();
    assert!(recovered > 1500, "the seed is as large as intended");
    let (pages, nested) = scene.gh.inspect(|m| expected_requests(m, REPO));
    let operations = scene.gh.graphql_operations();
    let nested_seen = operations.iter().filter(|op| *op != "BackfillPullRequests");
    let nested_seen = nested_seen.count();
    assert_eq!(
        (operations.len() - nested_seen, nested_seen),
        (pages, nested)
    );
    assert_eq!(
        (pages, nested),
        (5, 7),
        "one page per 25 PRs, nested pages where needed"
    );
    assert_eq!(summary.progress.requests, operations.len() as u64);
    assert_eq!(
        summary.progress.prs_done, 121,
        "120 merged, 1 closed unmerged"
    );
    assert!(summary.progress.rate_limit_remaining.is_some());
    assert_eq!(*pages_seen.lock().unwrap(), pages, "progress once per page");
    assert_eq!(scene.state().status, BackfillStatus::Done);
    // Old PR comments that look like commands are never run: no job was queued.
    assert!(jobs::list(&scene.app.db()).unwrap().is_empty());
}

#[tokio::test]
async fn a_finished_backfill_asks_github_nothing_unless_forced() {
    let scene = Scene::new(|m| seed_small(m, REPO, 30)).await;
    scene.backfill().await;
    scene.gh.clear_log();
    assert!(scene.backfill().await.already_done);
    assert!(scene.gh.graphql_operations().is_empty());
    let forced = BackfillRequest {
        force: true,
        ..request(REPO, 7)
    };
    let redone = scene.backfiller.run(&forced, |_| {}).await.unwrap();
    assert!(!redone.already_done);
    assert!(!scene.gh.graphql_operations().is_empty());
    scene.assert_all_recovered(); // a rerun adds no row
}

#[tokio::test]
async fn an_aborted_backfill_resumes_from_its_cursor_without_gap_or_duplicate() {
    let scene = Scene::new(seed_history).await;
    let (task, mut pages) = scene.spawn();
    // Two pages committed; the crash comes while the third is being read.
    pages.recv().await.unwrap();
    pages.recv().await.unwrap();
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    let state = scene.state();
    assert_eq!(state.status, BackfillStatus::Running);
    assert!((50..100).contains(&state.prs_done), "{state:?}");
    assert!(stored(&scene.app.store, REPO).2 > 0);
    scene.gh.clear_log();
    let summary = scene.backfill().await;
    let (pages, nested) = scene.gh.inspect(|m| expected_requests(m, REPO));
    let requests = summary.progress.requests as usize;
    assert!(requests < pages + nested, "it resumed: {requests} requests");
    scene.assert_all_recovered(); // no gap, no duplicate
    assert_eq!(
        summary.progress.prs_done, 121,
        "120 merged, 1 closed unmerged"
    );
}

/// The first two inline comments and the first conversation comment of pull request `number`.
fn comments_of(gh: &FakeGitHub, number: u64) -> (i64, i64, i64) {
    gh.inspect(|m| {
        let repo = m.repo(REPO);
        let threads = &repo.pulls[&number].threads;
        let talk = repo
            .issue_comments
            .iter()
            .find(|c| c.issue_number == number);
        let talk = talk.unwrap().id;
        (threads[0].comments[0].id, threads[1].comments[0].id, talk)
    })
}

#[tokio::test]
async fn webhooks_during_the_backfill_converge_with_it() {
    let scene = Scene::new(seed_history).await;
    let gh = &scene.gh;
    let later = gh.now_ms() + 3_600_000;
    // Comments of the newest PR (read first) and of the oldest in-window one (read last).
    let (first_a, first_b, first_talk) = comments_of(gh, 1);
    let (last_a, last_b, last_talk) = comments_of(gh, 120);
    // Before the backfill writes: an edit newer than GitHub's copy, and a delete.
    let edit = gh.review_comment_event("edited", REPO, first_a);
    scene
        .deliver(edit.with_comment("edited before", later))
        .await;
    scene
        .deliver(gh.review_comment_event("deleted", REPO, first_b))
        .await;
    let (task, mut pages) = scene.spawn();
    // While it runs: after its first page, edits and deletes on both sides of its cursor.
    pages.recv().await.unwrap();
    let edit = gh.issue_comment_event("edited", REPO, first_talk);
    scene
        .deliver(edit.with_comment("edited during", later))
        .await;
    let edit = gh.review_comment_event("edited", REPO, last_a);
    scene
        .deliver(edit.with_comment("edited ahead", later))
        .await;
    scene
        .deliver(gh.review_comment_event("deleted", REPO, last_b))
        .await;
    scene
        .deliver(gh.issue_comment_event("deleted", REPO, last_talk))
        .await;
    task.await.unwrap().unwrap();
    let conn = scene.app.store.reader().unwrap();
    let get = |kind, id| comments::get(&conn, kind, id).unwrap().unwrap();
    assert_eq!(
        get(Inline, first_a).body,
        "edited before",
        "the newest version wins"
    );
    assert_eq!(get(Conversation, first_talk).body, "edited during");
    assert_eq!(get(Inline, last_a).body, "edited ahead");
    for (kind, id) in [
        (Inline, first_b),
        (Inline, last_b),
        (Conversation, last_talk),
    ] {
        let row = get(kind, id);
        assert!(
            row.deleted && row.body.is_empty(),
            "a deleted comment stays deleted: {row:?}"
        );
    }
    assert_eq!(
        stored(&scene.app.store, REPO).2,
        scene.seeded().0.len(),
        "one row per comment"
    );
    let states = deliveries::count_by_state(&conn).unwrap();
    assert!(
        states.iter().all(|(state, n)| *state == "done" || *n == 0),
        "every webhook applied: {states:?}"
    );
}

/// A merged pull request by alice: bob's review thread with a bot's reply, carol's review and
/// erin's conversation comment.
fn seed_one_reviewed_pull(m: &mut Model) {
    let number = m.add_merged_pull(REPO, "Parse configs", "alice").number;
    let t = m.add_thread(
        REPO,
        number,
        "src/config.rs",
        42,
        "bob",
        "this unwrap panics on a bad file",
    );
    m.add_reply(
        REPO,
        number,
        t,
        "renovate[bot]",
        "I can open a follow-up PR.",
    );
    let review = "please validate the port range";
    m.add_review(REPO, number, "carol", "CHANGES_REQUESTED", review);
    m.add_issue_comment(REPO, number, "erin", "do we document the new keys?");
}

#[tokio::test]
async fn a_backfilled_row_is_the_row_the_webhook_writes() {
    let scene = Scene::new(seed_one_reviewed_pull).await;
    let gh = &scene.gh;
    // The same comments as the webhooks the fake sends for them.
    let (pull, talk) = gh.inspect(|m| {
        (
            m.repo(REPO).pulls[&1].clone(),
            m.repo(REPO).issue_comments[0].id,
        )
    });
    let by_webhook = TestApp::new();
    let mut hooks: Vec<Webhook> = pull.threads[0]
        .comments
        .iter()
        .map(|c| gh.review_comment_event("created", REPO, c.id))
        .collect();
    hooks.push(gh.review_event("submitted", REPO, pull.reviews[0].id));
    hooks.push(gh.issue_comment_event("created", REPO, talk));
    for hook in &hooks {
        assert!(
            by_webhook
                .send(hook.event, &hook.payload)
                .await
                .is_success()
        );
    }
    by_webhook.drain();
    scene.backfill().await;
    let by_backfill = &scene.app;
    let authors = [(1, Some("alice".to_string()))];
    assert_eq!(pull_request_authors(&by_webhook.store), authors);
    assert_eq!(pull_request_authors(&by_backfill.store), authors);
    let (columns, webhook_rows) = comment_rows(&by_webhook.store);
    let (_, backfill_rows) = comment_rows(&by_backfill.store);
    assert_eq!(webhook_rows.len(), 4);
    assert_eq!(backfill_rows.len(), 4);
    for (w, b) in webhook_rows.iter().zip(&backfill_rows) {
        for ((column, wv), bv) in columns.iter().zip(w).zip(b) {
            assert_eq!(wv, bv, "column {column} of {:?} {:?}", w[0], w[1]);
        }
    }
}

/// `(number, author_login)` of every stored pull request (no store function lists them).
fn pull_request_authors(store: &Store) -> Vec<(i64, Option<String>)> {
    store
        .reader()
        .unwrap()
        .prepare("SELECT number, author_login FROM pull_requests ORDER BY number")
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<gitlore::store::sql::Result<_>>()
        .unwrap()
}

#[tokio::test]
async fn a_backfilled_pull_request_knows_who_opened_it() {
    let scene = Scene::new(|m| {
        let by_alice = m.add_merged_pull(REPO, "Parse configs", "alice").number;
        let t = m.add_thread(
            REPO,
            by_alice,
            "src/config.rs",
            4,
            "bob",
            "what if it is empty?",
        );
        m.add_reply(REPO, by_alice, t, "alice", "done, it returns an error now");
        let by_bot = m
            .add_merged_pull(REPO, "Bump serde", "renovate[bot]")
            .number;
        m.add_issue_comment(REPO, by_bot, "renovate[bot]", "Rebased onto main.");
        m.add_issue_comment(REPO, by_bot, "alice", "is this breaking?");
    })
    .await;
    scene.backfill().await;
    let authors = pull_request_authors(&scene.app.store);
    let expected = [(1, Some("alice".into())), (2, Some("renovate[bot]".into()))];
    assert_eq!(authors, expected);
    let conn = scene.app.store.reader().unwrap();
    let stored = comments::list_for_repo(&conn, REPO).unwrap();
    let by_pr_author: BTreeMap<String, bool> = stored
        .iter()
        .map(|c| (c.body.clone(), c.by_pr_author()))
        .collect();
    let expected = BTreeMap::from([
        ("what if it is empty?".to_string(), false),
        ("done, it returns an error now".to_string(), true),
        ("Rebased onto main.".to_string(), true),
        ("is this breaking?".to_string(), false),
    ]);
    assert_eq!(by_pr_author, expected);
}

/// Every column of every comment but the store's own id, with the built-in labels, ordered.
fn comment_rows(store: &Store) -> (Vec<String>, Vec<Vec<SqlValue>>) {
    let conn = store.reader().unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT c.*, cl.labels FROM comments c
               LEFT JOIN classifications cl ON cl.comment_id = c.id
              ORDER BY c.kind, c.github_id",
        )
        .unwrap();
    let columns: Vec<String> = stmt.column_names().unwrap();
    let rows = stmt
        .query_map([], |row| {
            (0..columns.len())
                .map(|i| row.get::<_, SqlValue>(i))
                .collect::<gitlore::store::sql::Result<Vec<_>>>()
        })
        .unwrap()
        .collect::<gitlore::store::sql::Result<Vec<_>>>()
        .unwrap();
    let keep: Vec<usize> = (0..columns.len()).filter(|i| columns[*i] != "id").collect();
    let pick = |row: &Vec<SqlValue>| keep.iter().map(|i| row[*i].clone()).collect::<Vec<_>>();
    // kind and github_id first, for the failure message.
    let order = |cols: Vec<SqlValue>, names: &[String]| {
        let kind = names.iter().position(|n| n == "kind").unwrap();
        let id = names.iter().position(|n| n == "github_id").unwrap();
        let mut out = vec![cols[kind].clone(), cols[id].clone()];
        out.extend(cols);
        out
    };
    let names: Vec<String> = keep.iter().map(|i| columns[*i].clone()).collect();
    let mut header = vec!["kind".to_string(), "github_id".to_string()];
    header.extend(names.clone());
    (
        header,
        rows.iter().map(|r| order(pick(r), &names)).collect(),
    )
}

#[tokio::test]
async fn a_502_and_secondary_rate_limits_do_not_stop_it() {
    let scene = Scene::new(seed_history).await;
    let gh = &scene.gh;
    gh.inject(
        Target::graphql("BackfillPullRequests"),
        Fault::ServerError(502),
        1,
    );
    let secondary = Fault::SecondaryRateLimit { retry_after_s: 2 };
    gh.inject(Target::graphql("ThreadComments"), secondary, 1);
    let too_many = Fault::TooManyRequests { retry_after_s: 3 };
    gh.inject(Target::graphql("PullRequestThreads"), too_many, 1);
    scene.backfill().await;
    scene.assert_all_recovered();
    let waits = scene.pauses.waits();
    assert!(waits.contains(&Duration::from_secs(2)), "{waits:?}");
    assert!(waits.contains(&Duration::from_secs(3)), "{waits:?}");
}

#[tokio::test]
async fn a_personal_token_backfills_through_the_same_path() {
    let scene = Scene::new(|m| seed_small(m, REPO, 3)).await;
    // A token the fake accepts; to the client it is an opaque personal token.
    let token = scene
        .backfiller
        .client
        .installation_token(InstallationId(7))
        .await
        .unwrap();
    let clock = Arc::new(ManualClock::new(UnixMs(scene.gh.now_ms())));
    let pauses = Arc::new(Recorder::new(clock.clone()));
    let client = GitHub::with_token(&scene.gh.base_url(), token, clock, pauses).unwrap();
    let backfiller = Backfiller {
        client: Arc::new(client),
        ..scene.backfiller.clone()
    };
    let as_token = BackfillRequest {
        who: As::Token,
        ..request(REPO, 7)
    };
    let summary = backfiller.run(&as_token, |_| {}).await.unwrap();
    assert_eq!(summary.progress.prs_done, 3);
    assert_eq!(scene.assert_all_recovered(), 12);
}

/// How to count the rows of one repository (`?1`) and installation (`?2`) in each table. Every
/// table must be listed: a new table has to say whether uninstall removes its rows.
const ROWS_OF: &[(&str, Option<&str>)] = &[
    // The raw delivery inbox is not attributed to installations; it is purged 14 days after
    // processing.
    ("deliveries", None),
    ("delivery_bodies", None),
    // The redelivery sweep's state and what it asked, by delivery GUID: the App's, not an
    // installation's; the requests it remembers are purged after GitHub forgets the deliveries.
    ("redelivery_requests", None),
    ("redelivery_sweep", None),
    // Tombstones stay (`deleted`, `removed`) so late deliveries are ignored; live rows go.
    (
        "installations",
        Some("SELECT count(*) FROM installations WHERE id = ?2 AND deleted = 0 AND ?1 = ?1"),
    ),
    (
        "repos",
        Some("SELECT count(*) FROM repos WHERE id = ?1 AND removed = 0 AND ?2 = ?2"),
    ),
    (
        "pull_requests",
        Some("SELECT count(*) FROM pull_requests WHERE repo_id = ?1 AND ?2 = ?2"),
    ),
    (
        "comments",
        Some("SELECT count(*) FROM comments WHERE repo_id = ?1 AND ?2 = ?2"),
    ),
    (
        "review_threads",
        Some("SELECT count(*) FROM review_threads WHERE repo_id = ?1 AND ?2 = ?2"),
    ),
    (
        "classifications",
        Some(
            "SELECT count(*) FROM classifications WHERE comment_id IN (SELECT id FROM comments WHERE repo_id = ?1) AND ?2 = ?2",
        ),
    ),
    (
        "jobs",
        Some("SELECT count(*) FROM jobs WHERE repo_id = ?1 AND ?2 = ?2"),
    ),
    (
        "themes",
        Some("SELECT count(*) FROM themes WHERE repo_id = ?1 AND ?2 = ?2"),
    ),
    (
        "theme_members",
        Some(
            "SELECT count(*) FROM theme_members WHERE theme_id IN (SELECT id FROM themes WHERE repo_id = ?1) AND ?2 = ?2",
        ),
    ),
    (
        "backfills",
        Some("SELECT count(*) FROM backfills WHERE repo_id = ?1 AND ?2 = ?2"),
    ),
    (
        "findings_issues",
        Some("SELECT count(*) FROM findings_issues WHERE repo_id = ?1 AND ?2 = ?2"),
    ),
    (
        "check_runs",
        Some("SELECT count(*) FROM check_runs WHERE repo_id = ?1 AND ?2 = ?2"),
    ),
    (
        "analysis_runs",
        Some("SELECT count(*) FROM analysis_runs WHERE repo_id = ?1 AND ?2 = ?2"),
    ),
    (
        "couplings",
        Some("SELECT count(*) FROM couplings WHERE repo_id = ?1 AND ?2 = ?2"),
    ),
    (
        "findings",
        Some("SELECT count(*) FROM findings WHERE repo_id = ?1 AND ?2 = ?2"),
    ),
    (
        "finding_runs",
        Some("SELECT count(*) FROM finding_runs WHERE repo_id = ?1 AND ?2 = ?2"),
    ),
    (
        "commits",
        Some("SELECT count(*) FROM commits WHERE repo_id = ?1 AND ?2 = ?2"),
    ),
    (
        "commit_files",
        Some("SELECT count(*) FROM commit_files WHERE repo_id = ?1 AND ?2 = ?2"),
    ),
    (
        "history_heads",
        Some("SELECT count(*) FROM history_heads WHERE repo_id = ?1 AND ?2 = ?2"),
    ),
    // Model caches are keyed by content hash, shared by every repository.
    ("llm_labels", None),
    ("embeddings", None),
    // Kept on uninstall: reinstalling must not reset the day's LLM budget.
    ("llm_spend", None),
    // Sign-in sessions are people's, not an installation's; they expire within 8 hours.
    ("web_sessions", None),
];

/// Rows per table: the total, and those of one (repository, installation).
type TableCounts = BTreeMap<String, (i64, i64)>;

/// Rows per table: the total, and those of (repository, installation).
fn table_counts(
    conn: &gitlore::store::Connection<'_>,
    repo_id: i64,
    installation: i64,
) -> TableCounts {
    let tables_sql = match conn.dialect() {
        gitlore::store::Dialect::Sqlite => {
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        }
        // gitlore_schema holds the migration version, no installation's data.
        gitlore::store::Dialect::Postgres => {
            "SELECT table_name FROM information_schema.tables
              WHERE table_schema = current_schema() AND table_name <> 'gitlore_schema'"
        }
    };
    let tables: Vec<String> = conn
        .prepare(tables_sql)
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<gitlore::store::sql::Result<_>>()
        .unwrap();
    tables
        .into_iter()
        .map(|table| {
            let (_, of) = ROWS_OF
                .iter()
                .find(|(name, _)| *name == table)
                .unwrap_or_else(|| {
                    panic!("table {table} is not in ROWS_OF: does uninstall delete its rows?")
                });
            let total: i64 = conn
                .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
                .unwrap();
            let mine = of.map_or(0, |sql| {
                conn.query_row(sql, [repo_id, installation], |r| r.get(0))
                    .unwrap()
            });
            (table, (total, mine))
        })
        .collect()
}

/// A theme over every stored comment of `repo_id`, saved as an analysis would.
fn save_a_theme(store: &Store, repo_id: i64, id: &str) {
    store
        .write(|tx| {
            let members: Vec<i64> = tx
                .prepare("SELECT id FROM comments WHERE repo_id = ?1")?
                .query_map([repo_id], |r| r.get(0))?
                .collect::<gitlore::store::sql::Result<_>>()?;
            let terms = ["naming".to_string()];
            let theme = SavedTheme {
                id,
                label: "naming",
                terms: &terms,
                first_seen: 1,
                members: &members,
            };
            themes::save_run(tx, RepoId(repo_id), 1, &[theme])
        })
        .unwrap();
}

/// Asserts the uninstall took every row of the uninstalled (repository, installation) in
/// `before`/`after` and only those, and left the other's rows in `other_before`/`other_after`.
fn assert_only_its_rows_went(
    (before, after): (&TableCounts, &TableCounts),
    (other_before, other_after): (&TableCounts, &TableCounts),
) {
    for (table, (total_before, mine_before)) in before {
        let (total_after, mine_after) = after[table];
        assert_eq!(
            mine_after, 0,
            "{table} keeps rows of the uninstalled installation"
        );
        if ROWS_OF
            .iter()
            .any(|(name, of)| name == table && of.is_some())
        {
            let tombstone = i64::from(matches!(table.as_str(), "installations" | "repos"));
            let expected = total_before - mine_before + tombstone;
            assert_eq!(total_after, expected, "{table}: only its rows went");
            let kept = (other_after[table].1, other_before[table].1);
            assert_eq!(
                kept.0, kept.1,
                "{table}: the other installation's rows stay"
            );
        }
    }
}

#[tokio::test]
async fn uninstall_deletes_every_row_of_that_installation_and_only_those() {
    let scene = Scene::new(|m| {
        seed_small(m, REPO, 4);
        seed_small(m, OTHER, 3);
    })
    .await;
    let (gh, app) = (&scene.gh, &scene.app);
    let (widgets, thing) = gh.inspect(|m| (m.repo(REPO).id, m.repo(OTHER).id));
    scene.deliver(gh.installation_event("created", 7)).await;
    scene.deliver(gh.installation_event("created", 8)).await;
    scene.backfill().await;
    scene
        .backfiller
        .run(&request(OTHER, 8), |_| {})
        .await
        .unwrap();
    save_a_theme(&app.store, widgets, "t-00000000aa");
    save_a_theme(&app.store, thing, "t-00000000bb");
    let before = table_counts(&app.db(), widgets, 7);
    let other_before = table_counts(&app.db(), thing, 8);
    let filled = [
        "comments",
        "classifications",
        "review_threads",
        "pull_requests",
        "jobs",
        "themes",
        "theme_members",
        "backfills",
    ];
    for table in filled {
        let both = before[table].1 > 0 && other_before[table].1 > 0;
        assert!(both, "{table} has rows of both");
    }
    scene.deliver(gh.installation_event("deleted", 7)).await;
    let after = table_counts(&app.db(), widgets, 7);
    let other_after = table_counts(&app.db(), thing, 8);
    assert_only_its_rows_went((&before, &after), (&other_before, &other_after));
    let orphans = app.count(
        "SELECT count(*) FROM classifications WHERE comment_id NOT IN (SELECT id FROM comments)",
    ) + app.count(
        "SELECT count(*) FROM theme_members WHERE comment_id NOT IN (SELECT id FROM comments)",
    );
    assert_eq!(orphans, 0);
}

/// Runs `gitlore ARGS` as its own process, on the data directory `data_dir`, against the fake.
async fn gitlore(
    gh: &FakeGitHub,
    data_dir: &std::path::Path,
    args: &[&str],
) -> std::process::Output {
    let key =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(fake_github::TEST_PRIVATE_KEY_PATH);
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_gitlore"));
    command
        .args(args)
        .env_clear()
        .env("GITLORE_DATA_DIR", data_dir)
        .env("GITLORE_APP_ID", APP_ID.to_string())
        .env("GITLORE_PRIVATE_KEY_PATH", key)
        .env("GITLORE_GITHUB_API_URL", gh.base_url())
        .env("GITLORE_LOG", "warn");
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_backfill_command_fills_the_database_and_prints_progress() {
    let scene = Scene::new(|m| seed_small(m, REPO, 30)).await;
    let dir = tempfile::tempdir().unwrap();
    let out = gitlore(
        &scene.gh,
        dir.path(),
        &["backfill", "--repo", "acme/widgets"],
    )
    .await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let pages = stderr.lines().filter(|l| l.starts_with("acme/widgets: "));
    assert_eq!(pages.count(), 2, "a line per page: {stderr}");
    let done = "acme/widgets backfilled: 30 pull requests, 120 comments";
    assert!(stdout.starts_with(done), "{stdout}");
    let store = Store::open(&gitlore::store::database_path(dir.path())).unwrap();
    assert_eq!(stored(&store, REPO).0, scene.seeded().0);
    let again = gitlore(
        &scene.gh,
        dir.path(),
        &["backfill", "--repo", "acme/widgets"],
    )
    .await;
    assert!(String::from_utf8_lossy(&again.stdout).contains("pass --force"));
    let missing = gitlore(
        &scene.gh,
        dir.path(),
        &["backfill", "--repo", "acme/unknown"],
    )
    .await;
    assert!(!missing.status.success());
    let error = String::from_utf8_lossy(&missing.stderr);
    assert!(error.contains("not installed on acme/unknown"), "{error}");
    assert_eq!(error.lines().count(), 1, "{error}");
}
