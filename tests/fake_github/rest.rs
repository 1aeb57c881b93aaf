//! The REST routes the bot uses, with GitHub's status codes, validation messages, pagination
//! (`per_page`/`page`, absolute `Link` URLs on the fake's host, through `/repositories/{id}/…` as
//! GitHub writes them) and authentication: the token exchange takes the App's JWT, the manifest
//! conversion nothing, every other route an unexpired installation token that covers the repo
//! (no token or another installation's repo: 404, as GitHub hides private repositories; a
//! wrong or expired token: 401). A user token from the OAuth sign-in may ask `GET /user` and
//! `GET /repos/{owner}/{repo}` (`oauth.rs`).

mod app;
mod checks;
mod hooks;
mod issues;
mod repo;

use serde_json::{Value, json};

use super::json as gh;
use super::model::{Model, repo_key};
use super::server::{Reply, Urls};
use super::{auth, oauth};

/// GitHub's default page size, in items.
pub(super) const DEFAULT_PER_PAGE: usize = 30;
/// GitHub's largest page size, in items.
pub(super) const MAX_PER_PAGE: usize = 100;

/// A REST request as the routes see it. `path` is relative to the REST base.
pub struct RestRequest<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub query: &'a str,
    pub body: Option<&'a Value>,
    pub token: Option<&'a str>,
}

impl RestRequest<'_> {
    pub(super) fn param(&self, name: &str) -> Option<String> {
        url::form_urlencoded::parse(self.query.as_bytes())
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    }

    fn field(&self, name: &str) -> Option<&Value> {
        self.body.and_then(|b| b.get(name))
    }

    fn str_field(&self, name: &str) -> Option<&str> {
        self.field(name).and_then(Value::as_str)
    }
}

/// Answers one REST request.
pub fn dispatch(model: &mut Model, urls: &Urls, req: &RestRequest<'_>) -> Reply {
    let decoded: Vec<String> = req
        .path
        .trim_start_matches('/')
        .split('/')
        .map(|s| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8_lossy()
                .into_owned()
        })
        .collect();
    let segments: Vec<&str> = decoded.iter().map(String::as_str).collect();
    match (req.method, segments.as_slice()) {
        ("POST", ["app", "installations", id, "access_tokens"]) => {
            app::access_token(model, req, id)
        }
        ("GET", ["app"]) => app::get_app(model, urls, req),
        ("GET", ["app", "installations"]) => app::list_installations(model, urls, req),
        ("GET", ["app", "installations", id]) => app::get_installation(model, urls, req, id),
        ("GET", ["repos", owner, name, "installation"]) => {
            app::repo_installation(model, urls, req, owner, name)
        }
        ("GET", ["installation", "repositories"]) => {
            app::installation_repositories(model, urls, req)
        }
        ("GET", ["app", "hook", "deliveries"]) => hooks::list(model, urls, req),
        ("POST", ["app", "hook", "deliveries", id, "attempts"]) => hooks::redeliver(model, req, id),
        ("GET", ["user"]) => oauth::me(model, urls, req.token),
        ("POST", ["app-manifests", code, "conversions"]) => {
            app::manifest_conversion(model, urls, code)
        }
        (_, ["repositories", id, rest @ ..]) => {
            let found = id.parse::<i64>().ok().and_then(|id| {
                model
                    .repos
                    .values()
                    .find(|r| r.id == id)
                    .map(|r| (r.owner.clone(), r.name.clone()))
            });
            match found {
                Some((owner, name)) => repo_route(model, urls, req, &owner, &name, rest),
                None => Reply::not_found(),
            }
        }
        (_, ["repos", owner, name, rest @ ..]) => repo_route(model, urls, req, owner, name, rest),
        _ => Reply::not_found(),
    }
}

/// Checks the token for a repository route and answers it.
fn repo_route(
    model: &mut Model,
    urls: &Urls,
    req: &RestRequest<'_>,
    owner: &str,
    name: &str,
    rest: &[&str],
) -> Reply {
    let key = repo_key(&format!("{owner}/{name}"));
    let Some(token) = req.token else {
        return Reply::not_found();
    };
    if let Some(login) = oauth::user_of(model, token) {
        return oauth::user_repo_route(model, urls, req.method, &key, login, rest);
    }
    let Some(live) = auth::live_token(model, token) else {
        return Reply::message(401, "Bad credentials");
    };
    if !live.repos.contains(&key) || !model.repos.contains_key(&key) {
        return Reply::not_found();
    }
    let app_id = model.app.as_ref().map(|a| a.id);
    match (req.method, rest) {
        ("GET", []) => Reply::json(200, gh::repository(urls, &model.repos[&key])),
        ("GET", ["contents", path @ ..]) => repo::contents(model, urls, req, &key, &path.join("/")),
        ("GET", ["issues"]) => issues::list_issues(model, urls, req, &key),
        ("POST", ["issues"]) => issues::create_issue(model, urls, req, &key),
        ("GET", ["issues", "comments", id, "reactions"]) => {
            issues::list_reactions(model, urls, req, &key, id)
        }
        ("POST", ["issues", "comments", id, "reactions"]) => {
            issues::create_reaction(model, urls, req, &key, id)
        }
        ("GET", ["issues", number]) => issues::get_issue(model, urls, &key, number),
        ("PATCH", ["issues", number]) => issues::update_issue(model, urls, req, &key, number),
        ("GET", ["issues", number, "comments"]) => {
            issues::list_issue_comments(model, urls, req, &key, number)
        }
        ("POST", ["issues", number, "comments"]) => {
            issues::create_issue_comment(model, urls, req, &key, number)
        }
        ("POST", ["pulls", "comments", id, "reactions"]) => {
            issues::create_review_comment_reaction(model, urls, req, &key, id)
        }
        ("GET", ["pulls"]) => repo::list_pulls(model, urls, req, &key),
        ("GET", ["pulls", number]) => repo::get_pull(model, urls, &key, number),
        ("GET", ["pulls", number, "files"]) => repo::pull_files(model, urls, req, &key, number),
        ("GET", ["collaborators", login, "permission"]) => {
            repo::permission(model, urls, &key, login)
        }
        ("POST", ["check-runs"]) => checks::create_check_run(model, urls, req, &key, app_id),
        ("GET", ["check-runs", id]) => checks::get_check_run(model, urls, &key, id),
        ("PATCH", ["check-runs", id]) => checks::update_check_run(model, urls, req, &key, id),
        ("GET", ["commits", git_ref, "check-runs"]) => {
            checks::list_check_runs(model, urls, req, &key, git_ref)
        }
        _ => Reply::not_found(),
    }
}

/// One page of `items` with GitHub's `Link` header. `path` is the canonical list path relative
/// to the REST base (`/repositories/{id}/issues`); the request's other parameters are kept.
pub(super) fn paginate(urls: &Urls, req: &RestRequest<'_>, path: &str, items: Vec<Value>) -> Reply {
    let per_page = req
        .param("per_page")
        .and_then(|p| p.parse::<usize>().ok())
        .filter(|&p| p > 0)
        .unwrap_or(DEFAULT_PER_PAGE)
        .min(MAX_PER_PAGE);
    let page = req
        .param("page")
        .and_then(|p| p.parse::<usize>().ok())
        .filter(|&p| p > 0)
        .unwrap_or(1);
    let last = items.len().div_ceil(per_page).max(1);
    let start = (page - 1).saturating_mul(per_page);
    let page_items: Vec<Value> = items.into_iter().skip(start).take(per_page).collect();
    let kept: Vec<(String, String)> = url::form_urlencoded::parse(req.query.as_bytes())
        .filter(|(k, _)| k != "page")
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let link_to = |n: usize| {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in &kept {
            query.append_pair(k, v);
        }
        query.append_pair("page", &n.to_string());
        format!("<{}?{}>", urls.api(path), query.finish())
    };
    let mut links = Vec::new();
    if page > 1 {
        links.push(format!("{}; rel=\"prev\"", link_to((page - 1).min(last))));
    }
    if page < last {
        links.push(format!("{}; rel=\"next\"", link_to(page + 1)));
        links.push(format!("{}; rel=\"last\"", link_to(last)));
    }
    if page > 1 {
        links.push(format!("{}; rel=\"first\"", link_to(1)));
    }
    let reply = Reply::json(200, Value::Array(page_items));
    if links.is_empty() {
        reply
    } else {
        reply.header("Link", links.join(", "))
    }
}

pub(super) fn validation_failed(resource: &str, field: &str, message: &str) -> Reply {
    Reply::json(
        422,
        json!({
            "message": "Validation Failed",
            "errors": [{"resource": resource, "code": "custom", "field": field, "message": message}],
            "documentation_url": "https://docs.github.com/rest",
            "status": "422"
        }),
    )
}

pub(super) fn not_supplied(field: &str) -> Reply {
    Reply::message(
        422,
        &format!("Invalid request.\n\n\"{field}\" wasn't supplied."),
    )
}
