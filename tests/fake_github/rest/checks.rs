//! Check runs: create, get, update (GitHub's limits on output, annotations and actions), and the
//! list for a commit.

use serde_json::{Value, json};

use super::super::json as gh;
use super::super::model::{CheckRun, Model};
use super::super::server::{Reply, Urls};
use super::{RestRequest, not_supplied, paginate, validation_failed};

/// Longest check-run summary or text, in characters.
const MAX_CHECK_OUTPUT_CHARS: usize = 65_535;
/// Annotations GitHub accepts in one check-run request.
const MAX_ANNOTATIONS_PER_REQUEST: usize = 50;
/// Actions (buttons) a check run may have.
const MAX_CHECK_ACTIONS: usize = 3;

/// Validates and applies the writable fields of a check run (create and update share them).
fn apply_check_run_fields(
    run: &mut CheckRun,
    req: &RestRequest<'_>,
    now: i64,
) -> Result<(), Reply> {
    if let Some(name) = req.str_field("name") {
        run.name = name.to_string();
    }
    if let Some(url) = req.str_field("details_url") {
        run.details_url = Some(url.to_string());
    }
    if let Some(id) = req.str_field("external_id") {
        run.external_id = Some(id.to_string());
    }
    if let Some(status) = req.str_field("status") {
        if !matches!(
            status,
            "queued" | "in_progress" | "completed" | "waiting" | "requested" | "pending"
        ) {
            return Err(validation_failed(
                "CheckRun",
                "status",
                "status is not included in the list",
            ));
        }
        run.status = status.to_string();
    }
    if let Some(conclusion) = req.str_field("conclusion") {
        if !matches!(
            conclusion,
            "action_required"
                | "cancelled"
                | "failure"
                | "neutral"
                | "success"
                | "skipped"
                | "stale"
                | "timed_out"
        ) {
            return Err(validation_failed(
                "CheckRun",
                "conclusion",
                "conclusion is not included in the list",
            ));
        }
        run.conclusion = Some(conclusion.to_string());
        run.status = "completed".to_string();
    }
    if run.status == "completed" {
        if run.conclusion.is_none() {
            return Err(validation_failed(
                "CheckRun",
                "conclusion",
                "conclusion can't be blank when status is completed",
            ));
        }
        run.completed_at_ms = Some(
            req.str_field("completed_at")
                .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
                .map_or(now, |t| t.timestamp_millis()),
        );
    }
    if let Some(output) = req.field("output") {
        let title = output.get("title").and_then(Value::as_str);
        let summary = output.get("summary").and_then(Value::as_str);
        let (Some(title), Some(summary)) = (title, summary) else {
            return Err(Reply::message(
                422,
                "Invalid request.\n\n\"title\", \"summary\" weren't supplied.",
            ));
        };
        let text = output.get("text").and_then(Value::as_str);
        if summary.chars().count() > MAX_CHECK_OUTPUT_CHARS {
            return Err(validation_failed(
                "CheckRun",
                "summary",
                "summary is too long (maximum is 65535 characters)",
            ));
        }
        if text.is_some_and(|t| t.chars().count() > MAX_CHECK_OUTPUT_CHARS) {
            return Err(validation_failed(
                "CheckRun",
                "text",
                "text is too long (maximum is 65535 characters)",
            ));
        }
        let annotations = output
            .get("annotations")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if annotations.len() > MAX_ANNOTATIONS_PER_REQUEST {
            return Err(validation_failed(
                "CheckRun",
                "annotations",
                "Only 50 annotations are allowed per request",
            ));
        }
        run.title = Some(title.to_string());
        run.summary = Some(summary.to_string());
        if let Some(text) = text {
            run.text = Some(text.to_string());
        }
        run.annotations.extend(annotations);
    }
    if let Some(actions) = req.field("actions").and_then(Value::as_array) {
        if actions.len() > MAX_CHECK_ACTIONS {
            return Err(validation_failed(
                "CheckRun",
                "actions",
                "Only 3 actions are allowed",
            ));
        }
        for action in actions {
            let len = |k: &str| {
                action
                    .get(k)
                    .and_then(Value::as_str)
                    .map(|s| s.chars().count())
            };
            let ok = matches!(len("label"), Some(1..=20))
                && matches!(len("description"), Some(1..=40))
                && matches!(len("identifier"), Some(1..=20));
            if !ok {
                return Err(validation_failed(
                    "CheckRun",
                    "actions",
                    "label (≤ 20), description (≤ 40) and identifier (≤ 20) are required",
                ));
            }
        }
        run.actions = actions.clone();
    }
    Ok(())
}

fn check_run_json(model: &Model, urls: &Urls, key: &str, run: &CheckRun) -> Value {
    let app = run.app_id.and(model.app.as_ref()).map(|a| gh::app(urls, a));
    gh::check_run(urls, &model.repos[key], run, app)
}

pub(super) fn create_check_run(
    model: &mut Model,
    urls: &Urls,
    req: &RestRequest<'_>,
    key: &str,
    app_id: Option<i64>,
) -> Reply {
    let (Some(name), Some(head_sha)) = (req.str_field("name"), req.str_field("head_sha")) else {
        return not_supplied("name");
    };
    let now = model.now_ms;
    let mut run = model.new_check_run(head_sha, name);
    run.app_id = app_id;
    if let Err(reply) = apply_check_run_fields(&mut run, req, now) {
        return reply;
    }
    let value = check_run_json(model, urls, key, &run);
    model
        .repos
        .get_mut(key)
        .expect("checked by repo_route")
        .check_runs
        .push(run);
    Reply::json(201, value)
}

pub(super) fn get_check_run(model: &Model, urls: &Urls, key: &str, id: &str) -> Reply {
    let repo = &model.repos[key];
    match id
        .parse::<i64>()
        .ok()
        .and_then(|id| repo.check_runs.iter().find(|r| r.id == id))
    {
        Some(run) => Reply::json(200, check_run_json(model, urls, key, run)),
        None => Reply::not_found(),
    }
}

pub(super) fn update_check_run(
    model: &mut Model,
    urls: &Urls,
    req: &RestRequest<'_>,
    key: &str,
    id: &str,
) -> Reply {
    let now = model.now_ms;
    let repo = model.repos.get_mut(key).expect("checked by repo_route");
    let Some(run) = id
        .parse::<i64>()
        .ok()
        .and_then(|id| repo.check_runs.iter_mut().find(|r| r.id == id))
    else {
        return Reply::not_found();
    };
    let mut updated = run.clone();
    if let Err(reply) = apply_check_run_fields(&mut updated, req, now) {
        return reply;
    }
    *run = updated.clone();
    Reply::json(200, check_run_json(model, urls, key, &updated))
}

pub(super) fn list_check_runs(
    model: &Model,
    urls: &Urls,
    req: &RestRequest<'_>,
    key: &str,
    git_ref: &str,
) -> Reply {
    let repo = &model.repos[key];
    let name = req.param("check_name");
    let status = req.param("status");
    let runs: Vec<Value> = repo
        .check_runs
        .iter()
        .rev()
        .filter(|r| r.head_sha == git_ref)
        .filter(|r| name.as_ref().is_none_or(|n| &r.name == n))
        .filter(|r| status.as_ref().is_none_or(|s| &r.status == s))
        .map(|r| check_run_json(model, urls, key, r))
        .collect();
    let total = runs.len();
    let page = paginate(
        urls,
        req,
        &format!("/repositories/{}/commits/{git_ref}/check-runs", repo.id),
        runs,
    );
    Reply {
        body: Some(json!({"total_count": total, "check_runs": page.body.unwrap_or_default()})),
        ..page
    }
}
