//! The GitHub client façade (behaviour §7). One method per operation the bot needs; underneath, one
//! request path that:
//! - authenticates as the App (JWT), as an installation (cached installation token), or with a
//!   personal token (`As::Token`);
//! - retries idempotent requests on 5xx with exponential backoff and jitter, and never retries a
//!   create blindly (the caller looks up before creating again);
//! - honours `Retry-After` on secondary rate limits (403/429) and waits for `X-RateLimit-Reset`
//!   when the primary limit is spent (a request refused for a rate limit was not processed, so
//!   repeating it is safe even for a create);
//! - keeps content-creating requests under 80 per minute;
//! - sends a token only to the configured API: a `Link` URL elsewhere is refused, not followed.
//!
//! Time and waiting come in through `Clock` and `Pause`, so tests need no real sleeping.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use base64::Engine;
use base64::prelude::BASE64_STANDARD;
use http::{HeaderMap, Method};
use serde_json::{Value, json};

use super::auth::{AppKey, InstallationToken, TokenCache};
use crate::clock::Clock;
use crate::domain::RepoName;
use crate::domain::Secret;

/// Something that waits: real time in production, a recorder in tests.
pub trait Pause: Send + Sync {
    fn pause(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;
}

/// Waits for real.
#[derive(Debug, Default, Clone, Copy)]
pub struct TokioPause;

impl Pause for TokioPause {
    fn pause(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(tokio::time::sleep(duration))
    }
}

/// Attempts of one idempotent request on 5xx and network errors.
pub(super) const MAX_ATTEMPTS: u32 = 4;
/// First wait before a retry; doubled each time, plus up to a quarter of jitter.
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// The longest rate-limit wait worth taking inside a request; a longer one fails the call and
/// the job is retried later.
const MAX_RATE_LIMIT_WAIT: Duration = Duration::from_secs(15 * 60);
/// GitHub's guidance: at most 80 content-creating requests per minute.
const CREATES_PER_MINUTE: usize = 80;
/// Per request, connect to last byte.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Items per REST page: GitHub's maximum, fewest requests.
pub(super) const PER_PAGE: usize = 100;

/// Who a request is made as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum As {
    App,
    Installation(i64),
    /// The personal access token the client was made with (`GitHub::with_token`).
    Token,
    /// No credentials: the manifest conversion, which only the one-time code authorises.
    Nobody,
}

/// A response that was read whole.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: String,
}

impl Reply {
    pub(super) fn json(&self) -> Result<Value> {
        serde_json::from_str(&self.body).context("GitHub's answer is not JSON")
    }

    /// The `rel="next"` URL of a paginated answer.
    pub(super) fn next_page(&self) -> Option<String> {
        let link = self.headers.get("link")?.to_str().ok()?;
        link.split(',').find_map(|part| {
            let (url, rel) = part.split_once(';')?;
            rel.contains("rel=\"next\"").then(|| {
                url.trim()
                    .trim_start_matches('<')
                    .trim_end_matches('>')
                    .to_string()
            })
        })
    }
}

/// A file as the contents API serves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileContent {
    Bytes(Vec<u8>),
    /// Over the 1 MB the contents API serves: only its size is known.
    TooLarge {
        size: u64,
    },
}

/// An issue as the bot needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueRef {
    pub number: i64,
    pub node_id: String,
    pub title: String,
    pub body: String,
    pub state: String,
}

/// The client. Cheap to share behind an `Arc`.
pub struct GitHub {
    crab: octocrab::Octocrab,
    api_url: String,
    graphql_url: String,
    /// The App's key; `None` for a client made with a personal token or without credentials.
    key: Option<AppKey>,
    /// A personal access token (`As::Token`), e.g. `GITHUB_TOKEN` for `gitlore analyze`.
    personal_token: Option<Secret>,
    tokens: TokenCache,
    clock: Arc<dyn Clock>,
    pause: Arc<dyn Pause>,
    /// When recent content-creating requests were sent (unix ms), oldest first.
    creates: Mutex<VecDeque<i64>>,
}

impl GitHub {
    /// A client for the REST API at `api_url` (GraphQL derived from it as GitHub does: a GitHub
    /// Enterprise Server base `…/api/v3` has GraphQL at `…/api/graphql`, any other at `/graphql`).
    pub fn new(
        api_url: &str,
        key: AppKey,
        clock: Arc<dyn Clock>,
        pause: Arc<dyn Pause>,
    ) -> Result<GitHub> {
        GitHub::build(api_url, Some(key), None, clock, pause)
    }

    /// A client that calls as a personal access token (`As::Token`) instead of an App.
    pub fn with_token(
        api_url: &str,
        token: Secret,
        clock: Arc<dyn Clock>,
        pause: Arc<dyn Pause>,
    ) -> Result<GitHub> {
        GitHub::build(api_url, None, Some(token), clock, pause)
    }

    /// A client without App credentials, for the calls that need none (the manifest
    /// conversion of `gitlore setup`); a call as the App or an installation fails.
    pub fn without_credentials(
        api_url: &str,
        clock: Arc<dyn Clock>,
        pause: Arc<dyn Pause>,
    ) -> Result<GitHub> {
        GitHub::build(api_url, None, None, clock, pause)
    }

    fn build(
        api_url: &str,
        key: Option<AppKey>,
        personal_token: Option<Secret>,
        clock: Arc<dyn Clock>,
        pause: Arc<dyn Pause>,
    ) -> Result<GitHub> {
        let api_url = api_url.trim_end_matches('/').to_string();
        let graphql_url = match api_url.strip_suffix("/api/v3") {
            Some(host) => format!("{host}/api/graphql"),
            None => format!("{api_url}/graphql"),
        };
        let crab = octocrab::Octocrab::builder()
            .set_connect_timeout(Some(REQUEST_TIMEOUT))
            .set_read_timeout(Some(REQUEST_TIMEOUT))
            .build()
            .context("Cannot build the GitHub HTTP client")?;
        Ok(GitHub {
            crab,
            api_url,
            graphql_url,
            key,
            personal_token,
            tokens: TokenCache::default(),
            clock,
            pause,
            creates: Mutex::new(VecDeque::new()),
        })
    }

    /// The App's id, when the client has its key.
    pub fn app_id(&self) -> Option<i64> {
        self.key.as_ref().map(AppKey::app_id)
    }

    /// The installation's token, from the cache or a fresh exchange.
    pub async fn installation_token(&self, installation: i64) -> Result<Secret> {
        if let Some(token) = self.tokens.fresh(installation, self.clock.now_ms()) {
            return Ok(token);
        }
        let path = format!("/app/installations/{installation}/access_tokens");
        let reply = self
            .call(Method::POST, &path, As::App, Some(&json!({})), true)
            .await?;
        let body = reply.json()?;
        let token = body["token"]
            .as_str()
            .context("the token exchange answered no token")?;
        let expires_at_ms = body["expires_at"]
            .as_str()
            .and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok())
            .map(|at| at.timestamp_millis())
            .context("the token exchange answered no expires_at")?;
        let token = Secret::new(token);
        self.tokens.store(
            installation,
            InstallationToken {
                token: token.clone(),
                expires_at_ms,
            },
        );
        Ok(token)
    }

    /// The repository's default branch.
    pub async fn default_branch(&self, installation: i64, repo: &RepoName) -> Result<String> {
        let reply = self
            .call(
                Method::GET,
                &format!("/repos/{repo}"),
                As::Installation(installation),
                None,
                true,
            )
            .await
            .with_context(|| format!("Cannot read {repo}"))?;
        Ok(reply.json()?["default_branch"]
            .as_str()
            .context("the repository has no default_branch")?
            .to_string())
    }

    /// A file's content on `git_ref`, or `None` when the file does not exist. A file over 1 MB
    /// comes without its content (GitHub's contents API serves none).
    pub async fn file(
        &self,
        installation: i64,
        repo: &RepoName,
        path: &str,
        git_ref: &str,
    ) -> Result<Option<FileContent>> {
        let url = format!("/repos/{repo}/contents/{path}?ref={git_ref}");
        match self
            .call(
                Method::GET,
                &url,
                As::Installation(installation),
                None,
                true,
            )
            .await
        {
            Ok(reply) => {
                let body = reply.json()?;
                if body["encoding"] == "none" {
                    let size = body["size"].as_u64().unwrap_or_default();
                    return Ok(Some(FileContent::TooLarge { size }));
                }
                let encoded: String = body["content"]
                    .as_str()
                    .context("the file has no content")?
                    .split_whitespace()
                    .collect();
                let bytes = BASE64_STANDARD
                    .decode(encoded)
                    .context("the file's content is not base64")?;
                Ok(Some(FileContent::Bytes(bytes)))
            }
            Err(error) if is_not_found(&error) => Ok(None),
            Err(error) => Err(error.context(format!("Cannot read {path} of {repo}"))),
        }
    }

    /// Every issue (open or closed) carrying `label`, following every page.
    pub async fn issues_with_label(
        &self,
        installation: i64,
        repo: &RepoName,
        label: &str,
    ) -> Result<Vec<IssueRef>> {
        let mut url = format!("/repos/{repo}/issues?state=all&labels={label}&per_page={PER_PAGE}");
        let mut issues = Vec::new();
        loop {
            let reply = self
                .call(
                    Method::GET,
                    &url,
                    As::Installation(installation),
                    None,
                    true,
                )
                .await
                .with_context(|| format!("Cannot list the issues of {repo}"))?;
            let page = reply.json()?;
            for issue in page.as_array().context("the issue list is not a list")? {
                issues.push(issue_ref(issue)?);
            }
            match reply.next_page() {
                Some(next) => url = next,
                None => return Ok(issues),
            }
        }
    }

    /// Creates an issue whose body contains `marker`, exactly once: if the create fails in a
    /// way that may hide a success (5xx, network), the issue is looked up by `label` and
    /// `marker` before creating again.
    pub async fn create_issue_once(
        &self,
        installation: i64,
        repo: &RepoName,
        issue: &NewIssue<'_>,
    ) -> Result<IssueRef> {
        let path = format!("/repos/{repo}/issues");
        let body = json!({ "title": issue.title, "body": issue.body, "labels": [issue.label] });
        let mut last_error = None;
        for _ in 0..MAX_ATTEMPTS {
            if let Some(found) = self.find_issue(installation, repo, issue).await? {
                return Ok(found);
            }
            match self
                .call(
                    Method::POST,
                    &path,
                    As::Installation(installation),
                    Some(&body),
                    false,
                )
                .await
            {
                Ok(reply) => return issue_ref(&reply.json()?),
                Err(error) if is_retryable(&error) => {
                    self.backoff(0).await;
                    last_error = Some(error);
                }
                Err(error) => {
                    return Err(error.context(format!("Cannot create an issue in {repo}")));
                }
            }
        }
        Err(last_error.unwrap_or_else(|| anyhow!("no attempt made")))
            .with_context(|| format!("Cannot create an issue in {repo}"))
    }

    async fn find_issue(
        &self,
        installation: i64,
        repo: &RepoName,
        issue: &NewIssue<'_>,
    ) -> Result<Option<IssueRef>> {
        Ok(self
            .issues_with_label(installation, repo, issue.label)
            .await?
            .into_iter()
            .find(|found| found.body.contains(issue.marker)))
    }

    /// Runs a GraphQL document as an installation; GraphQL errors are errors.
    pub async fn graphql(&self, installation: i64, query: &str, variables: Value) -> Result<Value> {
        self.graphql_as(As::Installation(installation), query, variables)
            .await
    }

    /// Runs a GraphQL document as `who`; GraphQL errors are errors.
    pub async fn graphql_as(&self, who: As, query: &str, variables: Value) -> Result<Value> {
        let body = json!({ "query": query, "variables": variables });
        let url = self.graphql_url.clone();
        // Queries are idempotent; mutations here (pin) are too.
        let reply = self
            .call(Method::POST, &url, who, Some(&body), true)
            .await?;
        let value = reply.json()?;
        if let Some(errors) = value
            .get("errors")
            .and_then(Value::as_array)
            .filter(|e| !e.is_empty())
        {
            let messages = errors
                .iter()
                .filter_map(|e| e["message"].as_str().map(str::to_string))
                .collect();
            return Err(anyhow!(GraphQlError { messages }));
        }
        Ok(value["data"].clone())
    }

    /// One request with the retry and rate-limit rules of the module doc. `path` is relative to
    /// the API base, or an absolute URL on it (pagination links).
    pub(super) async fn call(
        &self,
        method: Method,
        path: &str,
        who: As,
        body: Option<&Value>,
        idempotent: bool,
    ) -> Result<Reply> {
        let url = if path.starts_with("http://") || path.starts_with("https://") {
            // A pagination link is GitHub's answer, not ours: a token goes nowhere but the
            // configured API.
            if !self.is_api_url(path) {
                bail!("GitHub's answer links to another host ({path}); not following it");
            }
            path.to_string()
        } else {
            format!("{}{path}", self.api_url)
        };
        let creates = method != Method::GET
            && matches!(who, As::Installation(_) | As::Token)
            && (url != self.graphql_url || is_mutation(body));
        let mut attempt = 0;
        let mut token_refreshed = false;
        loop {
            attempt += 1;
            if creates {
                self.respect_create_limit().await;
            }
            let authorization = match who {
                As::App => Some(format!(
                    "Bearer {}",
                    self.app_key()?.jwt(self.clock.now_ms())?.expose()
                )),
                As::Token => Some(format!(
                    "token {}",
                    self.personal_token
                        .as_ref()
                        .context("This client has no personal token")?
                        .expose()
                )),
                As::Installation(id) => Some(format!(
                    "token {}",
                    Box::pin(self.installation_token(id)).await?.expose()
                )),
                As::Nobody => None,
            };
            let outcome = self
                .send(&method, &url, authorization.as_deref(), body)
                .await;
            let reply = match outcome {
                Ok(reply) => reply,
                Err(error) if idempotent && attempt < MAX_ATTEMPTS => {
                    tracing::debug!(%error, attempt, "GitHub request failed; retrying");
                    self.backoff(attempt).await;
                    continue;
                }
                Err(error) => return Err(error.context(RetryableError)),
            };
            let graphql_limited = url == self.graphql_url && is_graphql_rate_limited(&reply);
            if (200..300).contains(&reply.status) && !graphql_limited {
                return Ok(reply);
            }
            if let Some(wait) = rate_limit_wait(&reply, graphql_limited, self.clock.now_ms()) {
                if wait > MAX_RATE_LIMIT_WAIT || attempt >= MAX_ATTEMPTS {
                    return Err(anyhow!(RateLimited {
                        wait,
                        status: reply.status,
                        url,
                    }));
                }
                tracing::info!(?wait, status = reply.status, "GitHub rate limit; waiting");
                self.pause.pause(wait).await;
                continue;
            }
            if reply.status == 401
                && let As::Installation(id) = who
                && !token_refreshed
            {
                self.tokens.forget(id);
                token_refreshed = true;
                continue;
            }
            if reply.status >= 500 && idempotent && attempt < MAX_ATTEMPTS {
                self.backoff(attempt).await;
                continue;
            }
            let message = serde_json::from_str::<Value>(&reply.body)
                .ok()
                .and_then(|v| v["message"].as_str().map(str::to_string))
                .unwrap_or_default();
            let error = anyhow!(HttpError {
                status: reply.status,
                message,
                method: method.to_string(),
                url: url.clone()
            });
            return Err(if reply.status >= 500 {
                error.context(RetryableError)
            } else {
                error
            });
        }
    }

    /// Whether `url` is on the configured API: the GraphQL endpoint, or under the REST base
    /// (`…/` follows it, so `https://api.github.com.evil.example` or a `user@host` prefix does
    /// not pass).
    fn is_api_url(&self, url: &str) -> bool {
        url == self.graphql_url
            || url
                .strip_prefix(&self.api_url)
                .is_some_and(|rest| rest.starts_with('/'))
    }

    async fn send(
        &self,
        method: &Method,
        url: &str,
        authorization: Option<&str>,
        body: Option<&Value>,
    ) -> Result<Reply> {
        let mut request = http::Request::builder().method(method.clone()).uri(url);
        if let Some(authorization) = authorization {
            request = request.header("authorization", authorization);
        }
        request = request
            .header("accept", "application/vnd.github+json")
            .header("x-github-api-version", "2022-11-28")
            .header("user-agent", concat!("gitlore/", env!("CARGO_PKG_VERSION")));
        let payload = match body {
            Some(body) => {
                request = request.header("content-type", "application/json");
                body.to_string()
            }
            None => String::new(),
        };
        let request = request
            .body(payload)
            .context("Cannot build the GitHub request")?;
        let response = self
            .crab
            .execute(request)
            .await
            .map_err(|e| anyhow!("cannot reach GitHub at {url}: {e}"))?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = self
            .crab
            .body_to_string(response)
            .await
            .map_err(|e| anyhow!("cannot read GitHub's answer from {url}: {e}"))?;
        Ok(Reply {
            status,
            headers,
            body,
        })
    }

    fn app_key(&self) -> Result<&AppKey> {
        self.key
            .as_ref()
            .context("This GitHub client has no App key, so it cannot call GitHub as the App")
    }

    /// Waits before retry `attempt`: 0.5 s, 1 s, 2 s … plus jitter from the clock.
    pub(super) async fn backoff(&self, attempt: u32) {
        let base = FIRST_BACKOFF.saturating_mul(2u32.saturating_pow(attempt.saturating_sub(1)));
        let jitter_ms = self
            .clock
            .now_ms()
            .rem_euclid(base.as_millis().max(4) as i64 / 4);
        self.pause
            .pause(base + Duration::from_millis(jitter_ms as u64))
            .await;
    }

    /// Waits until sending one more content-creating request keeps the last minute under the cap.
    async fn respect_create_limit(&self) {
        let wait = {
            let mut sent = self.creates.lock().unwrap_or_else(|p| p.into_inner());
            let now = self.clock.now_ms();
            while sent.front().is_some_and(|at| now - at >= 60_000) {
                sent.pop_front();
            }
            let wait = if sent.len() >= CREATES_PER_MINUTE {
                sent.front().map(|oldest| oldest + 60_000 - now)
            } else {
                None
            };
            sent.push_back(now + wait.unwrap_or(0));
            wait
        };
        if let Some(ms) = wait {
            self.pause
                .pause(Duration::from_millis(ms.max(0) as u64))
                .await;
        }
    }
}

/// Whether a GraphQL request body holds a mutation (content-creating) rather than a query.
fn is_mutation(body: Option<&Value>) -> bool {
    let first_statement = |query: &str| {
        query
            .lines()
            .map(str::trim)
            .find(|line| !line.is_empty() && !line.starts_with('#'))
            .is_some_and(|line| line.starts_with("mutation"))
    };
    body.and_then(|b| b["query"].as_str())
        .is_some_and(first_statement)
}

/// What a new issue is made of.
#[derive(Debug, Clone)]
pub struct NewIssue<'a> {
    pub title: &'a str,
    pub body: &'a str,
    pub label: &'a str,
    /// A hidden marker in the body that finds the issue again.
    pub marker: &'a str,
}

/// GitHub answered with an error status.
#[derive(Debug, thiserror::Error)]
#[error("GitHub answered {status} to {method} {url}: {message}")]
pub struct HttpError {
    pub status: u16,
    pub message: String,
    pub method: String,
    pub url: String,
}

/// GitHub answered a GraphQL request with errors (HTTP 200, an `errors` list).
#[derive(Debug, thiserror::Error)]
#[error("GitHub GraphQL error: {}", messages.join("; "))]
pub struct GraphQlError {
    pub messages: Vec<String>,
}

/// GitHub's rate limit asked for a longer wait than a request takes.
#[derive(Debug, thiserror::Error)]
#[error("GitHub rate limit: asked to wait {wait:?} ({status} {url})")]
struct RateLimited {
    wait: Duration,
    status: u16,
    url: String,
}

/// Whether an error is GitHub not answering for now — no HTTP answer at all, a 5xx, or a rate
/// limit — so that the same request may well succeed later. Any other failure (a 4xx, an
/// answer gitlore cannot use) would fail again.
pub fn is_transient(error: &anyhow::Error) -> bool {
    error.downcast_ref::<RetryableError>().is_some()
        || error.downcast_ref::<RateLimited>().is_some()
}

/// Marks an error after which the request may or may not have been applied.
#[derive(Debug, thiserror::Error)]
#[error("the request may not have been applied")]
struct RetryableError;

pub(super) fn is_retryable(error: &anyhow::Error) -> bool {
    error.downcast_ref::<RetryableError>().is_some()
}

/// Whether GitHub answered 404: the thing is gone (or was never there).
pub fn is_not_found(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<HttpError>()
            .is_some_and(|e| e.status == 404)
    })
}

/// How long a rate-limited answer asks to wait: `Retry-After` on a secondary limit (403/429),
/// or until `X-RateLimit-Reset` when the primary limit is spent (a 403, or GraphQL's 200 with a
/// `RATE_LIMITED` error).
fn rate_limit_wait(reply: &Reply, graphql_limited: bool, now_ms: i64) -> Option<Duration> {
    if reply.status != 403 && reply.status != 429 && !graphql_limited {
        return None;
    }
    let header = |name: &str| {
        reply
            .headers
            .get(name)?
            .to_str()
            .ok()?
            .trim()
            .parse::<i64>()
            .ok()
    };
    if let Some(seconds) = header("retry-after") {
        return Some(Duration::from_secs(seconds.max(0) as u64));
    }
    if header("x-ratelimit-remaining") == Some(0) {
        let reset = header("x-ratelimit-reset")?;
        return Some(Duration::from_millis(
            (reset * 1000 - now_ms).max(1000) as u64
        ));
    }
    (reply.status == 429 || graphql_limited).then_some(Duration::from_secs(60))
}

/// Whether a GraphQL answer (HTTP 200) says the primary limit is spent: a `RATE_LIMITED` error.
fn is_graphql_rate_limited(reply: &Reply) -> bool {
    reply.body.contains("RATE_LIMITED")
        && serde_json::from_str::<Value>(&reply.body).is_ok_and(|value| {
            value["errors"]
                .as_array()
                .is_some_and(|errors| errors.iter().any(|e| e["type"] == "RATE_LIMITED"))
        })
}

pub(super) fn issue_ref(issue: &Value) -> Result<IssueRef> {
    Ok(IssueRef {
        number: issue["number"]
            .as_i64()
            .context("an issue without a number")?,
        node_id: issue["node_id"].as_str().unwrap_or_default().to_string(),
        title: issue["title"].as_str().unwrap_or_default().to_string(),
        body: issue["body"].as_str().unwrap_or_default().to_string(),
        state: issue["state"].as_str().unwrap_or_default().to_string(),
    })
}
