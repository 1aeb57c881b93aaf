//! The remote embedder against a fake OpenAI-compatible `/v1/embeddings` over HTTP.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use serde_json::{Value, json};

use gitlore::knowledge::embed::remote::{RemoteEmbedder, RemoteSettings};
use gitlore::store::Store;

#[derive(Clone, Default)]
struct Fake {
    requests: Arc<Mutex<Vec<usize>>>,
    /// When set, answers with one vector fewer than asked.
    short: bool,
}

async fn embeddings(State(fake): State<Fake>, body: String) -> (StatusCode, String) {
    let request: Value = serde_json::from_str(&body).unwrap();
    let inputs = request["input"].as_array().unwrap();
    fake.requests.lock().unwrap().push(inputs.len());
    let take = if fake.short {
        inputs.len() - 1
    } else {
        inputs.len()
    };
    // Answer out of order, as the API allows: the client must sort by index.
    let data: Vec<Value> = inputs
        .iter()
        .take(take)
        .enumerate()
        .rev()
        .map(|(i, text)| json!({ "index": i, "embedding": [text.as_str().unwrap().len() as f32, 1.0, 0.5] }))
        .collect();
    (
        StatusCode::OK,
        json!({ "data": data, "model": request["model"] }).to_string(),
    )
}

async fn start(fake: Fake) -> RemoteEmbedder {
    let app = Router::new()
        .route("/v1/embeddings", post(embeddings))
        .with_state(fake);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    RemoteEmbedder::new(RemoteSettings {
        base_url: format!("http://{address}/v1"),
        api_key: None,
        model: "embed-test".into(),
        timeout: Duration::from_secs(5),
    })
    .unwrap()
}

#[tokio::test]
async fn batches_keep_order_and_a_second_run_is_served_from_the_cache() {
    let fake = Fake::default();
    let embedder = start(fake.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("g.db")).unwrap();
    let texts: Vec<String> = (0..200).map(|i| "x".repeat(i + 1)).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let (vectors, stats) = embedder.embed(&store, &refs).await.unwrap();
    assert_eq!(*fake.requests.lock().unwrap(), vec![96, 96, 8]);
    assert_eq!((stats.requests, stats.embedded, stats.cached), (3, 200, 0));
    assert!(
        vectors
            .iter()
            .enumerate()
            .all(|(i, v)| v[0] == (i + 1) as f32),
        "in input order"
    );

    let (again, stats) = embedder.embed(&store, &refs).await.unwrap();
    assert_eq!(
        fake.requests.lock().unwrap().len(),
        3,
        "no request for cached texts"
    );
    assert_eq!((stats.requests, stats.cached), (0, 200));
    assert_eq!(again, vectors);
}

#[tokio::test]
async fn an_incomplete_answer_is_an_error_and_caches_nothing() {
    let embedder = start(Fake {
        short: true,
        ..Fake::default()
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("g.db")).unwrap();
    let error = embedder.embed(&store, &["a", "b"]).await.unwrap_err();
    assert!(
        error.to_string().contains("1 vectors for 2 inputs"),
        "{error}"
    );
    let cached: i64 = store
        .reader()
        .unwrap()
        .query_row("SELECT count(*) FROM embeddings", [], |r| r.get(0))
        .unwrap();
    assert_eq!(cached, 0);
}
