//! Theme runs over the real store. Comments go in through the real ingestion path (synthesized
//! `pull_request_review_comment` payloads parsed and applied), written around five clear themes
//! plus unrelated remarks and noise; `run_themes` must find, describe, keep and retire themes.

mod common;

use common::corpus::{THEMES, UNRELATED};
use common::{APP_ID, START_MS, at, review_comment, thread};
use gitlore::analysis::theme_run::run_themes;
use gitlore::domain::classification::Label;
use gitlore::domain::themes::{Theme, ThemeRun};
use gitlore::domain::{RepoId, UnixMs};
use gitlore::events;
use gitlore::ingest;
use gitlore::knowledge::filter::NoiseRules;
use gitlore::store::Store;
use gitlore::store::themes::load_themes;
use serde_json::{Value, json};

/// The fixture's repository id.
const REPO: i64 = 186_853_002;
const DAY_S: i64 = 86_400;
/// When the first analysis runs: a month after the harness clock's start.
const NOW: i64 = START_MS / 1000 + 30 * DAY_S;

/// Per theme, the two files its comments are on (the first for 2 of every 3 comments).
const PATHS: [[&str; 2]; 5] = [
    ["src/server/webhook.rs", "src/server/signature.rs"],
    ["tests/worker.rs", "tests/ingest.rs"],
    ["src/store/comments.rs", "src/store/jobs.rs"],
    ["src/knowledge/filter.rs", "src/knowledge/cluster.rs"],
    ["src/lib.rs", "src/config.rs"],
];

/// An inline comment by `login` on `path` of PR `pr`, created `minutes` after the clock's start.
fn comment(id: i64, body: &str, pr: i64, login: &str, path: &str, minutes: i64) -> Value {
    let mut p = review_comment("created", id, body, minutes);
    p["pull_request"]["number"] = json!(pr);
    p["comment"]["user"]["login"] = json!(login);
    p["comment"]["path"] = json!(path);
    p["comment"]["created_at"] = json!(at(minutes));
    p
}

/// Comment `i` of theme `t`: PRs 100 + 10·t + i/2, reviewers rotating (theme 4: dana alone).
fn themed(t: usize, i: usize) -> Value {
    let login = if t == 4 {
        "dana"
    } else {
        ["alice", "bob", "carol"][(t + i) % 3]
    };
    let path = PATHS[t][usize::from(i % 3 == 2)];
    let (t, i) = (t as i64, i as i64);
    comment(
        1000 + 100 * t + i,
        THEMES[t as usize][i as usize],
        100 + 10 * t + i / 2,
        login,
        path,
        t * 1000 + i * 60,
    )
}

/// The themed comments, the unrelated ones, and noise (trivial remarks, a bot).
fn corpus() -> Vec<Value> {
    let mut all: Vec<Value> = (0..5)
        .flat_map(|t| (0..8).map(move |i| themed(t, i)))
        .collect();
    for (id, body) in (2000..).zip(UNRELATED) {
        all.push(comment(id, body, 300, "erin", "README.md", 9000));
    }
    for (id, body) in (3000..).zip(["LGTM", "+1", "Thanks!"]) {
        all.push(comment(id, body, 301, "alice", "src/lib.rs", 9000));
    }
    let mut bot = comment(
        3100,
        "Coverage dropped by 2% in src/store",
        301,
        "codecov",
        "x",
        0,
    );
    bot["comment"]["user"]["type"] = json!("Bot");
    all.push(bot);
    all
}

/// Applies `payloads` of `event` through the real parser and ingestion, in one transaction.
fn ingest(store: &Store, event: &str, payloads: &[Value]) {
    let rules = NoiseRules::new(Some(APP_ID), Some("gitlore"), &[]);
    store
        .write(|tx| {
            for (n, payload) in payloads.iter().enumerate() {
                let body = serde_json::to_vec(payload)?;
                let parsed = events::parse(event, &body)?;
                ingest::apply(tx, &rules, &parsed, &format!("d{n}"), UnixMs(START_MS))?;
            }
            Ok(())
        })
        .unwrap();
}

/// A fresh store holding `payloads` (review comment events).
fn store_with(payloads: &[Value]) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("gitlore.db")).unwrap();
    ingest(&store, "pull_request_review_comment", payloads);
    (dir, store)
}

/// The GitHub ids of store comments, ascending.
fn github_ids(store: &Store, ids: &[i64]) -> Vec<i64> {
    let db = store.reader().unwrap();
    let mut out: Vec<i64> = ids
        .iter()
        .map(|id| {
            db.query_row("SELECT github_id FROM comments WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .unwrap()
        })
        .collect();
    out.sort();
    out
}

/// The theme whose members are comments of theme `t` of [`THEMES`].
fn theme_of<'a>(store: &Store, run: &'a ThemeRun, t: i64) -> &'a Theme {
    run.themes
        .iter()
        .find(|theme| github_ids(store, &theme.members)[0] / 100 == 10 + t)
        .unwrap_or_else(|| panic!("no theme {t} in {run:#?}"))
}

/// The GitHub ids of comments `range` of theme `t`.
fn theme_ids(t: i64, range: std::ops::Range<i64>) -> Vec<i64> {
    range.map(|i| 1000 + 100 * t + i).collect()
}

/// Asserts that `theme` holds comments `range` of theme `t` and nothing else, all but at most
/// one: a paraphrase whose wording shares little with the others may stay out of its theme.
fn assert_holds(store: &Store, theme: &Theme, t: i64, range: std::ops::Range<i64>) {
    let members = github_ids(store, &theme.members);
    let expected = theme_ids(t, range);
    assert!(
        members.iter().all(|id| expected.contains(id)),
        "theme {t} holds only its own comments: {members:?}"
    );
    assert!(
        members.len() + 1 >= expected.len(),
        "theme {t} misses at most one comment: {members:?}"
    );
}

/// A bug report the built-in classifier is sure of (confidence above 0.9), unlike any theme.
const OFF_BY_ONE: &str = "This is an off-by-one: the loop reads past the end of the buffer and crashes when the length is zero.";
/// A bug report the built-in classifier is less sure of (about 0.6).
const UNSURE_BUG: &str = "I think this returns the wrong value for negative offsets.";

/// A comment by grace on PR 302 of `src/worker.rs`.
fn bug_report(id: i64, body: &str) -> Value {
    comment(id, body, 302, "grace", "src/worker.rs", 9000)
}

#[test]
fn five_themes_come_out_with_their_comments_and_terms() {
    let (_dir, store) = store_with(&corpus());
    let run = run_themes(&store, RepoId(REPO), 0, NOW).unwrap();
    assert_eq!(
        run.comments, 48,
        "noise is left out: 40 themed + 8 unrelated"
    );
    assert_eq!(run.themes.len(), 5, "{run:#?}");
    for (t, term) in ["unwrap", "test", "query", "snake_case", "document"]
        .iter()
        .enumerate()
    {
        let theme = theme_of(&store, &run, t as i64);
        assert_holds(&store, theme, t as i64, 0..8);
        assert!(theme.terms.contains(&term.to_string()), "{term}: {theme:?}");
        assert_eq!(theme.label, theme.terms[..3].join(", "));
        assert!(
            theme.id.starts_with("t-") && theme.id.len() == 12,
            "{}",
            theme.id
        );
        assert!(theme.members.contains(&theme.medoid));
        assert_eq!((theme.first_seen, theme.last_seen), (NOW, NOW));
    }
    assert!(run.singletons.is_empty(), "{:?}", run.singletons);
}

#[test]
fn a_theme_carries_its_labels_prs_reviewers_paths_dates_and_resolution() {
    let (_dir, store) = store_with(&corpus());
    let threads = [thread("resolved", 1200), thread("resolved", 1201)];
    ingest(&store, "pull_request_review_thread", &threads);
    let run = run_themes(&store, RepoId(REPO), 0, NOW).unwrap();
    let docs = theme_of(&store, &run, 4);
    assert_eq!(docs.labels[0], (Label::Documentation, 8));
    assert_eq!(docs.prs, [140, 141, 142, 143]);
    assert_eq!(docs.reviewers, ["dana"]);
    let paths = [
        ("src/lib.rs".to_string(), 6),
        ("src/config.rs".to_string(), 2),
    ];
    assert_eq!(docs.paths, paths);
    let minute = 60;
    assert_eq!(docs.first_comment_at, START_MS / 1000 + 4000 * minute);
    assert_eq!(docs.last_comment_at, START_MS / 1000 + 4420 * minute);
    assert_eq!(docs.resolved_share, Some(0.0));
    let queries = theme_of(&store, &run, 2);
    assert_holds(&store, queries, 2, 0..8);
    let size = queries.members.len();
    assert_eq!(queries.labels[0], (Label::Performance, size));
    assert_eq!(queries.reviewers, ["alice", "bob", "carol"]);
    let resolved = github_ids(&store, &queries.members)
        .iter()
        .filter(|id| [1200, 1201].contains(*id))
        .count();
    assert_eq!(
        queries.resolved_share,
        Some(resolved as f64 / size as f64),
        "the members' resolved threads"
    );
}

#[test]
fn running_again_without_changes_keeps_every_id() {
    let (_dir, store) = store_with(&corpus());
    let first = run_themes(&store, RepoId(REPO), 0, NOW).unwrap();
    let second = run_themes(&store, RepoId(REPO), 0, NOW + DAY_S).unwrap();
    let ids = |run: &ThemeRun| run.themes.iter().map(|t| t.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&second), ids(&first));
    assert!(second.themes.iter().all(|t| t.first_seen == NOW));
    assert!(second.themes.iter().all(|t| t.last_seen == NOW + DAY_S));
    let stored = load_themes(&store.reader().unwrap(), RepoId(REPO)).unwrap();
    assert_eq!(stored.len(), 5);
    assert!(
        stored
            .iter()
            .all(|t| t.active && t.last_seen == NOW + DAY_S)
    );
    for theme in &first.themes {
        let kept = stored.iter().find(|t| t.id == theme.id).unwrap();
        assert_eq!(kept.members.len(), theme.members.len());
    }
}

#[test]
fn new_comments_in_a_theme_keep_its_id_and_first_seen() {
    let (_dir, store) = store_with(&corpus());
    let before = run_themes(&store, RepoId(REPO), 0, NOW).unwrap();
    let old = theme_of(&store, &before, 2).clone();
    let grown = [
        "Yet another query inside a loop, an N+1 query against the database.",
        "N+1 query again: batch the query instead of one per row in the loop.",
        "One query per row inside this loop again; load them with a single query.",
    ];
    let new: Vec<Value> = (0..3)
        .map(|i| {
            comment(
                1208 + i,
                grown[i as usize],
                124,
                "frank",
                "src/store/repos.rs",
                20_000,
            )
        })
        .collect();
    ingest(&store, "pull_request_review_comment", &new);
    let after = run_themes(&store, RepoId(REPO), 0, NOW + DAY_S).unwrap();
    let theme = theme_of(&store, &after, 2);
    assert_holds(&store, theme, 2, 0..11);
    let grown_ids = github_ids(&store, &theme.members);
    assert!(
        (1208..1211).all(|id| grown_ids.contains(&id)),
        "the new comments joined: {grown_ids:?}"
    );
    assert_eq!(
        (theme.id.as_str(), theme.first_seen),
        (old.id.as_str(), NOW)
    );
    assert_eq!(theme.last_seen, NOW + DAY_S);
    assert_eq!(theme.prs, [120, 121, 122, 123, 124]);
    assert!(theme.reviewers.contains(&"frank".to_string()));
    assert_eq!(theme.last_comment_at, START_MS / 1000 + 20_000 * 60);
}

#[test]
fn deleting_most_of_a_theme_retires_it() {
    let (_dir, store) = store_with(&corpus());
    let before = run_themes(&store, RepoId(REPO), 0, NOW).unwrap();
    let naming = theme_of(&store, &before, 3).id.clone();
    let size = theme_of(&store, &before, 3).members.len();
    let deletions: Vec<Value> = theme_ids(3, 0..6)
        .into_iter()
        .map(|id| review_comment("deleted", id, "", 600))
        .collect();
    ingest(&store, "pull_request_review_comment", &deletions);
    let after = run_themes(&store, RepoId(REPO), 0, NOW + DAY_S).unwrap();
    assert_eq!(after.comments, 42);
    assert_eq!(after.themes.len(), 4, "{after:#?}");
    assert!(after.themes.iter().all(|t| t.id != naming));
    let stored = load_themes(&store.reader().unwrap(), RepoId(REPO)).unwrap();
    let retired: Vec<_> = stored.iter().filter(|t| !t.active).collect();
    assert_eq!(retired.len(), 1);
    assert_eq!(
        (retired[0].id.as_str(), retired[0].last_seen),
        (naming.as_str(), NOW)
    );
    assert_eq!(
        retired[0].members.len(),
        size,
        "a retired theme keeps its last members"
    );
}

#[test]
fn a_sure_bug_outside_every_theme_is_a_notable_singleton() {
    let mut comments = corpus();
    comments.extend([bug_report(2100, OFF_BY_ONE), bug_report(2101, UNSURE_BUG)]);
    let (_dir, store) = store_with(&comments);
    let run = run_themes(&store, RepoId(REPO), 0, NOW).unwrap();
    assert_eq!(run.themes.len(), 5);
    // The unwrap theme's comments are bugs too, but they are in a theme; 2101 is not sure.
    assert_eq!(github_ids(&store, &run.singletons), [2100]);
    assert!(
        run.themes
            .iter()
            .all(|t| !t.members.contains(&run.singletons[0]))
    );
}

#[test]
fn the_same_comments_in_another_order_give_the_same_themes() {
    let (_a, forward) = store_with(&corpus());
    let mut reversed = corpus();
    reversed.reverse();
    let (_b, backward) = store_with(&reversed);
    let summary = |store: &Store| -> (Vec<_>, Vec<i64>) {
        let run = run_themes(store, RepoId(REPO), 0, NOW).unwrap();
        let themes = run.themes.iter().map(|t| {
            let medoid = github_ids(store, &[t.medoid]);
            (
                t.id.clone(),
                t.terms.clone(),
                github_ids(store, &t.members),
                medoid,
            )
        });
        (themes.collect(), run.themes[0].members.clone())
    };
    let ((a, a_store_ids), (b, b_store_ids)) = (summary(&forward), summary(&backward));
    assert_ne!(
        a_store_ids, b_store_ids,
        "the stores number comments differently"
    );
    assert_eq!(a, b);
}

#[test]
fn the_window_limits_the_comments_and_a_theme_that_comes_back_keeps_its_id() {
    let (_dir, store) = store_with(&corpus());
    let all = run_themes(&store, RepoId(REPO), 0, NOW).unwrap();
    // Themes 0 and 1 were written before minute 2000.
    let recent = run_themes(
        &store,
        RepoId(REPO),
        START_MS / 1000 + 2000 * 60,
        NOW + DAY_S,
    )
    .unwrap();
    assert_eq!((recent.comments, recent.themes.len()), (32, 3));
    let stored = load_themes(&store.reader().unwrap(), RepoId(REPO)).unwrap();
    assert_eq!(stored.iter().filter(|t| !t.active).count(), 2);
    let again = run_themes(&store, RepoId(REPO), 0, NOW + 2 * DAY_S).unwrap();
    let ids = |run: &ThemeRun| {
        let mut ids: Vec<_> = run.themes.iter().map(|t| t.id.clone()).collect();
        ids.sort();
        ids
    };
    assert_eq!(ids(&again), ids(&all));
    assert!(again.themes.iter().all(|t| t.first_seen == NOW));
}

#[test]
fn too_few_comments_give_no_themes_but_a_sure_bug_is_kept() {
    let (_dir, store) = store_with(&[]);
    assert_eq!(
        run_themes(&store, RepoId(REPO), 0, NOW).unwrap(),
        ThemeRun::default()
    );
    let few = [themed(1, 0), themed(3, 0), bug_report(2100, OFF_BY_ONE)];
    ingest(&store, "pull_request_review_comment", &few);
    let run = run_themes(&store, RepoId(REPO), 0, NOW).unwrap();
    assert_eq!((run.comments, run.themes.len()), (3, 0));
    assert_eq!(
        github_ids(&store, &run.singletons),
        [2100],
        "the off-by-one is a sure bug; the missing test and the naming remark are not bugs"
    );
}

/// A fake OpenAI-compatible server: the chat model labels every comment it is asked about
/// `security`; the embeddings endpoint fails. Keeps the chat requests' user messages.
async fn fake_models() -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use axum::routing::post;
    let chats = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let counter = chats.clone();
    let app = axum::Router::new()
        .route(
            "/v1/chat/completions",
            post(move |body: String| {
                let counter = counter.clone();
                async move {
                    let request: Value = serde_json::from_str(&body).unwrap();
                    let user = request["messages"][1]["content"].as_str().unwrap();
                    counter.lock().unwrap().push(user.to_string());
                    let answer: String = user
                        .split("<comment id=\"")
                        .skip(1)
                        .map(|rest| {
                            format!(
                                "<c id=\"{}\"><label>security</label></c>",
                                rest.split('"').next().unwrap()
                            )
                        })
                        .collect();
                    json!({ "choices": [{ "message": { "content": answer } }] }).to_string()
                }
            }),
        )
        .route(
            "/v1/embeddings",
            post(|| async { (axum::http::StatusCode::INTERNAL_SERVER_ERROR, "down") }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{address}/v1"), chats)
}

#[tokio::test]
async fn configured_models_are_used_and_their_failures_fall_back_to_builtin() {
    use gitlore::analysis::theme_run::{Models, run_themes_with};
    use gitlore::knowledge::embed::remote::{RemoteEmbedder, RemoteSettings};
    use gitlore::llm::{LlmClient, LlmSettings, Provider};
    use std::time::Duration;

    let (base_url, chats) = fake_models().await;
    let llm = LlmClient::new(LlmSettings {
        provider: Provider::OpenAi,
        base_url: base_url.clone(),
        api_key: None,
        model: "m".into(),
        timeout: Duration::from_secs(5),
        max_tokens: 1000,
        context_tokens: 128_000,
        max_retry_wait: Duration::from_secs(1),
        daily_tokens: None,
    })
    .unwrap();
    let embedder = RemoteEmbedder::new(RemoteSettings {
        base_url,
        api_key: None,
        model: "e".into(),
        timeout: Duration::from_secs(5),
    })
    .unwrap();
    let (_dir, store) = store_with(&corpus());
    let builtin = run_themes(&store, RepoId(REPO), 0, NOW).unwrap();

    let models = Models {
        llm: Some(&llm),
        embedder: Some(&embedder),
    };
    let run = run_themes_with(&store, RepoId(REPO), 0, NOW, models, &Default::default())
        .await
        .unwrap();
    assert_eq!(
        run.themes.len(),
        builtin.themes.len(),
        "the built-in embedder stood in"
    );
    assert!(
        run.notes
            .iter()
            .any(|n| n.contains("the built-in embedder was used")),
        "{:?}",
        run.notes
    );
    for theme in &run.themes {
        assert_eq!(
            theme.labels,
            vec![(Label::Security, theme.members.len())],
            "the LLM's labels count"
        );
    }
    let asked = chats.lock().unwrap().len();
    assert!(asked >= 1);
    assert!(
        chats.lock().unwrap()[0].contains("<diff>\n@@ -1 +1 @@\n-# Hello-World\n</diff>"),
        "an inline comment is asked about with the end of its diff hunk, as the corpus was labelled"
    );
    run_themes_with(&store, RepoId(REPO), 0, NOW, models, &Default::default())
        .await
        .unwrap();
    assert_eq!(
        chats.lock().unwrap().len(),
        asked,
        "unchanged comments are not sent again"
    );
}

#[tokio::test]
async fn ignored_authors_and_paths_are_left_out_of_the_themes() {
    use gitlore::analysis::theme_run::{Models, run_themes_with};
    use gitlore::knowledge::exclude::Exclusions;
    use gitlore::repo_config::Analysis;
    let (_dir, store) = store_with(&corpus());
    let analysis = Analysis {
        ignore_authors: vec!["erin".into()],
        ignore_paths: vec![PATHS[0][0].into(), PATHS[0][1].into()],
        ..Analysis::default()
    };
    let run = run_themes_with(
        &store,
        RepoId(REPO),
        0,
        NOW,
        Models::default(),
        &Exclusions::from_config(&analysis),
    )
    .await
    .unwrap();
    assert_eq!(
        run.comments, 32,
        "48 less theme 0's 8 comments and erin's 8"
    );
    assert_eq!(run.themes.len(), 4, "{run:#?}");
    assert!(
        run.themes
            .iter()
            .all(|t| !t.terms.contains(&"unwrap".to_string()))
    );
}

#[test]
fn a_new_classifier_reclassifies_each_comment_once() {
    let lgtm = comment(
        5000,
        "LGTM, merging once CI is green",
        400,
        "ana",
        "src/lib.rs",
        0,
    );
    let bug = comment(5001, OFF_BY_ONE, 400, "bob", "src/lib.rs", 1);
    let (_dir, store) = store_with(&[lgtm, bug]);
    let rules = NoiseRules::new(Some(APP_ID), Some("gitlore"), &[]);
    let refresh = || {
        store
            .write(|tx| ingest::refresh_classifications(tx, RepoId(REPO), &rules))
            .unwrap()
    };
    assert_eq!(
        refresh(),
        0,
        "ingestion classified both with the current version"
    );
    // What an older classifier left: other keys, and the chatter taken for a remark.
    store
        .write(|tx| {
            tx.execute(
                "UPDATE classifications SET body_hash = 'old:' || body_hash",
                [],
            )?;
            tx.execute("UPDATE comments SET noise = NULL", [])?;
            Ok(())
        })
        .unwrap();
    assert_eq!(refresh(), 2);
    assert_eq!(refresh(), 0, "an unchanged comment is read once");
    let run = run_themes(&store, RepoId(REPO), 0, NOW).unwrap();
    assert_eq!(run.comments, 1, "the chatter is noise again");
}
