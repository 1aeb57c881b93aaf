//! The App's webhook deliveries (App JWT): `GET /app/hook/deliveries`, newest first, paged by
//! `cursor` with a `Link` to the next page, and `POST /app/hook/deliveries/{id}/attempts`, which
//! queues the attempt to be sent again and answers 202.

use serde_json::{Value, json};

use super::super::hooks::HookAttempt;
use super::super::json as gh;
use super::super::model::Model;
use super::super::server::{Reply, Urls};
use super::app::require_jwt;
use super::{DEFAULT_PER_PAGE, MAX_PER_PAGE, RestRequest};

/// A delivery as GitHub lists it (`hook-delivery-item`).
fn item(attempt: &HookAttempt) -> Value {
    let payload = &attempt.payload;
    json!({
        "id": attempt.id,
        "guid": attempt.guid,
        "delivered_at": gh::time(attempt.delivered_at_ms),
        "redelivery": attempt.redelivery,
        "duration": 0.05,
        "status": attempt.status,
        "status_code": attempt.status_code,
        "event": attempt.event,
        "action": payload.get("action").cloned().unwrap_or(Value::Null),
        "installation_id": payload.pointer("/installation/id").cloned().unwrap_or(Value::Null),
        "repository_id": payload.pointer("/repository/id").cloned().unwrap_or(Value::Null),
        "throttled_at": null,
    })
}

pub(super) fn list(model: &Model, urls: &Urls, req: &RestRequest<'_>) -> Reply {
    if let Err(reply) = require_jwt(model, req) {
        return reply;
    }
    let per_page = req
        .param("per_page")
        .and_then(|p| p.parse::<usize>().ok())
        .filter(|&p| p > 0)
        .unwrap_or(DEFAULT_PER_PAGE)
        .min(MAX_PER_PAGE);
    // The cursor names the last attempt of the previous page; older ones follow.
    let before = match req.param("cursor") {
        None => i64::MAX,
        Some(cursor) => match cursor.strip_prefix("v1_").and_then(|id| id.parse().ok()) {
            Some(id) => id,
            None => return Reply::message(422, "Invalid cursor"),
        },
    };
    let older: Vec<&HookAttempt> = model
        .hooks
        .attempts
        .iter()
        .rev()
        .filter(|a| a.id < before)
        .collect();
    let page: Vec<Value> = older.iter().take(per_page).map(|a| item(a)).collect();
    let reply = Reply::json(200, Value::Array(page));
    match older
        .get(per_page.saturating_sub(1))
        .filter(|_| older.len() > per_page)
    {
        Some(last) => reply.header(
            "Link",
            format!(
                "<{}?per_page={per_page}&cursor=v1_{}>; rel=\"next\"",
                urls.api("/app/hook/deliveries"),
                last.id
            ),
        ),
        None => reply,
    }
}

pub(super) fn redeliver(model: &mut Model, req: &RestRequest<'_>, id: &str) -> Reply {
    if let Err(reply) = require_jwt(model, req) {
        return reply;
    }
    let Some(id) = id.parse::<i64>().ok() else {
        return Reply::not_found();
    };
    let Some(attempt) = model.hooks.attempts.iter().find(|a| a.id == id) else {
        return Reply::not_found();
    };
    let queued = (
        attempt.guid.clone(),
        attempt.event.clone(),
        attempt.payload.clone(),
    );
    model.hooks.redelivery_requests.push(id);
    model.hooks.queued.push(queued);
    Reply::json(202, json!({}))
}
