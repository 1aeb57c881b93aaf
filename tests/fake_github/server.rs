//! The HTTP side of the fake: one axum fallback handler that reads a request, applies injected
//! faults and the primary rate limit, hands REST paths to `rest` and GraphQL to `graphql`, adds
//! GitHub's headers, and records the exchange in the request log.

use std::sync::{Arc, Mutex, MutexGuard};

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::faults::{self, Faults, Matchable};
use super::log::LoggedRequest;
use super::model::Model;
use super::oauth::WebReply;
use super::ratelimit::{Payer, RateLimits};
use super::resolvers::RateInfo;
use super::{auth, graphql, oauth, rest};

/// Largest request body the fake reads, in bytes: above GitHub's own limits for the bodies the
/// bot sends (65,536-character issue bodies, check-run output).
const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;

/// Where the fake answers.
#[derive(Debug, Clone)]
pub struct Urls {
    /// `http://127.0.0.1:PORT`: also the web host of `html_url`s.
    pub origin: String,
    /// Path prefix of the REST API: `/api/v3` (GitHub Enterprise Server layout) or empty.
    pub rest_prefix: String,
    /// Path of the GraphQL endpoint: `/api/graphql` or `/graphql`.
    pub graphql_path: String,
}

impl Urls {
    pub fn rest_base(&self) -> String {
        format!("{}{}", self.origin, self.rest_prefix)
    }

    /// An absolute REST URL for a path relative to the REST base.
    pub fn api(&self, path: &str) -> String {
        format!("{}{}{}", self.origin, self.rest_prefix, path)
    }

    /// An absolute web URL (`html_url`).
    pub fn web(&self, path: &str) -> String {
        format!("{}{}", self.origin, path)
    }
}

/// Everything the handler shares with the test's handle.
pub struct Shared {
    pub model: Mutex<Model>,
    pub faults: Mutex<Faults>,
    pub log: Mutex<Vec<LoggedRequest>>,
    pub rate: Mutex<RateLimits>,
    pub urls: Urls,
}

/// Locks a mutex, going on if a panicking test thread poisoned it.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// An answer before GitHub's common headers are added.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Option<Value>,
    /// Rate-limit points the request costs (REST: 1; GraphQL: the query's cost).
    pub cost: i64,
    /// `(remaining, reset epoch s)` to show instead of the bucket's (an injected exhaustion).
    pub rate_limit_override: Option<(i64, i64)>,
}

impl Reply {
    pub fn json(status: u16, body: Value) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: Some(body),
            cost: 1,
            rate_limit_override: None,
        }
    }

    /// GitHub's error body: `{"message", "documentation_url", "status"}`.
    pub fn message(status: u16, message: &str) -> Reply {
        Reply::json(
            status,
            json!({
                "message": message,
                "documentation_url": "https://docs.github.com/rest",
                "status": status.to_string()
            }),
        )
    }

    pub fn not_found() -> Reply {
        Reply::message(404, "Not Found")
    }

    pub fn header(mut self, name: &str, value: impl Into<String>) -> Reply {
        self.headers.push((name.to_string(), value.into()));
        self
    }
}

/// What the request is, by path.
enum Kind {
    Rest(String),
    GraphQl,
    Unknown,
}

fn classify(urls: &Urls, path: &str) -> Kind {
    if path == urls.graphql_path {
        return Kind::GraphQl;
    }
    match path.strip_prefix(urls.rest_prefix.as_str()) {
        Some(rest) if rest.starts_with('/') => Kind::Rest(rest.to_string()),
        _ => Kind::Unknown,
    }
}

/// Who pays for a request, from its `Authorization` header.
fn payer(model: &Model, token: Option<&str>) -> Payer {
    match token {
        Some(t) => match model.tokens.get(t) {
            Some(found) => Payer::Installation(found.installation_id),
            None if t.split('.').count() == 3 => Payer::App,
            None => Payer::Anonymous,
        },
        None => Payer::Anonymous,
    }
}

/// The fallback handler: every request of the fake goes through here.
pub async fn handle(State(shared): State<Arc<Shared>>, request: Request<Body>) -> Response {
    let (parts, body) = request.into_parts();
    let method = parts.method.as_str().to_string();
    let path = parts.uri.path().to_string();
    let query = parts.uri.query().unwrap_or("").to_string();
    let authorization = parts
        .headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let token = auth::bearer(authorization.as_deref()).map(str::to_string);
    let bytes = match axum::body::to_bytes(body, MAX_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(_) => return StatusCode::PAYLOAD_TOO_LARGE.into_response(),
    };
    if let Some(answer) = oauth::web(&mut lock(&shared.model), &method, &path, &query, &bytes) {
        return web_answer(&shared, method, path, query, answer);
    }
    let body: Result<Option<Value>, ()> = if bytes.is_empty() {
        Ok(None)
    } else {
        serde_json::from_slice(&bytes).map(Some).map_err(|_| ())
    };
    let kind = classify(&shared.urls, &path);
    let (operation, mutation) = match (&kind, &body) {
        (Kind::GraphQl, Ok(Some(b))) => graphql::describe(b),
        _ => (None, false),
    };

    let decision = {
        let matchable = match &kind {
            Kind::Rest(rel) => Some(Matchable::Rest {
                method: &method,
                path: rel,
            }),
            Kind::GraphQl => Some(Matchable::GraphQl {
                operation: operation.as_deref(),
            }),
            Kind::Unknown => None,
        };
        match matchable {
            Some(m) => lock(&shared.faults).decide(&m),
            None => faults::Decision::default(),
        }
    };
    if let Some(delay) = decision.delay {
        tokio::time::sleep(delay).await;
    }

    let graphql = matches!(kind, Kind::GraphQl);
    let resource = if graphql { "graphql" } else { "core" };
    let (reply, payer, now_s, installation_id) = {
        let mut model = lock(&shared.model);
        let now_s = model.now_ms.div_euclid(1000);
        let payer = payer(&model, token.as_deref());
        let installation_id = match &payer {
            Payer::Installation(id) => Some(*id),
            _ => None,
        };
        let reply = if let Some(fault) = &decision.failure {
            Reply {
                cost: 0,
                ..faults::reply(fault, graphql, now_s, installation_id)
            }
        } else if lock(&shared.rate).peek(&payer, resource, now_s).remaining <= 0 {
            let reset = lock(&shared.rate).peek(&payer, resource, now_s).reset_s;
            Reply {
                cost: 0,
                ..faults::primary_exhausted(graphql, reset, installation_id)
            }
        } else {
            match (&kind, &body) {
                (_, Err(())) => Reply::message(400, "Problems parsing JSON"),
                (Kind::Rest(rel), Ok(b)) => rest::dispatch(
                    &mut model,
                    &shared.urls,
                    &rest::RestRequest {
                        method: &method,
                        path: rel,
                        query: &query,
                        body: b.as_ref(),
                        token: token.as_deref(),
                    },
                ),
                (Kind::GraphQl, Ok(b)) => {
                    let bucket = lock(&shared.rate).peek(&payer, resource, now_s);
                    let rate = RateInfo {
                        limit: bucket.limit,
                        used: bucket.used,
                        reset_s: bucket.reset_s,
                    };
                    graphql::execute(&mut model, &shared.urls, b.as_ref(), token.as_deref(), rate)
                }
                (Kind::Unknown, Ok(_)) => Reply::not_found(),
            }
        };
        (reply, payer, now_s, installation_id)
    };

    // Redeliveries asked for are sent after the answer, as GitHub sends them.
    super::hooks::send_queued(&shared);
    let snapshot = lock(&shared.rate).charge(&payer, resource, reply.cost, now_s);
    let (remaining, reset) = reply
        .rate_limit_override
        .unwrap_or((snapshot.remaining, snapshot.reset_s));

    let logged_path = match &kind {
        Kind::Rest(rel) => rel.clone(),
        Kind::GraphQl => "/graphql".to_string(),
        Kind::Unknown => path.clone(),
    };
    lock(&shared.log).push(LoggedRequest {
        method,
        path: logged_path,
        query,
        token,
        installation_id,
        body: body.ok().flatten(),
        status: reply.status,
        graphql_operation: operation,
        graphql_mutation: mutation,
        fault: decision.failure.as_ref().map(|f| format!("{f:?}")),
    });

    let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = match &reply.body {
        Some(value) => (status, value.to_string()).into_response(),
        None => status.into_response(),
    };
    let headers = response.headers_mut();
    let mut set = |name: &str, value: String| {
        if let (Ok(name), Ok(value)) = (
            axum::http::HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            headers.insert(name, value);
        }
    };
    if reply.body.is_some() {
        set(
            "content-type",
            "application/json; charset=utf-8".to_string(),
        );
    }
    set("x-ratelimit-limit", snapshot.limit.to_string());
    set("x-ratelimit-remaining", remaining.to_string());
    set("x-ratelimit-reset", reset.to_string());
    set("x-ratelimit-used", snapshot.used.to_string());
    set("x-ratelimit-resource", snapshot.resource.to_string());
    set("x-github-api-version-selected", "2022-11-28".to_string());
    set("x-github-request-id", format!("FAKE:{:08X}", now_s));
    for (name, value) in reply.headers {
        set(&name, value);
    }
    response
}

/// An answer of the web host's OAuth endpoints, logged like any request (no token, no body).
fn web_answer(
    shared: &Shared,
    method: String,
    path: String,
    query: String,
    answer: WebReply,
) -> Response {
    let (status, response) = match answer {
        WebReply::Html(status, html) => (
            status,
            (
                StatusCode::from_u16(status).unwrap_or(StatusCode::OK),
                [("content-type", "text/html; charset=utf-8")],
                html,
            )
                .into_response(),
        ),
        WebReply::Redirect(location) => (
            302,
            (StatusCode::FOUND, [("location", location)]).into_response(),
        ),
        WebReply::Json(status, value) => (
            status,
            (
                StatusCode::from_u16(status).unwrap_or(StatusCode::OK),
                [("content-type", "application/json; charset=utf-8")],
                value.to_string(),
            )
                .into_response(),
        ),
    };
    lock(&shared.log).push(LoggedRequest {
        method,
        path,
        query,
        token: None,
        installation_id: None,
        body: None,
        status,
        graphql_operation: None,
        graphql_mutation: false,
        fault: None,
    });
    response
}
