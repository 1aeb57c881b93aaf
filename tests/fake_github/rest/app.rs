//! The App's own routes: the installation-token exchange and the installation look-ups (App JWT),
//! the repositories of an installation token, and the manifest conversion (no authentication).

use serde_json::{Value, json};

use super::super::auth;
use super::super::json as gh;
use super::super::model::{Model, repo_key};
use super::super::server::{Reply, Urls};
use super::{RestRequest, paginate};

pub(super) fn access_token(model: &mut Model, req: &RestRequest<'_>, id: &str) -> Reply {
    let Some(jwt) = req.token else {
        return Reply::message(401, "A JSON web token could not be decoded");
    };
    if let Err(refusal) = auth::verify_jwt(model, jwt) {
        return Reply::message(401, &refusal.0);
    }
    let Ok(installation_id) = id.parse::<i64>() else {
        return Reply::not_found();
    };
    match model.installations.get(&installation_id) {
        None => return Reply::not_found(),
        Some(i) if i.suspended => {
            return Reply::message(403, "This installation has been suspended");
        }
        Some(_) => {}
    }
    let narrowed: Option<Vec<String>> =
        req.field("repositories")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            });
    let Some(token) = auth::issue_token(model, installation_id, narrowed.as_deref()) else {
        return Reply::not_found();
    };
    let mut body = json!({
        "token": token.token,
        "expires_at": gh::time(token.expires_at_ms),
        "permissions": {
            "metadata": "read",
            "contents": "read",
            "pull_requests": "read",
            "issues": "write",
            "checks": "write"
        },
        "repository_selection": "selected"
    });
    if narrowed.is_some() {
        body["repositories"] = json!(
            token
                .repos
                .iter()
                .filter_map(|k| model.repos.get(k))
                .map(|r| json!({
                    "id": r.id, "node_id": r.node_id, "name": r.name, "full_name": r.full_name()
                }))
                .collect::<Vec<_>>()
        );
    }
    Reply::json(201, body)
}

pub(super) fn get_app(model: &mut Model, urls: &Urls, req: &RestRequest<'_>) -> Reply {
    let Some(jwt) = req.token else {
        return Reply::message(401, "A JSON web token could not be decoded");
    };
    if let Err(refusal) = auth::verify_jwt(model, jwt) {
        return Reply::message(401, &refusal.0);
    }
    match &model.app {
        Some(app) => Reply::json(200, gh::app(urls, app)),
        None => Reply::not_found(),
    }
}

/// Checks the App's JWT of a request; `Err` is GitHub's 401.
pub(super) fn require_jwt(model: &Model, req: &RestRequest<'_>) -> Result<(), Reply> {
    let Some(jwt) = req.token else {
        return Err(Reply::message(401, "A JSON web token could not be decoded"));
    };
    auth::verify_jwt(model, jwt)
        .map(|_| ())
        .map_err(|refusal| Reply::message(401, &refusal.0))
}

fn installation_json(model: &Model, urls: &Urls, id: i64) -> Option<Value> {
    let app = model.app.as_ref()?;
    let installation = model.installations.get(&id)?;
    // The fake has no account objects: a stable id derived from the installation's.
    let account_id = 8_000_000 + installation.id;
    Some(gh::installation(urls, app, installation, account_id))
}

pub(super) fn list_installations(model: &Model, urls: &Urls, req: &RestRequest<'_>) -> Reply {
    if let Err(reply) = require_jwt(model, req) {
        return reply;
    }
    let items = model
        .installations
        .keys()
        .filter_map(|id| installation_json(model, urls, *id))
        .collect();
    paginate(urls, req, "/app/installations", items)
}

pub(super) fn get_installation(
    model: &Model,
    urls: &Urls,
    req: &RestRequest<'_>,
    id: &str,
) -> Reply {
    if let Err(reply) = require_jwt(model, req) {
        return reply;
    }
    id.parse::<i64>()
        .ok()
        .and_then(|id| installation_json(model, urls, id))
        .map_or_else(Reply::not_found, |v| Reply::json(200, v))
}

pub(super) fn repo_installation(
    model: &Model,
    urls: &Urls,
    req: &RestRequest<'_>,
    owner: &str,
    name: &str,
) -> Reply {
    if let Err(reply) = require_jwt(model, req) {
        return reply;
    }
    let key = repo_key(&format!("{owner}/{name}"));
    model
        .installations
        .values()
        .find(|i| i.repos.contains(&key))
        .and_then(|i| installation_json(model, urls, i.id))
        .map_or_else(Reply::not_found, |v| Reply::json(200, v))
}

pub(super) fn installation_repositories(
    model: &Model,
    urls: &Urls,
    req: &RestRequest<'_>,
) -> Reply {
    let Some(live) = req.token.and_then(|t| auth::live_token(model, t)) else {
        return Reply::message(401, "Bad credentials");
    };
    let items: Vec<Value> = live
        .repos
        .iter()
        .filter_map(|k| model.repos.get(k))
        .map(|r| {
            // A list shows the short repository: no network or subscriber counts.
            let mut value = gh::repository(urls, r);
            if let Some(map) = value.as_object_mut() {
                map.remove("network_count");
                map.remove("subscribers_count");
            }
            value
        })
        .collect();
    let total = items.len();
    let page = paginate(urls, req, "/installation/repositories", items);
    Reply {
        body: Some(json!({
            "total_count": total,
            "repositories": page.body.clone().unwrap_or_default(),
            "repository_selection": "selected"
        })),
        ..page
    }
}

pub(super) fn manifest_conversion(model: &mut Model, urls: &Urls, code: &str) -> Reply {
    let Some(conversion) = model.manifest_codes.remove(code) else {
        return Reply::not_found();
    };
    model.set_app(
        conversion.app_id,
        &conversion.slug,
        &conversion.public_key_pem,
    );
    if let Some(app) = model.app.as_mut() {
        app.name = conversion.name.clone();
        app.owner = conversion.owner.clone();
    }
    let app = model.app.as_ref().expect("just set");
    let mut body = gh::app(urls, app);
    body["client_id"] = json!(conversion.client_id);
    body["client_secret"] = json!(conversion.client_secret);
    body["webhook_secret"] = json!(conversion.webhook_secret);
    body["pem"] = json!(conversion.pem);
    Reply::json(201, body)
}
