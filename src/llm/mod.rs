//! LLM provider clients: OpenAI-compatible chat completions (OpenAI, OpenRouter, vLLM,
//! Ollama, llama.cpp server …) and Anthropic messages, behind one `complete` call with an explicit
//! timeout and one polite retry on rate limits, metered clients that stop at a token budget, and
//! prompts bounded by the model's context: a conversation too long loses its oldest exchanges, a
//! prompt that still does not fit is never sent.
//!
//! Nothing here decides what to do with a failure: callers fall back to the built-in components.
//! `cassettes` replays a model's recorded answers behind the same protocols, for the benches and
//! tests.

pub mod cassettes;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};

use crate::domain::Secret;

/// Which wire protocol the provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// `POST {base}/chat/completions` (base usually ends in `/v1`).
    OpenAi,
    /// `POST {base}/v1/messages`.
    Anthropic,
}

impl Provider {
    /// Parses `GITLORE_LLM_PROVIDER`.
    pub fn parse(name: &str) -> Option<Provider> {
        match name.trim().to_ascii_lowercase().as_str() {
            "openai" => Some(Provider::OpenAi),
            "anthropic" => Some(Provider::Anthropic),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
        }
    }
}

/// How to reach one model.
#[derive(Debug, Clone)]
pub struct LlmSettings {
    pub provider: Provider,
    /// e.g. `https://api.openai.com/v1` or `https://api.anthropic.com`.
    pub base_url: String,
    pub api_key: Option<Secret>,
    pub model: String,
    /// Per request, connection to last byte.
    pub timeout: Duration,
    /// Most tokens the model may write in one answer.
    pub max_tokens: u32,
    /// Tokens the model reads and writes in one request (its context window): a prompt may take
    /// what `max_tokens` leaves of it.
    pub context_tokens: u32,
    /// The longest `Retry-After` worth waiting for once; a longer one fails the call.
    pub max_retry_wait: Duration,
    /// Tokens (input plus output) the LLM may spend on one repository per UTC day; after that
    /// the built-in components take over until the next day. None: no budget.
    pub daily_tokens: Option<u64>,
}

/// A model's answer and what it cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    pub text: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// Who wrote one turn of a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

impl Role {
    fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One turn of a conversation after the system prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn user(content: impl Into<String>) -> Message {
        Message {
            role: Role::User,
            content: content.into(),
        }
    }

    pub fn assistant(content: impl Into<String>) -> Message {
        Message {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// A client for one configured model.
#[derive(Debug, Clone)]
pub struct LlmClient {
    settings: LlmSettings,
    http: reqwest::Client,
    /// Set on a [`LlmClient::metered`] client.
    allowance: Option<Arc<Allowance>>,
}

/// Tokens a metered client may still spend, and has spent; what it spends counts against the
/// allowance of the client it was metered from too.
#[derive(Debug)]
struct Allowance {
    left: AtomicU64,
    used: AtomicU64,
    parent: Option<Arc<Allowance>>,
}

impl Allowance {
    fn spend(&self, cost: u64) {
        self.used.fetch_add(cost, Ordering::SeqCst);
        let _ = self
            .left
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
                Some(left.saturating_sub(cost))
            });
        if let Some(parent) = &self.parent {
            parent.spend(cost);
        }
    }
}

/// The error of a call refused because the allowance is spent.
pub const BUDGET_SPENT: &str = "the LLM's token budget is spent";

/// Anthropic's API version header value.
const ANTHROPIC_VERSION: &str = "2023-06-01";

/// Tokens counted for each turn beyond its text (role and separators).
const TURN_OVERHEAD_TOKENS: u64 = 4;

/// A generous estimate of the tokens `text` takes: one per three bytes (English prose and code
/// average about four bytes a token), so that a prompt estimated to fit does fit.
pub fn estimate_tokens(text: &str) -> u64 {
    u64::try_from(text.len()).map_or(u64::MAX, |bytes| bytes.div_ceil(3))
}

/// The estimated tokens of a system prompt and a conversation.
pub fn prompt_tokens(system: &str, messages: &[Message]) -> u64 {
    messages
        .iter()
        .map(|m| estimate_tokens(&m.content) + TURN_OVERHEAD_TOKENS)
        .fold(
            estimate_tokens(system) + TURN_OVERHEAD_TOKENS,
            u64::saturating_add,
        )
}

impl LlmClient {
    pub fn new(settings: LlmSettings) -> Result<LlmClient> {
        let http = reqwest::Client::builder()
            .timeout(settings.timeout)
            .build()
            .context("Cannot build the LLM HTTP client")?;
        Ok(LlmClient {
            settings,
            http,
            allowance: None,
        })
    }

    /// A client on the same connection that may spend `tokens` in all: once they are spent,
    /// calls fail with [`BUDGET_SPENT`] (the call that crosses the line is answered). Metered
    /// from a metered client, what it spends counts against both.
    pub fn metered(&self, tokens: u64) -> LlmClient {
        LlmClient {
            allowance: Some(Arc::new(Allowance {
                left: AtomicU64::new(tokens),
                used: AtomicU64::new(0),
                parent: self.allowance.clone(),
            })),
            ..self.clone()
        }
    }

    /// Tokens a metered client has spent (0 for one that is not).
    pub fn tokens_used(&self) -> u64 {
        self.allowance
            .as_ref()
            .map_or(0, |allowance| allowance.used.load(Ordering::SeqCst))
    }

    /// Whether a metered client's allowance is spent.
    pub fn budget_spent(&self) -> bool {
        self.allowance
            .as_ref()
            .is_some_and(|allowance| allowance.left.load(Ordering::SeqCst) == 0)
    }

    /// Counts what a call cost against the allowance.
    fn spend(&self, completion: &Completion) {
        if let Some(allowance) = &self.allowance {
            allowance.spend(
                completion
                    .input_tokens
                    .saturating_add(completion.output_tokens),
            );
        }
    }

    pub fn settings(&self) -> &LlmSettings {
        &self.settings
    }

    /// Tokens a prompt may take: the context less the room kept for the answer.
    pub fn prompt_budget(&self) -> u64 {
        u64::from(self.settings.context_tokens).saturating_sub(u64::from(self.settings.max_tokens))
    }

    /// The conversation as it is sent: whole when it fits [`LlmClient::prompt_budget`]; else
    /// without its oldest exchanges (an assistant turn and the user turn after it), the first
    /// user turn kept and told how many were left out. Err when even that does not fit.
    fn fit(&self, system: &str, messages: &[Message]) -> Result<Vec<Message>> {
        let budget = self.prompt_budget();
        let mut sent = messages.to_vec();
        let mut dropped = 0_usize;
        while prompt_tokens(system, &sent) > budget
            && sent.len() > 3
            && sent[1].role == Role::Assistant
        {
            sent.drain(1..3);
            dropped += 1;
            if let (Some(first), Some(original)) = (sent.first_mut(), messages.first()) {
                let left_out = if dropped == 1 {
                    "1 earlier exchange of this conversation was".to_string()
                } else {
                    format!("{dropped} earlier exchanges of this conversation were")
                };
                first.content = format!(
                    "{}\n\n({left_out} left out to fit the model's context.)",
                    original.content
                );
            }
        }
        let tokens = prompt_tokens(system, &sent);
        if tokens > budget {
            bail!(
                "the prompt takes about {tokens} tokens, more than the {budget} the model's context of {} leaves beside {} for the answer",
                self.settings.context_tokens,
                self.settings.max_tokens
            );
        }
        Ok(sent)
    }

    /// Sends one system + user turn and returns the text of the answer.
    pub async fn complete(&self, system: &str, user: &str) -> Result<Completion> {
        self.chat(system, &[Message::user(user)]).await
    }

    /// Sends a system prompt and a conversation (alternating turns, the first and last from the
    /// user) and returns the text of the next assistant turn.
    pub async fn chat(&self, system: &str, messages: &[Message]) -> Result<Completion> {
        if self.budget_spent() {
            bail!(BUDGET_SPENT);
        }
        let messages = self.fit(system, messages)?;
        let (url, body) = self.request(system, &messages);
        let mut retried = false;
        loop {
            let mut request = self.http.post(&url).json(&body);
            request = match (self.settings.provider, &self.settings.api_key) {
                (Provider::OpenAi, Some(key)) => request.bearer_auth(key.expose()),
                (Provider::Anthropic, Some(key)) => request.header("x-api-key", key.expose()),
                (_, None) => request,
            };
            if self.settings.provider == Provider::Anthropic {
                request = request.header("anthropic-version", ANTHROPIC_VERSION);
            }
            let response = request.send().await.map_err(|e| {
                if e.is_timeout() {
                    anyhow!(
                        "the model did not answer within {:?}",
                        self.settings.timeout
                    )
                } else {
                    anyhow!("cannot reach the model at {url}: {e}")
                }
            })?;
            let status = response.status();
            if status.as_u16() == 429 && !retried {
                let wait = retry_after(&response).unwrap_or(Duration::from_secs(1));
                if wait <= self.settings.max_retry_wait {
                    retried = true;
                    tokio::time::sleep(wait).await;
                    continue;
                }
                bail!("rate limited by the model provider for {wait:?}");
            }
            let text = response
                .text()
                .await
                .context("cannot read the model's answer")?;
            if !status.is_success() {
                let excerpt: String = text.chars().take(300).collect();
                bail!("the model provider answered {status}: {excerpt}");
            }
            let value: Value =
                serde_json::from_str(&text).context("the model's answer is not JSON")?;
            let completion = self.completion(&value)?;
            self.spend(&completion);
            return Ok(completion);
        }
    }

    fn request(&self, system: &str, messages: &[Message]) -> (String, Value) {
        let base = self.settings.base_url.trim_end_matches('/');
        let turns = messages
            .iter()
            .map(|m| json!({ "role": m.role.as_str(), "content": m.content }));
        match self.settings.provider {
            Provider::OpenAi => (
                format!("{base}/chat/completions"),
                json!({
                    "model": self.settings.model,
                    "max_tokens": self.settings.max_tokens,
                    "temperature": 0,
                    "messages": std::iter::once(json!({ "role": "system", "content": system }))
                        .chain(turns)
                        .collect::<Vec<Value>>(),
                }),
            ),
            Provider::Anthropic => (
                format!("{base}/v1/messages"),
                json!({
                    "model": self.settings.model,
                    "max_tokens": self.settings.max_tokens,
                    "temperature": 0,
                    "system": system,
                    "messages": turns.collect::<Vec<Value>>(),
                }),
            ),
        }
    }

    fn completion(&self, value: &Value) -> Result<Completion> {
        let tokens = |path: &[&str]| {
            path.iter()
                .try_fold(value, |v, key| v.get(key))
                .and_then(Value::as_u64)
                .unwrap_or(0)
        };
        match self.settings.provider {
            Provider::OpenAi => Ok(Completion {
                text: value["choices"][0]["message"]["content"]
                    .as_str()
                    .context("the answer has no choices[0].message.content")?
                    .to_string(),
                input_tokens: tokens(&["usage", "prompt_tokens"]),
                output_tokens: tokens(&["usage", "completion_tokens"]),
            }),
            Provider::Anthropic => {
                let blocks = value["content"]
                    .as_array()
                    .context("the answer has no content blocks")?;
                let text: String = blocks
                    .iter()
                    .filter(|block| block["type"] == "text")
                    .filter_map(|block| block["text"].as_str())
                    .collect();
                Ok(Completion {
                    text,
                    input_tokens: tokens(&["usage", "input_tokens"]),
                    output_tokens: tokens(&["usage", "output_tokens"]),
                })
            }
        }
    }
}

/// `Retry-After` in seconds, when given that way.
fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    response
        .headers()
        .get("retry-after")?
        .to_str()
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()
        .map(Duration::from_secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(provider: Provider) -> LlmClient {
        LlmClient::new(LlmSettings {
            provider,
            base_url: "http://model.test/v1/".into(),
            api_key: None,
            model: "m".into(),
            timeout: Duration::from_secs(1),
            max_tokens: 10,
            context_tokens: 100,
            max_retry_wait: Duration::ZERO,
            daily_tokens: None,
        })
        .unwrap()
    }

    #[test]
    fn a_conversation_keeps_its_turns_in_order_for_both_providers() {
        let turns = [
            Message::user("q1"),
            Message::assistant("a1"),
            Message::user("q2"),
        ];
        let (url, body) = client(Provider::OpenAi).request("sys", &turns);
        assert_eq!(url, "http://model.test/v1/chat/completions");
        let roles: Vec<(&str, &str)> = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
            .collect();
        assert_eq!(
            roles,
            [
                ("system", "sys"),
                ("user", "q1"),
                ("assistant", "a1"),
                ("user", "q2")
            ]
        );
        let (_, body) = client(Provider::Anthropic).request("sys", &turns);
        assert_eq!(body["system"], "sys");
        let roles: Vec<&str> = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["user", "assistant", "user"]);
    }

    #[test]
    fn a_conversation_longer_than_the_context_loses_its_oldest_exchanges() {
        // 90 tokens of room (100 less 10 for the answer); each 30-byte turn counts 14.
        let client = client(Provider::OpenAi);
        let turn = |c: char| c.to_string().repeat(30);
        let turns = [
            Message::user(turn('q')),
            Message::assistant(turn('a')),
            Message::user(turn('r')),
            Message::assistant(turn('b')),
            Message::user(turn('s')),
            Message::assistant(turn('c')),
            Message::user(turn('t')),
        ];
        assert!(prompt_tokens("sys", &turns) > client.prompt_budget());
        let sent = client.fit("sys", &turns).unwrap();
        assert!(prompt_tokens("sys", &sent) <= client.prompt_budget());
        let contents: Vec<&str> = sent.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(contents.len(), 3, "{contents:?}");
        assert!(contents[0].starts_with(&turn('q')), "the first turn stays");
        assert!(
            contents[0].contains("2 earlier exchanges"),
            "{}",
            contents[0]
        );
        assert_eq!(
            contents[1..],
            [turn('c'), turn('t')],
            "the latest exchange stays"
        );
        let short = [Message::user("q")];
        assert_eq!(
            client.fit("sys", &short).unwrap(),
            short,
            "what fits is sent whole"
        );
    }

    #[tokio::test]
    async fn a_prompt_that_cannot_fit_the_context_is_never_sent() {
        // The base URL is unreachable: an attempt to send would fail differently.
        let error = client(Provider::Anthropic)
            .complete("sys", &"x".repeat(300))
            .await
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("more than the 90 the model's context of 100 leaves"),
            "{error}"
        );
    }
}
