//! Signing in with GitHub as an App's OAuth client does it (the web application flow): the
//! authorize page on the web host (`GET /login/oauth/authorize`, a form where the test types the
//! login that signs in — GitHub's own sign-in and consent in one), which redirects back with a
//! one-time code and the client's `state`; the code exchange (`POST
//! /login/oauth/access_token`, form or JSON, answered in JSON with GitHub's error codes); and
//! what a user token may ask of the REST API here: `GET /user`, and `GET /repos/{owner}/{repo}`,
//! which shows a private repository only to its collaborators.

use serde_json::{Value, json};

use super::json as gh;
use super::model::{Model, OAuthCode, Role};
use super::server::{Reply, Urls};

/// How long a code may wait to be exchanged: GitHub's ten minutes, in ms.
const CODE_LIFETIME_MS: i64 = 600_000;

/// An answer of the web host: a page, a redirect or JSON.
pub enum WebReply {
    Html(u16, String),
    Redirect(String),
    Json(u16, Value),
}

/// Answers a request to the OAuth endpoints of the web host, or `None` for any other path.
pub fn web(
    model: &mut Model,
    method: &str,
    path: &str,
    query: &str,
    body: &[u8],
) -> Option<WebReply> {
    let params = |text: &[u8]| -> Vec<(String, String)> {
        match serde_json::from_slice::<Value>(text) {
            Ok(Value::Object(map)) => map
                .into_iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k, v.to_string())))
                .collect(),
            _ => url::form_urlencoded::parse(text)
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        }
    };
    match (method, path) {
        ("GET", "/login/oauth/authorize") => Some(authorize_page(model, &params(query.as_bytes()))),
        ("POST", "/login/oauth/authorize") => Some(authorize(model, &params(body))),
        ("POST", "/login/oauth/access_token") => Some(access_token(model, &params(body))),
        _ => None,
    }
}

fn param<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    params
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn client_matches(model: &Model, params: &[(String, String)]) -> bool {
    matches!(&model.oauth.client, Some((id, _)) if param(params, "client_id") == Some(id.as_str()))
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn authorize_page(model: &Model, params: &[(String, String)]) -> WebReply {
    if !client_matches(model, params) {
        return WebReply::Html(
            404,
            "<!doctype html><title>Not Found</title><h1>404</h1>".into(),
        );
    }
    let hidden: String = ["client_id", "redirect_uri", "state"]
        .iter()
        .map(|name| {
            format!(
                "<input type=\"hidden\" name=\"{name}\" value=\"{}\">",
                escape(param(params, name).unwrap_or_default())
            )
        })
        .collect();
    WebReply::Html(
        200,
        format!(
            "<!doctype html><html><head><title>Authorize application</title></head><body>\
             <h1>Sign in to the fake GitHub and authorize the App</h1>\
             <form method=\"post\" action=\"/login/oauth/authorize\">{hidden}\
             <label>Username <input id=\"login_field\" name=\"login\"></label>\
             <button id=\"authorize\" type=\"submit\">Authorize</button></form></body></html>"
        ),
    )
}

fn authorize(model: &mut Model, params: &[(String, String)]) -> WebReply {
    let (Some(login), Some(redirect_uri)) = (param(params, "login"), param(params, "redirect_uri"))
    else {
        return WebReply::Html(422, "login and redirect_uri are required".into());
    };
    if !client_matches(model, params) || login.is_empty() {
        return WebReply::Html(404, "unknown client".into());
    }
    model.actor(login);
    let code = format!("code{:x}", model.next_id());
    model.oauth.codes.insert(
        code.clone(),
        OAuthCode {
            login: login.to_string(),
            redirect_uri: redirect_uri.to_string(),
            expires_at_ms: model.now_ms + CODE_LIFETIME_MS,
        },
    );
    let mut back = url::Url::parse(redirect_uri).expect("the redirect_uri is a URL");
    back.query_pairs_mut()
        .append_pair("code", &code)
        .append_pair("state", param(params, "state").unwrap_or_default());
    WebReply::Redirect(back.into())
}

fn access_token(model: &mut Model, params: &[(String, String)]) -> WebReply {
    let error = |code: &str| WebReply::Json(200, json!({"error": code, "error_description": code}));
    let secret_matches = matches!(&model.oauth.client, Some((_, secret)) if param(params, "client_secret") == Some(secret.as_str()));
    if !client_matches(model, params) || !secret_matches {
        return error("incorrect_client_credentials");
    }
    let Some(code) = param(params, "code").and_then(|code| model.oauth.codes.remove(code)) else {
        return error("bad_verification_code");
    };
    if code.expires_at_ms <= model.now_ms {
        return error("bad_verification_code");
    }
    if param(params, "redirect_uri").is_some_and(|uri| uri != code.redirect_uri) {
        return error("redirect_uri_mismatch");
    }
    let token = format!("ghu_fake{:x}", model.next_id());
    model.oauth.user_tokens.insert(token.clone(), code.login);
    WebReply::Json(
        200,
        json!({"access_token": token, "token_type": "bearer", "scope": ""}),
    )
}

/// The login of a user token, if it is one.
pub fn user_of<'m>(model: &'m Model, token: &str) -> Option<&'m str> {
    model.oauth.user_tokens.get(token).map(String::as_str)
}

/// `GET /user` with a user token.
pub fn me(model: &mut Model, urls: &Urls, token: Option<&str>) -> Reply {
    let Some(token) = token else {
        return Reply::message(401, "Requires authentication");
    };
    let Some(login) = user_of(model, token).map(str::to_string) else {
        return Reply::message(401, "Bad credentials");
    };
    let actor = model.actor(&login);
    Reply::json(200, gh::user(urls, &actor))
}

/// A repository route asked with a user token: only `GET /repos/{owner}/{repo}`, shown when
/// the repository is public or the user is a collaborator (404 otherwise, as GitHub hides it).
pub fn user_repo_route(
    model: &Model,
    urls: &Urls,
    method: &str,
    key: &str,
    login: &str,
    rest: &[&str],
) -> Reply {
    let Some(repo) = model.repos.get(key) else {
        return Reply::not_found();
    };
    let role = repo.collaborators.get(&login.to_ascii_lowercase()).copied();
    if repo.private && role.is_none() {
        return Reply::not_found();
    }
    match (method, rest) {
        ("GET", []) => {
            let mut value = gh::repository(urls, repo);
            let at_least = |roles: &[Role]| role.is_some_and(|r| roles.contains(&r));
            value["permissions"] = json!({
                "admin": at_least(&[Role::Admin]),
                "maintain": at_least(&[Role::Admin, Role::Maintain]),
                "push": at_least(&[Role::Admin, Role::Maintain, Role::Write]),
                "triage": at_least(&[Role::Admin, Role::Maintain, Role::Write, Role::Triage]),
                "pull": true,
            });
            Reply::json(200, value)
        }
        _ => Reply::not_found(),
    }
}
