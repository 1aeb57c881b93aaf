//! The LLM's daily token budget per repository: an analysis spends from it, the built-in
//! components take over once it is spent (and the findings notes say so), and the next UTC day
//! the LLM is used again. Against a fake OpenAI-compatible server over HTTP.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{START_MS, TestApp, review_comment};
use gitlore::analysis::theme_run::Models;
use gitlore::analysis::{self, Request};
use gitlore::domain::{RepoId, UnixMs};
use gitlore::knowledge::filter::NoiseRules;
use gitlore::knowledge::history::HistoryReport;
use gitlore::llm::{LlmClient, LlmSettings, Provider};
use gitlore::repo_config::RepoConfig;
use gitlore::store::llm_spend;
use serde_json::json;

const REPO: i64 = 186_853_002;
/// What every answer of the fake model costs.
const TOKENS_PER_CALL: u64 = 500;

/// A chat model that answers nothing useful, reports `TOKENS_PER_CALL` tokens a call, and
/// counts the calls.
async fn fake_llm() -> (String, Arc<AtomicUsize>) {
    use axum::routing::post;
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        post(move || {
            let counter = counter.clone();
            async move {
                counter.fetch_add(1, Ordering::SeqCst);
                json!({
                    "choices": [{ "message": { "content": "no idea" } }],
                    "usage": { "prompt_tokens": TOKENS_PER_CALL - 100, "completion_tokens": 100 }
                })
                .to_string()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{address}/v1"), calls)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spent_daily_budget_hands_over_to_the_built_in_components_until_the_next_day() {
    let app = TestApp::new();
    for n in 1..=6 {
        let body = format!("Comment {n}: this loop never checks the index against the length.");
        app.send(
            "pull_request_review_comment",
            &review_comment("created", n, &body, 0),
        )
        .await;
    }
    app.drain();
    let (base_url, calls) = fake_llm().await;
    let client = LlmClient::new(LlmSettings {
        provider: Provider::OpenAi,
        base_url,
        api_key: None,
        model: "m".into(),
        timeout: Duration::from_secs(5),
        max_tokens: 100,
        context_tokens: 128_000,
        max_retry_wait: Duration::ZERO,
        daily_tokens: Some(TOKENS_PER_CALL),
    })
    .unwrap();
    let mut config = RepoConfig::default();
    config.analysis.llm = true;
    let history = HistoryReport::default();
    let rules = NoiseRules::new(Some(common::APP_ID), Some("gitlore"), &[]);
    let analyse = |now: i64| {
        let request = Request {
            repo_id: RepoId(REPO),
            repo: "Codertocat/Hello-World",
            config: &config,
            history: &history,
            repo_path: None,
            now: UnixMs::from_secs(now),
            window_end: now,
            models: Models {
                llm: Some(&client),
                embedder: None,
            },
            rules: &rules,
        };
        let store = app.store.clone();
        async move { analysis::run(&store, &request).await.unwrap() }
    };
    let day_one = START_MS / 1000 + 3600;

    let first = analyse(day_one).await;
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "one call spends the whole budget"
    );
    assert!(
        first
            .notes
            .iter()
            .any(|n| n.contains("ran out during this analysis")),
        "{:?}",
        first.notes
    );
    let spent = llm_spend::spent(&app.db(), RepoId(REPO), &llm_spend::day_of(day_one)).unwrap();
    assert_eq!(spent, TOKENS_PER_CALL);

    let second = analyse(day_one + 600).await;
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "no call once the budget is spent"
    );
    assert!(
        second
            .notes
            .iter()
            .any(|n| n.contains("is spent") && n.contains("tomorrow")),
        "{:?}",
        second.notes
    );

    analyse(day_one + 86_400).await;
    assert_eq!(
        calls.load(Ordering::SeqCst),
        2,
        "the next day the LLM is back"
    );
}
