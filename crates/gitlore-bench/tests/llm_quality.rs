//! The benches of the configured models against a fake OpenAI-compatible model over HTTP.
//! `gitlore-bench llm-quality`: the built-in filter keeps its sure noise from the model, which
//! judges the rest (noise included) and is scored per label, a second run reads them from its store, and a model that answers
//! nothing is an error, not a scorecard of the built-in labels. `gitlore-bench findings
//! --configured-models`: the analysis asks the model, and what fell back is said.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use serde_json::{Value, json};

/// A labelled corpus of one test repository: two noise comments the built-in filter is sure of
/// and four substantive ones, self-written for this test of the command's plumbing.
const RECORDS: [(&str, Option<&str>, &[&str]); 6] = [
    ("LGTM", Some("trivial"), &[]),
    ("@bors r+", Some("trivial"), &[]),
    (
        "Please add a test for the empty input, it is not covered.",
        None,
        &["testing"],
    ),
    (
        "This leaks the file handle when the read fails.",
        None,
        &["bug"],
    ),
    ("Why is this lock needed here?", None, &["question"]),
    (
        "nit: the docstring says 'retruns'.",
        None,
        &["nitpick", "documentation"],
    ),
];

fn write_corpus(dir: &Path) {
    std::fs::write(dir.join("splits.toml"), "test = [\"acme/widgets\"]\n").unwrap();
    let lines: Vec<String> = RECORDS
        .iter()
        .enumerate()
        .map(|(i, (body, noise, labels))| {
            json!({
                "id": format!("w-{i}"), "repo": "acme/widgets", "pr": i + 1, "author": "ana",
                "kind": "conversation", "body": body, "noise": noise, "labels": labels,
            })
            .to_string()
        })
        .collect();
    std::fs::write(dir.join("acme__widgets.jsonl"), lines.join("\n")).unwrap();
}

#[derive(Clone)]
struct Fake {
    /// Whether the model answers (else every request fails with a 500).
    answers: bool,
    /// The user messages of the classification requests received.
    asked: Arc<Mutex<Vec<String>>>,
    /// How many other requests (the synthesizer's) were received.
    others: Arc<Mutex<usize>>,
}

/// Labels each asked comment by a word of it: "LGTM" noise, "test" testing, "leak" bug, "why"
/// question, and anything else documentation (so the nitpick of the fourth comment is missed). Any other
/// request gets prose, which no synthesizer can use.
async fn complete(State(fake): State<Fake>, body: String) -> (StatusCode, String) {
    let request: Value = serde_json::from_str(&body).unwrap();
    let system = request["messages"][0]["content"].as_str().unwrap();
    let user = request["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    let classifying = system.starts_with("You label pull-request review comments");
    if classifying {
        fake.asked.lock().unwrap().push(user.clone());
    } else {
        *fake.others.lock().unwrap() += 1;
    }
    if !fake.answers {
        return (StatusCode::INTERNAL_SERVER_ERROR, "down".into());
    }
    let answer: String = if classifying {
        user.split("<comment id=\"")
            .skip(1)
            .map(|rest| {
                let id = rest.split('"').next().unwrap();
                let text = rest.to_lowercase();
                let label = if text.contains("lgtm") {
                    "noise"
                } else if text.contains("test") {
                    "testing"
                } else if text.contains("leak") {
                    "bug"
                } else if text.contains("why") {
                    "question"
                } else {
                    "documentation"
                };
                format!("<c id=\"{id}\"><label>{label}</label></c>")
            })
            .collect()
    } else {
        "I would rather not.".to_string()
    };
    let reply = json!({
        "choices": [{ "message": { "role": "assistant", "content": answer } }],
        "usage": { "prompt_tokens": 100, "completion_tokens": 20 },
    });
    (StatusCode::OK, reply.to_string())
}

/// A corpus, a data directory and the fake model's URL and state.
async fn setup(answers: bool) -> (tempfile::TempDir, tempfile::TempDir, String, Fake) {
    let corpus = tempfile::tempdir().unwrap();
    write_corpus(corpus.path());
    let (url, fake) = start(answers).await;
    (corpus, tempfile::tempdir().unwrap(), url, fake)
}

async fn start(answers: bool) -> (String, Fake) {
    let fake = Fake {
        answers,
        asked: Arc::new(Mutex::new(Vec::new())),
        others: Arc::new(Mutex::new(0)),
    };
    let app = Router::new()
        .route("/v1/chat/completions", post(complete))
        .with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{address}/v1"), fake)
}

/// Runs `gitlore-bench llm-quality` on `corpus` with the model at `base_url` (none: no model
/// configured), its answers kept in `data`.
async fn bench(corpus: &Path, data: &Path, base_url: Option<&str>) -> Output {
    run_bench(&["llm-quality"], corpus, data, base_url).await
}

/// Runs `gitlore-bench ARGS… --corpus CORPUS --data-dir DATA` with the model at `base_url`.
async fn run_bench(args: &[&str], corpus: &Path, data: &Path, base_url: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gitlore-bench"));
    command
        .args(args)
        .arg("--corpus")
        .arg(corpus)
        .arg("--data-dir")
        .arg(data)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("GITLORE_LOG", "warn");
    if let Some(url) = base_url {
        command
            .env("GITLORE_LLM_PROVIDER", "openai")
            .env("GITLORE_LLM_BASE_URL", url)
            .env("GITLORE_LLM_MODEL", "fake-model")
            .env("GITLORE_LLM_API_KEY", "sk-test")
            .env("GITLORE_LLM_TIMEOUT_SECS", "5");
    }
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

/// The printed row of `label`: precision, recall, F1, support.
fn row(stdout: &str, label: &str) -> String {
    stdout
        .lines()
        .find(|line| line.split_whitespace().next() == Some(label))
        .unwrap_or_else(|| panic!("no {label} row in:\n{stdout}"))
        .split_whitespace()
        .skip(1)
        .take(4)
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_labels_what_the_filter_keeps_and_is_scored_per_label() {
    let (corpus, data, url, fake) = setup(true).await;
    let asked = fake.asked;

    let first = bench(corpus.path(), data.path(), Some(&url)).await;
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert!(
        first.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(
        stdout.contains("6 comments; 120 tokens (20000 per 1,000 comments), 4 labelled;"),
        "{stdout}"
    );
    let sent = asked.lock().unwrap().concat();
    assert!(
        sent.contains("LGTM") && !sent.contains("bors"),
        "the filter's sure noise never reaches the model, its trivial does: {sent}"
    );
    assert_eq!(row(&stdout, "testing"), "1.000 1.000 1.000 1");
    assert_eq!(row(&stdout, "bug"), "1.000 1.000 1.000 1");
    assert_eq!(row(&stdout, "question"), "1.000 1.000 1.000 1");
    assert_eq!(row(&stdout, "nitpick"), "0.000 0.000 0.000 1");
    assert_eq!(row(&stdout, "documentation"), "1.000 1.000 1.000 1");
    assert!(
        stdout.contains("noise P 1.000 R 1.000 (n   2)  labelled 1.000 of 4"),
        "{stdout}"
    );

    let second = bench(corpus.path(), data.path(), Some(&url)).await;
    let again = String::from_utf8_lossy(&second.stdout);
    assert!(second.status.success(), "{again}");
    assert!(
        again.contains("6 comments; 0 tokens (0 per 1,000 comments), 4 labelled;"),
        "{again}"
    );
    assert_eq!(
        asked.lock().unwrap().len(),
        1,
        "the second run asks nothing"
    );
    assert_eq!(row(&again, "nitpick"), row(&stdout, "nitpick"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_answers_nothing_is_an_error_and_so_is_none_configured() {
    let (corpus, data, url, fake) = setup(false).await;
    let asked = fake.asked;

    let failed = bench(corpus.path(), data.path(), Some(&url)).await;
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(!failed.status.success());
    assert!(
        stderr.contains("the model answered none of the comments asked about: acme/widgets: the LLM gave no usable labels for 5 comments"),
        "{stderr}"
    );
    assert!(!asked.lock().unwrap().is_empty(), "it was asked");
    assert!(
        !String::from_utf8_lossy(&failed.stdout).contains("macro-F1"),
        "no scorecard of the built-in labels passed off as the model's"
    );

    let unset = bench(corpus.path(), data.path(), None).await;
    let stderr = String::from_utf8_lossy(&unset.stderr);
    assert!(!unset.status.success());
    assert!(
        stderr.contains("llm-quality needs a model: set GITLORE_LLM_PROVIDER"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn findings_with_the_configured_models_ask_them_and_say_what_fell_back() {
    let (corpus, data, url, fake) = setup(true).await;
    let args = ["findings", "--configured-models"];

    let first = run_bench(&args, corpus.path(), data.path(), Some(&url)).await;
    let (stdout, stderr) = (
        String::from_utf8_lossy(&first.stdout),
        String::from_utf8_lossy(&first.stderr),
    );
    assert!(first.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("all test"), "{stdout}");
    let asked = fake.asked.lock().unwrap().concat();
    assert!(
        asked.contains("This leaks the file handle")
            && asked.contains("LGTM")
            && !asked.contains("bors"),
        "the analysis asks the model about all but the filter's sure noise: {asked}"
    );
    assert!(
        *fake.others.lock().unwrap() > 0,
        "the synthesizer is asked too"
    );
    assert!(
        stderr.contains("acme/widgets: ") && stderr.contains("the built-in findings are shown"),
        "the synthesizer's fallback is said: {stderr}"
    );

    let classified = fake.asked.lock().unwrap().len();
    let second = run_bench(&args, corpus.path(), data.path(), Some(&url)).await;
    assert!(second.status.success());
    assert_eq!(
        fake.asked.lock().unwrap().len(),
        classified,
        "labels come from the kept store the second time"
    );

    let unset = run_bench(&args, corpus.path(), data.path(), None).await;
    assert!(!unset.status.success());
    assert!(
        String::from_utf8_lossy(&unset.stderr).contains("--configured-models needs a model"),
        "{}",
        String::from_utf8_lossy(&unset.stderr)
    );
}
