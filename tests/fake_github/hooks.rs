//! The App's webhook deliveries as GitHub records them. The fake sends a webhook to the target a
//! test set (signed with its secret, `X-GitHub-Delivery` its GUID) and records the attempt with
//! GitHub's status (`OK`, `Invalid HTTP Response: 503`, `timed out` after 10 s, `failed to
//! connect to host`); `GET /app/hook/deliveries` lists the attempts (`rest/hooks.rs`) and
//! `POST /app/hook/deliveries/{id}/attempts` queues one again: it is sent soon after the 202,
//! as a new attempt with the same GUID and `redelivery: true`.

use std::sync::Arc;
use std::time::Duration;

use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

use super::FakeGitHub;
use super::server::{Shared, lock};
use super::webhooks::Webhook;

/// How long GitHub waits for a receiver's answer.
const GITHUB_GIVES_UP: Duration = Duration::from_secs(10);

/// Where the App's webhooks go.
#[derive(Debug, Clone)]
pub struct HookTarget {
    pub url: String,
    pub secret: String,
}

/// One attempt to deliver a webhook.
#[derive(Debug, Clone)]
pub struct HookAttempt {
    pub id: i64,
    pub guid: String,
    pub delivered_at_ms: i64,
    pub redelivery: bool,
    pub status: String,
    /// The receiver's status code; 0 without an answer.
    pub status_code: u16,
    pub event: String,
    pub payload: Value,
}

impl HookAttempt {
    pub fn succeeded(&self) -> bool {
        self.status == "OK"
    }
}

/// The App's webhook configuration and deliveries.
#[derive(Debug, Default)]
pub struct Hooks {
    pub target: Option<HookTarget>,
    /// Every attempt, oldest first.
    pub attempts: Vec<HookAttempt>,
    /// The attempt ids `POST …/attempts` asked for, in order.
    pub redelivery_requests: Vec<i64>,
    /// Asked for again and not sent yet: `(guid, event, payload)`.
    pub(super) queued: Vec<(String, String, Value)>,
}

/// A GUID shaped like GitHub's, from a serial number.
fn guid(serial: i64) -> String {
    format!("{:08x}-4f1e-11f0-8e3a-{serial:012x}", serial & 0xffff_ffff)
}

/// Sends one webhook to `target` and says how it went: GitHub's status and the status code.
async fn send(target: &HookTarget, guid: &str, event: &str, payload: &Value) -> (String, u16) {
    let body = serde_json::to_vec(payload).expect("a JSON payload");
    let mut mac = Hmac::<Sha256>::new_from_slice(target.secret.as_bytes()).expect("any key");
    mac.update(&body);
    let signature = format!("sha256={}", hex::encode(mac.finalize().into_bytes()));
    let client = reqwest::Client::builder()
        .timeout(GITHUB_GIVES_UP)
        .build()
        .expect("an HTTP client");
    let sent = client
        .post(&target.url)
        .header("content-type", "application/json")
        .header("user-agent", "GitHub-Hookshot/fake")
        .header("x-github-event", event)
        .header("x-github-delivery", guid)
        .header("x-hub-signature-256", signature)
        .body(body)
        .send()
        .await;
    match sent {
        Ok(answer) if answer.status().is_success() => ("OK".into(), answer.status().as_u16()),
        Ok(answer) => {
            let code = answer.status().as_u16();
            (format!("Invalid HTTP Response: {code}"), code)
        }
        Err(error) if error.is_timeout() => ("timed out".into(), 0),
        Err(_) => ("failed to connect to host".into(), 0),
    }
}

/// Sends a webhook as GitHub does and records the attempt.
async fn attempt(
    shared: &Shared,
    guid: String,
    event: String,
    payload: Value,
    redelivery: bool,
) -> HookAttempt {
    let target = lock(&shared.model).hooks.target.clone();
    let target = target.expect("a webhook target: call FakeGitHub::set_hook_target first");
    let (status, status_code) = send(&target, &guid, &event, &payload).await;
    let mut model = lock(&shared.model);
    let attempt = HookAttempt {
        id: model.next_id(),
        guid,
        delivered_at_ms: model.now_ms,
        redelivery,
        status,
        status_code,
        event,
        payload,
    };
    model.hooks.attempts.push(attempt.clone());
    attempt
}

/// Sends what `POST …/attempts` queued, each on its own task.
pub(super) fn send_queued(shared: &Arc<Shared>) {
    let queued = std::mem::take(&mut lock(&shared.model).hooks.queued);
    for (guid, event, payload) in queued {
        let shared = shared.clone();
        tokio::spawn(async move { attempt(&shared, guid, event, payload, true).await });
    }
}

impl FakeGitHub {
    /// Where the App's webhooks go, and the secret they are signed with.
    pub fn set_hook_target(&self, url: &str, secret: &str) {
        self.seed(|m| {
            m.hooks.target = Some(HookTarget {
                url: url.into(),
                secret: secret.into(),
            })
        });
    }

    /// Delivers `hook` as GitHub does (a new GUID) and records the attempt, which it returns.
    pub async fn deliver_hook(&self, hook: &Webhook) -> HookAttempt {
        let guid = guid(self.seed(|m| m.next_id()));
        attempt(
            &self.shared,
            guid,
            hook.event.into(),
            hook.payload.clone(),
            false,
        )
        .await
    }

    /// Every attempt so far, oldest first.
    pub fn hook_attempts(&self) -> Vec<HookAttempt> {
        self.inspect(|m| m.hooks.attempts.clone())
    }

    /// The attempt ids GitHub was asked to deliver again, in order.
    pub fn redelivery_requests(&self) -> Vec<i64> {
        self.inspect(|m| m.hooks.redelivery_requests.clone())
    }
}
