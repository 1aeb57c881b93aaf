//! `POST /webhook`: verify, store durably, answer.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use tracing::{debug, error, warn};

use super::{AppState, signature};
use crate::store::deliveries::{Inserted, NewDelivery};

/// The longest `X-GitHub-Event` / `X-GitHub-Delivery` value accepted (GitHub's are ~40 chars).
const MAX_HEADER_CHARS: usize = 200;

/// Verifies the signature on the raw body before anything else, requires the event and delivery
/// headers, and answers only once the delivery is committed.
pub async fn receive(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, &'static str) {
    let signature = headers
        .get("x-hub-signature-256")
        .and_then(|value| value.to_str().ok());
    let Some(signature) = signature else {
        warn!("webhook without X-Hub-Signature-256 refused");
        return (StatusCode::UNAUTHORIZED, "missing X-Hub-Signature-256\n");
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

/// A header that is present, printable ASCII, and of reasonable length.
fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    let value = headers.get(name)?.to_str().ok()?.trim();
    let valid = !value.is_empty()
        && value.len() <= MAX_HEADER_CHARS
        && value.bytes().all(|b| b.is_ascii_graphic());
    valid.then_some(value)
}
