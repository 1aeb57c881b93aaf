//! Recorded answers of a model ("cassettes") and a stand-in OpenAI-compatible (and Anthropic)
//! endpoint that replays them, so that the LLM path's scorecards run as regression tests on real
//! model answers, offline.
//!
//! A cassette is one request and the answer a model wrote to it, stored unedited with who
//! answered, when, and the system prompt's version. It is found by the request's key: a hash of
//! the system prompt and the conversation, with full commit shas written as `<sha>` so that a
//! temporary repository's commits do not break replay. A request without a cassette is answered
//! 404 and written, exactly as sent, to the misses folder, for a model to answer
//! (`gitlore-bench cassettes add` turns the answers into cassettes).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, bail};
use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::estimate_tokens;

/// One turn of a recorded conversation, system prompt excluded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    pub role: String,
    pub content: String,
}

/// A request exactly as a client sent it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    pub key: String,
    pub system: String,
    pub messages: Vec<Turn>,
}

/// A recorded answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cassette {
    pub key: String,
    /// The system prompt's version line (`Prompt version: …`), else `sha256:` and its first 12
    /// hex digits.
    pub prompt: String,
    /// The first 12 hex digits of the system prompt's sha256: a cassette of another prompt is stale.
    pub system_sha256: String,
    /// Who wrote the answer (a model, and how it was given the request).
    pub answered_by: String,
    /// The day it was answered (YYYY-MM-DD).
    pub answered_at: String,
    pub messages: Vec<Turn>,
    /// The model's answer, unedited.
    pub answer: String,
}

/// The first 12 hex digits of `system`'s sha256.
pub fn system_sha(system: &str) -> String {
    hex::encode(Sha256::digest(system.as_bytes()))[..12].to_string()
}

/// The version a system prompt names on its first line, else its hash.
pub fn prompt_name(system: &str) -> String {
    system
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("Prompt version: "))
        .map_or_else(
            || format!("sha256:{}", system_sha(system)),
            |v| v.trim().to_string(),
        )
}

/// The key of a request: a hash of its system prompt and turns, full commit shas normalised.
pub fn request_key(system: &str, messages: &[Turn]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(normalise(system).as_bytes());
    for turn in messages {
        hasher.update([0]);
        hasher.update(turn.role.as_bytes());
        hasher.update([0]);
        hasher.update(normalise(&turn.content).as_bytes());
    }
    hex::encode(hasher.finalize())[..24].to_string()
}

/// `text` with every run of exactly 40 hex digits (a full commit sha) written `<sha>`.
fn normalise(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_hexdigit() {
            let run_end = (i..bytes.len())
                .find(|&j| !bytes[j].is_ascii_hexdigit())
                .unwrap_or(bytes.len());
            if run_end - i == 40 {
                out.push_str(&text[start..i]);
                out.push_str("<sha>");
                start = run_end;
            }
            i = run_end;
        } else {
            i += 1;
        }
    }
    out.push_str(&text[start..]);
    out
}

/// The request a client sent, from an OpenAI chat-completions or an Anthropic messages body.
pub fn parse_request(body: &Value) -> Result<Request> {
    let turns = body["messages"]
        .as_array()
        .context("the request has no messages")?;
    let mut system = body["system"].as_str().unwrap_or_default().to_string();
    let mut messages = Vec::new();
    for turn in turns {
        let role = turn["role"].as_str().context("a message has no role")?;
        let content = turn["content"]
            .as_str()
            .context("a message's content is not text")?;
        if role == "system" {
            system = content.to_string();
        } else {
            messages.push(Turn {
                role: role.to_string(),
                content: content.to_string(),
            });
        }
    }
    Ok(Request {
        key: request_key(&system, &messages),
        system,
        messages,
    })
}

/// The cassettes of a folder, what the stand-in used and what it missed.
#[derive(Debug)]
pub struct Recorded {
    by_key: HashMap<String, Cassette>,
    misses: Option<PathBuf>,
    used: Mutex<BTreeSet<String>>,
    missed: Mutex<BTreeSet<String>>,
}

impl Recorded {
    /// Reads every `*.json` cassette of `dir` (none when it does not exist); requests without
    /// one are written to `misses` when given.
    pub fn load(dir: &Path, misses: Option<&Path>) -> Result<Recorded> {
        let mut by_key = HashMap::new();
        if dir.exists() {
            for entry in
                std::fs::read_dir(dir).with_context(|| format!("Cannot read {}", dir.display()))?
            {
                let path = entry?.path();
                if path.extension().and_then(|e| e.to_str()) != Some("json") {
                    continue;
                }
                let text = std::fs::read_to_string(&path)
                    .with_context(|| format!("Cannot read {}", path.display()))?;
                let cassette: Cassette = serde_json::from_str(&text)
                    .with_context(|| format!("{} is not a cassette", path.display()))?;
                by_key.insert(cassette.key.clone(), cassette);
            }
        }
        if let Some(misses) = misses {
            std::fs::create_dir_all(misses)
                .with_context(|| format!("Cannot create {}", misses.display()))?;
        }
        Ok(Recorded {
            by_key,
            misses: misses.map(Path::to_path_buf),
            used: Mutex::new(BTreeSet::new()),
            missed: Mutex::new(BTreeSet::new()),
        })
    }

    /// How many cassettes were read.
    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// The answer recorded for `request`, or None after writing the request to the misses folder.
    fn answer(&self, request: &Request) -> Result<Option<String>> {
        if let Some(cassette) = self.by_key.get(&request.key) {
            self.used.lock().expect("lock").insert(request.key.clone());
            return Ok(Some(cassette.answer.clone()));
        }
        self.missed
            .lock()
            .expect("lock")
            .insert(request.key.clone());
        if let Some(dir) = &self.misses {
            let path = dir.join(format!("{}.json", request.key));
            std::fs::write(&path, serde_json::to_string_pretty(request)?)
                .with_context(|| format!("Cannot write {}", path.display()))?;
        }
        Ok(None)
    }

    /// Requests answered from a cassette so far.
    pub fn used(&self) -> usize {
        self.used.lock().expect("lock").len()
    }

    /// Requests that had no cassette so far.
    pub fn missed(&self) -> usize {
        self.missed.lock().expect("lock").len()
    }

    /// Cassettes recorded for a system prompt other than `current` (the prompts' sha256s, as
    /// [`system_sha`] gives them), by prompt name: answers to a prompt that has changed.
    pub fn stale(&self, current: &[String]) -> Vec<(String, usize)> {
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for cassette in self.by_key.values() {
            if !current.contains(&cassette.system_sha256) {
                *counts.entry(cassette.prompt.as_str()).or_default() += 1;
            }
        }
        let mut stale: Vec<(String, usize)> = counts
            .into_iter()
            .map(|(name, n)| (name.to_string(), n))
            .collect();
        stale.sort();
        stale
    }
}

/// Serves `recorded` on 127.0.0.1 as an OpenAI-compatible endpoint (`POST /v1/chat/completions`)
/// and an Anthropic one (`POST /v1/messages`) until the runtime stops; returns the OpenAI base URL
/// (`http://127.0.0.1:PORT/v1`; the Anthropic base is the same without `/v1`).
pub async fn serve(recorded: Arc<Recorded>) -> Result<String> {
    let app = Router::new()
        .route("/v1/chat/completions", post(openai))
        .route("/v1/messages", post(anthropic))
        .with_state(recorded);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .context("Cannot listen on 127.0.0.1")?;
    let address = listener.local_addr()?;
    tokio::spawn(async move {
        if let Err(error) = axum::serve(listener, app).await {
            tracing::error!(%error, "the recorded-answers endpoint stopped");
        }
    });
    Ok(format!("http://{address}/v1"))
}

/// The answer to one request body, with its token estimate, or the error response.
fn replay(recorded: &Recorded, body: &str) -> Result<(String, u64, u64), (StatusCode, String)> {
    let failed = |status: StatusCode, message: String| {
        (
            status,
            json!({ "error": { "message": message } }).to_string(),
        )
    };
    let request = serde_json::from_str::<Value>(body)
        .map_err(anyhow::Error::from)
        .and_then(|value| parse_request(&value))
        .map_err(|error| failed(StatusCode::BAD_REQUEST, format!("{error:#}")))?;
    match recorded.answer(&request) {
        Ok(Some(answer)) => {
            let input = estimate_tokens(&request.system)
                + request
                    .messages
                    .iter()
                    .map(|t| estimate_tokens(&t.content))
                    .sum::<u64>();
            let output = estimate_tokens(&answer);
            Ok((answer, input, output))
        }
        Ok(None) => Err(failed(
            StatusCode::NOT_FOUND,
            format!("no recorded answer for request {}", request.key),
        )),
        Err(error) => Err(failed(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("{error:#}"),
        )),
    }
}

async fn openai(State(recorded): State<Arc<Recorded>>, body: String) -> (StatusCode, String) {
    match replay(&recorded, &body) {
        Ok((answer, input, output)) => (
            StatusCode::OK,
            json!({
                "choices": [{ "message": { "role": "assistant", "content": answer } }],
                "usage": { "prompt_tokens": input, "completion_tokens": output },
            })
            .to_string(),
        ),
        Err(failed) => failed,
    }
}

async fn anthropic(State(recorded): State<Arc<Recorded>>, body: String) -> (StatusCode, String) {
    match replay(&recorded, &body) {
        Ok((answer, input, output)) => (
            StatusCode::OK,
            json!({
                "content": [{ "type": "text", "text": answer }],
                "usage": { "input_tokens": input, "output_tokens": output },
            })
            .to_string(),
        ),
        Err(failed) => failed,
    }
}

/// Turns each answer `answers/KEY.txt` to a request `misses/KEY.json` into a cassette in `to`,
/// stored unedited, answered by `by` on `day`; returns how many were added. An answer without its
/// request is an error.
pub fn add(misses: &Path, answers: &Path, to: &Path, by: &str, day: &str) -> Result<usize> {
    std::fs::create_dir_all(to).with_context(|| format!("Cannot create {}", to.display()))?;
    let mut added = 0;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(answers)
        .with_context(|| format!("Cannot read {}", answers.display()))?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    entries.sort();
    for path in entries {
        if path.extension().and_then(|e| e.to_str()) != Some("txt") {
            continue;
        }
        let key = path
            .file_stem()
            .and_then(|s| s.to_str())
            .context("an answer file has no name")?;
        let request_path = misses.join(format!("{key}.json"));
        let Ok(text) = std::fs::read_to_string(&request_path) else {
            bail!(
                "{} answers no request: {} is missing",
                path.display(),
                request_path.display()
            );
        };
        let request: Request = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a request", request_path.display()))?;
        let answer = std::fs::read_to_string(&path)
            .with_context(|| format!("Cannot read {}", path.display()))?;
        let cassette = Cassette {
            key: request.key.clone(),
            prompt: prompt_name(&request.system),
            system_sha256: system_sha(&request.system),
            answered_by: by.to_string(),
            answered_at: day.to_string(),
            messages: request.messages,
            answer,
        };
        let out = to.join(format!("{key}.json"));
        std::fs::write(&out, serde_json::to_string_pretty(&cassette)? + "\n")
            .with_context(|| format!("Cannot write {}", out.display()))?;
        added += 1;
    }
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(role: &str, content: &str) -> Turn {
        Turn {
            role: role.into(),
            content: content.into(),
        }
    }

    #[test]
    fn a_key_ignores_full_shas_but_not_the_rest_of_the_request() {
        let a = [turn("user", &format!("head=\"{}\" x", "a".repeat(40)))];
        let b = [turn("user", &format!("head=\"{}\" x", "b".repeat(40)))];
        let short = [turn("user", "head=\"abc1234\" x")];
        assert_eq!(request_key("sys", &a), request_key("sys", &b));
        assert_ne!(request_key("sys", &a), request_key("sys", &short));
        assert_ne!(request_key("sys", &a), request_key("other", &a));
        assert_ne!(
            request_key("sys", &[turn("user", "a"), turn("assistant", "b")]),
            request_key("sys", &[turn("user", "ab")])
        );
    }

    #[test]
    fn both_protocols_give_the_same_request() {
        let openai = json!({"messages": [
            {"role": "system", "content": "sys"}, {"role": "user", "content": "q"}]});
        let anthropic = json!({"system": "sys", "messages": [{"role": "user", "content": "q"}]});
        assert_eq!(
            parse_request(&openai).unwrap(),
            parse_request(&anthropic).unwrap()
        );
    }

    #[test]
    fn a_prompt_is_named_by_its_version_line_or_its_hash() {
        assert_eq!(
            prompt_name("Prompt version: synthesize/2\nYou …"),
            "synthesize/2"
        );
        assert!(prompt_name("You label …").starts_with("sha256:"));
    }
}
