//! The GitHub client's transport (behaviour §7): one request path that
//! - authenticates as the App (JWT), as an installation (cached installation token), or with a
//!   personal token (`As::Token`);
//! - retries requests marked `Retry::Safe` on 5xx and network errors with exponential backoff
//!   and jitter, and never sends a `Retry::Never` one again blindly (the caller looks up before
//!   creating again);
//! - honours `Retry-After` on secondary rate limits (403/429) and waits for `X-RateLimit-Reset`
//!   when the primary limit is spent (a request refused for a rate limit was not processed, so
//!   repeating it is safe even for a create);
//! - keeps content-creating requests under 80 per minute;
//! - sends a token only to the configured API: a `Link` URL elsewhere is refused, not followed.
//!
//! The operations are in `ops/`: on one repository through `RepoClient` (`repo.rs`), the App's
//! own and a person's own on `GitHub`. Every failure is one `Error` (`error.rs`). Time and
//! waiting come in through `Clock` and `Pause`, so tests need no real sleeping.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::{HeaderMap, Method};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::auth::{AppKey, InstallationToken, TokenCache};
use super::error::{Error, Result};
use crate::clock::Clock;
use crate::domain::{InstallationId, Secret, UnixMs};

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
/// The window of the content-creation cap.
const MINUTE: Duration = Duration::from_secs(60);
/// Per request, connect to last byte.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Items per REST page: GitHub's maximum, fewest requests.
pub(super) const PER_PAGE: usize = 100;

/// Who a request is made as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum As {
    App,
    Installation(InstallationId),
    /// The personal access token the client was made with (`GitHub::with_token`).
    Token,
    /// No credentials: the manifest conversion, which only the one-time code authorises.
    Nobody,
}

/// Whether a request may be sent again when it failed in a way that may hide a success (a
/// 5xx, no answer). A refused rate-limited request was not processed, so it is waited out and
/// sent again either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// Sending it twice does what sending it once does (a read, a PATCH to given values, a
    /// reaction): retried with backoff.
    Safe,
    /// A create: never sent again blindly; the caller looks up what it made first
    /// (`RepoClient::create_once`).
    Never,
}

/// One request to send.
pub(super) struct Request<'a> {
    method: Method,
    /// Relative to the API base, or an absolute URL on it (a pagination link).
    path: &'a str,
    who: As,
    /// The JSON body, encoded.
    body: Option<String>,
    retry: Retry,
    /// Whether it writes content (counted against the per-minute cap when made as an
    /// installation or a person).
    creates_content: bool,
}

impl<'a> Request<'a> {
    /// A GET: retried, creates nothing.
    pub(super) fn get(path: &'a str, who: As) -> Request<'a> {
        Request {
            method: Method::GET,
            path,
            who,
            body: None,
            retry: Retry::Safe,
            creates_content: false,
        }
    }

    /// A request that writes `body` (JSON).
    pub(super) fn write(
        method: Method,
        path: &'a str,
        who: As,
        body: &impl Serialize,
        retry: Retry,
    ) -> Result<Request<'a>> {
        let body = serde_json::to_string(body)
            .map_err(|e| Error::Refused(format!("cannot encode a request to {path}: {e}")))?;
        Ok(Request {
            method,
            path,
            who,
            body: Some(body),
            retry,
            creates_content: true,
        })
    }
}

/// A JSON object without fields (`{}`), the body of requests that need none.
#[derive(Serialize)]
pub(super) struct NoFields {}

/// A response that was read whole.
#[derive(Debug)]
pub(super) struct Reply {
    status: u16,
    headers: HeaderMap,
    body: String,
    /// Where it came from, for errors.
    url: String,
}

impl Reply {
    /// The answer read as `T`.
    pub(super) fn json<T: DeserializeOwned>(&self) -> Result<T> {
        serde_json::from_str(&self.body).map_err(|e| Error::Unexpected {
            url: self.url.clone(),
            reason: e.to_string(),
        })
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
    /// When recent content-creating requests were sent, oldest first.
    creates: Mutex<VecDeque<UnixMs>>,
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
            .map_err(|e| Error::Refused(format!("cannot build the GitHub HTTP client: {e}")))?;
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
    pub async fn installation_token(&self, installation: InstallationId) -> Result<Secret> {
        if let Some(token) = self.tokens.fresh(installation, self.clock.now()) {
            return Ok(token);
        }
        let path = format!("/app/installations/{installation}/access_tokens");
        let request = Request::write(Method::POST, &path, As::App, &NoFields {}, Retry::Safe)?;
        let reply = self.call(request).await?;
        let answer: AccessToken = reply.json()?;
        let expires_at = chrono::DateTime::parse_from_rfc3339(&answer.expires_at)
            .map(|at| UnixMs(at.timestamp_millis()))
            .map_err(|e| Error::Unexpected {
                url: reply.url.clone(),
                reason: format!("expires_at is not a time: {e}"),
            })?;
        let token = Secret::new(answer.token);
        self.tokens.store(
            installation,
            InstallationToken {
                token: token.clone(),
                expires_at,
            },
        );
        Ok(token)
    }

    /// Runs a GraphQL document as `who`; GraphQL errors are errors. Queries are idempotent, and
    /// so is the one mutation the bot sends (a pin), so both are retried.
    pub async fn graphql_as(&self, who: As, query: &str, variables: Value) -> Result<Value> {
        let body = GraphQlRequest { query, variables };
        let url = self.graphql_url.clone();
        let mut request = Request::write(Method::POST, &url, who, &body, Retry::Safe)?;
        request.creates_content = is_mutation(query);
        let answer: GraphQlAnswer = self.call(request).await?.json()?;
        let messages: Vec<String> = answer
            .errors
            .iter()
            .filter_map(|e| e.message.clone())
            .collect();
        if !answer.errors.is_empty() {
            return Err(Error::GraphQl { messages });
        }
        Ok(answer.data)
    }

    /// Every item of a `Link`-paginated list, the token on every page; `items` takes them out
    /// of one page's answer (the answer itself for a list, a field of it for an object).
    /// GETs: retried.
    pub(super) async fn all_pages<P, T>(
        &self,
        who: As,
        first_url: &str,
        items: impl Fn(P) -> Vec<T>,
    ) -> Result<Vec<T>>
    where
        P: DeserializeOwned,
    {
        let mut url = first_url.to_string();
        let mut all = Vec::new();
        loop {
            let reply = self.call(Request::get(&url, who)).await?;
            all.extend(items(reply.json()?));
            match reply.next_page() {
                Some(next) => url = next,
                None => return Ok(all),
            }
        }
    }

    /// One request with the retry and rate-limit rules of the module doc.
    pub(super) async fn call(&self, request: Request<'_>) -> Result<Reply> {
        let Request {
            method,
            path,
            who,
            body,
            retry,
            creates_content,
        } = request;
        let url = if path.starts_with("http://") || path.starts_with("https://") {
            // A pagination link is GitHub's answer, not ours: a token goes nowhere but the
            // configured API.
            if !self.is_api_url(path) {
                return Err(Error::Refused(format!(
                    "GitHub's answer links to another host ({path}); not following it"
                )));
            }
            path.to_string()
        } else {
            format!("{}{path}", self.api_url)
        };
        let counted = creates_content && matches!(who, As::Installation(_) | As::Token);
        let retried = retry == Retry::Safe;
        let mut attempt = 0;
        let mut token_refreshed = false;
        loop {
            attempt += 1;
            if counted {
                self.respect_create_limit().await;
            }
            let authorization = self.authorization(who).await?;
            let outcome = self
                .exchange(&method, &url, authorization.as_ref(), body.as_deref())
                .await;
            let reply = match outcome {
                Ok(reply) => reply,
                Err(error) if retried && attempt < MAX_ATTEMPTS => {
                    tracing::debug!(%error, attempt, "GitHub request failed; retrying");
                    self.backoff(attempt).await;
                    continue;
                }
                Err(error) => return Err(error),
            };
            let graphql_limited = url == self.graphql_url && is_graphql_rate_limited(&reply);
            if (200..300).contains(&reply.status) && !graphql_limited {
                return Ok(reply);
            }
            if let Some(wait) = rate_limit_wait(&reply, graphql_limited, self.clock.now()) {
                if wait > MAX_RATE_LIMIT_WAIT || attempt >= MAX_ATTEMPTS {
                    return Err(Error::RateLimited {
                        wait,
                        status: reply.status,
                        url,
                    });
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
            if reply.status >= 500 && retried && attempt < MAX_ATTEMPTS {
                self.backoff(attempt).await;
                continue;
            }
            let message = serde_json::from_str::<ErrorAnswer>(&reply.body)
                .ok()
                .and_then(|answer| answer.message)
                .unwrap_or_default();
            return Err(Error::Status {
                status: reply.status,
                message,
                method: method.to_string(),
                url,
            });
        }
    }

    /// The `Authorization` header of a request made as `who`, if any.
    async fn authorization(&self, who: As) -> Result<Option<Secret>> {
        let header = match who {
            As::App => {
                let jwt = self
                    .app_key()?
                    .jwt(self.clock.now())
                    .map_err(|e| Error::Refused(format!("{e:#}")))?;
                format!("Bearer {}", jwt.expose())
            }
            As::Token => {
                let token = self.personal_token.as_ref().ok_or_else(|| {
                    Error::Refused("this GitHub client has no personal token".into())
                })?;
                format!("token {}", token.expose())
            }
            As::Installation(id) => {
                let token = Box::pin(self.installation_token(id)).await?;
                format!("token {}", token.expose())
            }
            As::Nobody => return Ok(None),
        };
        Ok(Some(Secret::new(header)))
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

    /// Sends one request and reads its answer whole; no answer is `Error::Unreachable`.
    async fn exchange(
        &self,
        method: &Method,
        url: &str,
        authorization: Option<&Secret>,
        body: Option<&str>,
    ) -> Result<Reply> {
        let mut request = http::Request::builder().method(method.clone()).uri(url);
        if let Some(authorization) = authorization {
            request = request.header("authorization", authorization.expose());
        }
        request = request
            .header("accept", "application/vnd.github+json")
            .header("x-github-api-version", "2022-11-28")
            .header("user-agent", concat!("gitlore/", env!("CARGO_PKG_VERSION")));
        if body.is_some() {
            request = request.header("content-type", "application/json");
        }
        let request = request
            .body(body.unwrap_or_default().to_string())
            .map_err(|e| Error::Refused(format!("cannot build a request to {url}: {e}")))?;
        let unreachable = |reason: String| Error::Unreachable {
            url: url.to_string(),
            reason,
        };
        let response = self
            .crab
            .execute(request)
            .await
            .map_err(|e| unreachable(e.to_string()))?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = self
            .crab
            .body_to_string(response)
            .await
            .map_err(|e| unreachable(format!("the answer broke off: {e}")))?;
        Ok(Reply {
            status,
            headers,
            body,
            url: url.to_string(),
        })
    }

    fn app_key(&self) -> Result<&AppKey> {
        self.key.as_ref().ok_or_else(|| {
            Error::Refused(
                "this GitHub client has no App key, so it cannot call GitHub as the App".into(),
            )
        })
    }

    /// Waits before retry `attempt`: 0.5 s, 1 s, 2 s … plus jitter from the clock.
    pub(super) async fn backoff(&self, attempt: u32) {
        let base = FIRST_BACKOFF.saturating_mul(2u32.saturating_pow(attempt.saturating_sub(1)));
        let jitter_ms = self
            .clock
            .now()
            .0
            .rem_euclid(base.as_millis().max(4) as i64 / 4);
        self.pause
            .pause(base + Duration::from_millis(jitter_ms as u64))
            .await;
    }

    /// Waits until sending one more content-creating request keeps the last minute under the cap.
    async fn respect_create_limit(&self) {
        let wait = {
            let mut sent = self.creates.lock().unwrap_or_else(|p| p.into_inner());
            let now = self.clock.now();
            while sent.front().is_some_and(|at| now.since(*at) >= MINUTE) {
                sent.pop_front();
            }
            let wait = if sent.len() >= CREATES_PER_MINUTE {
                sent.front().map(|oldest| (*oldest + MINUTE).since(now))
            } else {
                None
            };
            sent.push_back(now + wait.unwrap_or(Duration::ZERO));
            wait
        };
        if let Some(wait) = wait {
            self.pause.pause(wait).await;
        }
    }
}

/// The answer of an installation-token exchange.
#[derive(Deserialize)]
struct AccessToken {
    token: String,
    expires_at: String,
}

/// A GraphQL request.
#[derive(Serialize)]
struct GraphQlRequest<'a> {
    query: &'a str,
    variables: Value,
}

/// A GraphQL answer: its data, and errors if any.
#[derive(Deserialize)]
struct GraphQlAnswer {
    #[serde(default)]
    data: Value,
    #[serde(default)]
    errors: Vec<GraphQlMessage>,
}

/// One GraphQL error.
#[derive(Deserialize)]
struct GraphQlMessage {
    message: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
}

/// The body of a REST error answer.
#[derive(Deserialize)]
struct ErrorAnswer {
    message: Option<String>,
}

/// Whether a GraphQL document is a mutation (content-creating) rather than a query.
fn is_mutation(query: &str) -> bool {
    query
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with('#'))
        .is_some_and(|line| line.starts_with("mutation"))
}

/// How long a rate-limited answer asks to wait: `Retry-After` on a secondary limit (403/429),
/// or until `X-RateLimit-Reset` when the primary limit is spent (a 403, or GraphQL's 200 with a
/// `RATE_LIMITED` error).
fn rate_limit_wait(reply: &Reply, graphql_limited: bool, now: UnixMs) -> Option<Duration> {
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
        return Some(
            UnixMs::from_secs(reset)
                .since(now)
                .max(Duration::from_secs(1)),
        );
    }
    (reply.status == 429 || graphql_limited).then_some(Duration::from_secs(60))
}

/// Whether a GraphQL answer (HTTP 200) says the primary limit is spent: a `RATE_LIMITED` error.
fn is_graphql_rate_limited(reply: &Reply) -> bool {
    reply.body.contains("RATE_LIMITED")
        && serde_json::from_str::<GraphQlAnswer>(&reply.body).is_ok_and(|answer| {
            answer
                .errors
                .iter()
                .any(|e| e.kind.as_deref() == Some("RATE_LIMITED"))
        })
}
