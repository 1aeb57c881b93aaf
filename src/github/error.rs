//! The one error of a GitHub call, and the two questions callers ask of it: may the same request
//! succeed later (`is_transient`), and is the thing asked for gone (`is_gone`).

use std::time::Duration;

/// What went wrong with a GitHub call.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No answer, or not all of one (a network error or a timeout): the request may or may not
    /// have been applied.
    #[error("cannot reach GitHub at {url}: {reason}")]
    Unreachable { url: String, reason: String },
    /// GitHub answered with an error status.
    #[error("GitHub answered {status} to {method} {url}: {message}")]
    Status {
        status: u16,
        method: String,
        url: String,
        message: String,
    },
    /// A rate limit asked for a longer wait than a request takes; nothing was processed.
    #[error("GitHub rate limit: asked to wait {wait:?} ({status} {url})")]
    RateLimited {
        wait: Duration,
        status: u16,
        url: String,
    },
    /// A GraphQL answer (HTTP 200) with errors.
    #[error("GitHub GraphQL error: {}", messages.join("; "))]
    GraphQl { messages: Vec<String> },
    /// GitHub answered, but not with what gitlore reads (not JSON, a field missing).
    #[error("GitHub's answer from {url} is not what gitlore reads: {reason}")]
    Unexpected { url: String, reason: String },
    /// gitlore did not send the request: it would go to another host, a value from a webhook is
    /// not what it claims to be, or this client lacks the credentials.
    #[error("{0}")]
    Refused(String),
}

impl Error {
    /// Whether GitHub is not answering for now — no answer at all, a 5xx, or a rate limit — so
    /// that the same request may well succeed later. Anything else (a 4xx, an answer gitlore
    /// cannot read, a request refused before sending) would fail again.
    pub fn is_transient(&self) -> bool {
        self.may_have_been_applied() || matches!(self, Error::RateLimited { .. })
    }

    /// Whether GitHub says the thing does not exist (404) or not any more (410).
    pub fn is_gone(&self) -> bool {
        matches!(
            self,
            Error::Status {
                status: 404 | 410,
                ..
            }
        )
    }

    /// Whether GitHub refuses the credentials (401): a wrong App id or key, or a token it does
    /// not know. The same request fails again until the credentials change.
    pub fn is_unauthorized(&self) -> bool {
        matches!(self, Error::Status { status: 401, .. })
    }

    /// Whether a request that failed so may have been applied all the same (no answer, or a
    /// 5xx): a create is then looked up before it is sent again.
    pub(super) fn may_have_been_applied(&self) -> bool {
        match self {
            Error::Unreachable { .. } => true,
            Error::Status { status, .. } => *status >= 500,
            _ => false,
        }
    }
}

/// A GitHub call's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    fn status(status: u16) -> Error {
        Error::Status {
            status,
            method: "GET".into(),
            url: "https://api.github.com/repos/a/b".into(),
            message: String::new(),
        }
    }

    #[test]
    fn only_no_answer_a_5xx_or_a_rate_limit_is_transient() {
        let unexpected = Error::Unexpected {
            url: "u".into(),
            reason: "missing field `id`".into(),
        };
        let limited = Error::RateLimited {
            wait: Duration::from_secs(3600),
            status: 403,
            url: "u".into(),
        };
        let unreachable = Error::Unreachable {
            url: "u".into(),
            reason: "connection refused".into(),
        };
        let transient: Vec<bool> = [
            unreachable,
            status(502),
            limited,
            status(404),
            status(422),
            unexpected,
            Error::Refused("not a login".into()),
            Error::GraphQl { messages: vec![] },
        ]
        .iter()
        .map(Error::is_transient)
        .collect();
        assert_eq!(
            transient,
            [true, true, true, false, false, false, false, false]
        );
    }

    #[test]
    fn gone_is_404_or_410() {
        let gone: Vec<bool> = [404, 410, 403, 500].map(|s| status(s).is_gone()).to_vec();
        assert_eq!(gone, [true, true, false, false]);
    }
}
