//! Injected failures: a 5xx, a secondary rate limit (403 or 429 with `Retry-After`), an exhausted
//! primary rate limit, a delay before answering, a page linking to another host, a 410 Gone or
//! an answer without the fields asked for, for
//! requests matching a target, a given number of times. The bodies and headers are GitHub's.

use std::time::Duration;

use serde_json::json;

use super::server::Reply;

/// Which requests a fault applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// REST requests with this method (any method when `None`) whose path relative to the REST
    /// base (`/repos/acme/widgets/issues`) starts with `path_prefix`.
    Rest {
        method: Option<String>,
        path_prefix: String,
    },
    /// GraphQL requests of the operation with this name.
    GraphQl { operation: String },
    /// Every GraphQL request.
    AnyGraphQl,
}

impl Target {
    /// REST requests with `method` under `path_prefix` (relative to the REST base).
    pub fn rest(method: &str, path_prefix: &str) -> Target {
        Target::Rest {
            method: Some(method.to_ascii_uppercase()),
            path_prefix: path_prefix.to_string(),
        }
    }

    /// REST requests of any method under `path_prefix`.
    pub fn rest_any(path_prefix: &str) -> Target {
        Target::Rest {
            method: None,
            path_prefix: path_prefix.to_string(),
        }
    }

    /// GraphQL requests of operation `name`.
    pub fn graphql(name: &str) -> Target {
        Target::GraphQl {
            operation: name.to_string(),
        }
    }

    fn matches(&self, request: &Matchable<'_>) -> bool {
        match (self, request) {
            (
                Target::Rest {
                    method,
                    path_prefix,
                },
                Matchable::Rest { method: m, path },
            ) => {
                method.as_deref().is_none_or(|x| x == *m) && path.starts_with(path_prefix.as_str())
            }
            (Target::GraphQl { operation }, Matchable::GraphQl { operation: op }) => {
                op.is_some_and(|op| op == operation)
            }
            (Target::AnyGraphQl, Matchable::GraphQl { .. }) => true,
            _ => false,
        }
    }
}

/// What happens to a matching request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// Answer with this 5xx status.
    ServerError(u16),
    /// 403 with `Retry-After` and GitHub's secondary-rate-limit message.
    SecondaryRateLimit { retry_after_s: u64 },
    /// 429 with `Retry-After`.
    TooManyRequests { retry_after_s: u64 },
    /// The primary limit is spent: 403 (REST) or a `RATE_LIMITED` GraphQL error, with
    /// `X-RateLimit-Remaining: 0` and a reset this many seconds after the fake's now.
    PrimaryExhausted { reset_in_s: i64 },
    /// Wait this long (real time), then answer normally (or with the next matching fault).
    Delay(Duration),
    /// An empty page whose `Link` header sends the next page to this URL (another host, say).
    NextPageAt(String),
    /// 410 Gone, as GitHub answers for a deleted issue.
    Gone,
    /// 200 with a JSON object holding none of the fields asked for.
    UnexpectedAnswer,
}

/// A request as faults see it.
pub enum Matchable<'a> {
    Rest { method: &'a str, path: &'a str },
    GraphQl { operation: Option<&'a str> },
}

#[derive(Debug, Clone)]
struct Rule {
    target: Target,
    fault: Fault,
    remaining: usize,
}

/// The injected faults, applied in the order they were added.
#[derive(Debug, Default)]
pub struct Faults {
    rules: Vec<Rule>,
}

/// What to do to one request: wait first, then maybe fail.
#[derive(Debug, Default)]
pub struct Decision {
    pub delay: Option<Duration>,
    pub failure: Option<Fault>,
}

impl Faults {
    pub fn add(&mut self, target: Target, fault: Fault, times: usize) {
        self.rules.push(Rule {
            target,
            fault,
            remaining: times,
        });
    }

    pub fn clear(&mut self) {
        self.rules.clear();
    }

    /// Takes one use of the first matching delay and of the first matching failure.
    pub fn decide(&mut self, request: &Matchable<'_>) -> Decision {
        let mut decision = Decision::default();
        for rule in self.rules.iter_mut() {
            if rule.remaining == 0 || !rule.target.matches(request) {
                continue;
            }
            match &rule.fault {
                Fault::Delay(d) if decision.delay.is_none() => {
                    decision.delay = Some(*d);
                    rule.remaining -= 1;
                }
                Fault::Delay(_) => {}
                other if decision.failure.is_none() => {
                    decision.failure = Some(other.clone());
                    rule.remaining -= 1;
                }
                _ => {}
            }
        }
        decision
    }
}

/// GitHub's documentation link for rate limits.
const RATE_LIMIT_DOCS: &str = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api";

/// The answer GitHub gives for `fault` (never called with `Delay`).
/// `installation` names the installation in the primary-limit message.
pub fn reply(fault: &Fault, graphql: bool, now_s: i64, installation: Option<i64>) -> Reply {
    match fault {
        Fault::ServerError(status) => Reply::json(
            *status,
            json!({"message": "Server Error"}),
        ),
        Fault::SecondaryRateLimit { retry_after_s } => Reply::json(
            403,
            json!({
                "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID FAKE:0000:0000.",
                "documentation_url": format!("{RATE_LIMIT_DOCS}#about-secondary-rate-limits"),
                "status": "403"
            }),
        )
        .header("Retry-After", retry_after_s.to_string()),
        Fault::TooManyRequests { retry_after_s } => Reply::json(
            429,
            json!({
                "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                "documentation_url": format!("{RATE_LIMIT_DOCS}#about-secondary-rate-limits"),
                "status": "429"
            }),
        )
        .header("Retry-After", retry_after_s.to_string()),
        Fault::PrimaryExhausted { reset_in_s } => {
            primary_exhausted(graphql, now_s + reset_in_s, installation)
        }
        Fault::NextPageAt(url) => {
            Reply::json(200, json!([])).header("Link", format!("<{url}>; rel=\"next\""))
        }
        Fault::Gone => Reply::json(410, json!({"message": "This issue was deleted"})),
        Fault::UnexpectedAnswer => Reply::json(200, json!({"unexpected": true})),
        Fault::Delay(_) => unreachable!("a delay is not an answer"),
    }
}

/// GitHub's answer once the primary limit is spent; the rate-limit headers are set by the caller
/// from `Reply::rate_limit_override`.
pub fn primary_exhausted(graphql: bool, reset_epoch_s: i64, installation: Option<i64>) -> Reply {
    let who = installation.map_or_else(
        || "your IP address".to_string(),
        |id| format!("installation ID {id}"),
    );
    let reply = if graphql {
        Reply::json(
            200,
            json!({"errors": [{
                "type": "RATE_LIMITED",
                "message": format!("API rate limit exceeded for {who}.")
            }]}),
        )
    } else {
        Reply::json(
            403,
            json!({
                "message": format!("API rate limit exceeded for {who}. If you reach out to GitHub Support for help, please include the request ID FAKE:0000:0000."),
                "documentation_url": RATE_LIMIT_DOCS,
                "status": "403"
            }),
        )
    };
    Reply {
        rate_limit_override: Some((0, reset_epoch_s)),
        ..reply
    }
}
