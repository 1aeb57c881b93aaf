//! `POST /webhook`: refuse early what cannot be a delivery, read within bounds, verify, store
//! durably, answer.

use std::sync::Arc;

use axum::Extension;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use tracing::{debug, error, warn};

use tokio::sync::{Semaphore, SemaphorePermit};
use tokio::time::timeout;

use super::{AppState, BODY_TIMEOUT, MAX_BODY_BYTES, SMALL_BODY_BYTES, signature};
use crate::store::deliveries::{Inserted, NewDelivery};

/// The longest `X-GitHub-Event` / `X-GitHub-Delivery` value accepted (GitHub's are ~40 chars).
const MAX_HEADER_CHARS: usize = 200;

/// Bytes of webhook bodies that may be held in memory at once, shared by the handlers: small
/// bodies (every ordinary delivery) draw on a pool of their own, so that they never wait behind
/// large bodies still arriving, or slow clients holding the large pool.
#[derive(Clone)]
pub struct BodyBudget {
    small: Arc<Semaphore>,
    large: Arc<Semaphore>,
}

impl BodyBudget {
    /// `small` bytes for bodies of at most [`SMALL_BODY_BYTES`], `large` for the others.
    pub fn new(small: usize, large: usize) -> BodyBudget {
        BodyBudget {
            small: Arc::new(Semaphore::new(small)),
            large: Arc::new(Semaphore::new(large)),
        }
    }

    /// The pool a body of `size` bytes draws on.
    fn pool(&self, size: usize) -> &Semaphore {
        if size <= SMALL_BODY_BYTES {
            &self.small
        } else {
            &self.large
        }
    }
}

/// Refuses what is unsigned or too large before reading the body, reads the body within
/// [`BODY_TIMEOUT`] and the memory budget, verifies the signature on the raw body before
/// anything else, requires the event and delivery headers, and answers only once the delivery
/// is committed.
pub async fn receive(
    State(state): State<AppState>,
    Extension(budget): Extension<BodyBudget>,
    headers: HeaderMap,
    body: Body,
) -> (StatusCode, &'static str) {
    let signature = headers
        .get("x-hub-signature-256")
        .and_then(|value| value.to_str().ok());
    let Some(signature) = signature else {
        warn!("webhook without X-Hub-Signature-256 refused");
        return (StatusCode::UNAUTHORIZED, "missing X-Hub-Signature-256\n");
    };
    // Without a length known up front (chunked), the body may take the most a body may.
    let declared = body.size_hint().exact();
    let size = match declared.and_then(|bytes| usize::try_from(bytes).ok()) {
        Some(bytes) if bytes > MAX_BODY_BYTES => {
            warn!(bytes, "webhook body over the limit refused");
            return (StatusCode::PAYLOAD_TOO_LARGE, "body too large\n");
        }
        Some(bytes) => bytes,
        None => MAX_BODY_BYTES,
    };
    let Ok(body) = timeout(BODY_TIMEOUT, read_body(&budget, body, size)).await else {
        warn!("webhook body not received in time");
        return (StatusCode::REQUEST_TIMEOUT, "body not received in time\n");
    };
    let (body, _permit) = match body {
        Ok(read) => read,
        Err(refusal) => return refusal,
    };
    if !signature::verify(state.webhook_secret.expose().as_bytes(), &body, signature) {
        warn!("webhook with a wrong signature refused");
        return (StatusCode::UNAUTHORIZED, "signature does not match\n");
    }
    let (Some(event), Some(id)) = (
        header(&headers, "x-github-event"),
        header(&headers, "x-github-delivery"),
    ) else {
        return (
            StatusCode::BAD_REQUEST,
            "X-GitHub-Event and X-GitHub-Delivery are required\n",
        );
    };
    let delivery = NewDelivery::new(id.to_string(), event.to_string(), &body);
    match state.ingress.store(delivery).await {
        Ok(Inserted::New) => {
            debug!(delivery = id, event, "delivery stored");
            (StatusCode::ACCEPTED, "stored\n")
        }
        Ok(Inserted::Duplicate) => {
            debug!(delivery = id, event, "delivery seen before");
            (StatusCode::OK, "already stored\n")
        }
        Err(e) => {
            error!(
                delivery = id,
                error = format!("{e:#}"),
                "delivery not stored"
            );
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "cannot store the delivery now\n",
            )
        }
    }
}

/// Takes `size` bytes of the budget (waiting for them), then reads the body.
async fn read_body(
    budget: &BodyBudget,
    body: Body,
    size: usize,
) -> Result<(Bytes, SemaphorePermit<'_>), (StatusCode, &'static str)> {
    let permits = u32::try_from(size).unwrap_or(u32::MAX);
    let permit = budget
        .pool(size)
        .acquire_many(permits)
        .await
        .map_err(|_| (StatusCode::SERVICE_UNAVAILABLE, "shutting down\n"))?;
    match axum::body::to_bytes(body, MAX_BODY_BYTES).await {
        Ok(bytes) => Ok((bytes, permit)),
        Err(error) => {
            warn!(error = %error, "webhook body unreadable or over the limit");
            Err((
                StatusCode::PAYLOAD_TOO_LARGE,
                "body unreadable or too large\n",
            ))
        }
    }
}

/// A header that is present, printable ASCII, and of reasonable length.
fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    let value = headers.get(name)?.to_str().ok()?.trim();
    let valid = !value.is_empty()
        && value.len() <= MAX_HEADER_CHARS
        && value.bytes().all(|b| b.is_ascii_graphic());
    valid.then_some(value)
}
