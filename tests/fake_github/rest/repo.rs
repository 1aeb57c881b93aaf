//! Repository reads: file contents on the default branch, pull requests (one, a list, a pull
//! request's changed files), a collaborator's permission.

use serde_json::{Value, json};

use super::super::json as gh;
use super::super::model::Model;
use super::super::server::{Reply, Urls};
use super::{RestRequest, paginate};

/// Files `GET /pulls/{n}/files` lists at most.
const MAX_PULL_FILES: usize = 3_000;

pub(super) fn contents(
    model: &Model,
    urls: &Urls,
    req: &RestRequest<'_>,
    key: &str,
    path: &str,
) -> Reply {
    let repo = &model.repos[key];
    if let Some(git_ref) = req.param("ref") {
        let branch = git_ref
            .trim_start_matches("refs/")
            .trim_start_matches("heads/");
        if branch != repo.default_branch {
            return Reply::message(404, &format!("No commit found for the ref {git_ref}"));
        }
    }
    let path = path.trim_matches('/');
    let content = (repo.files.get(path).map(String::as_bytes))
        .or_else(|| repo.binary_files.get(path).map(Vec::as_slice));
    if let Some(content) = content {
        return Reply::json(200, gh::file_content(urls, repo, path, content));
    }
    let prefix = if path.is_empty() {
        String::new()
    } else {
        format!("{path}/")
    };
    let mut entries: Vec<Value> = Vec::new();
    let mut seen_dirs: Vec<String> = Vec::new();
    for (file, content) in repo.files.range(prefix.clone()..) {
        let Some(rest) = file.strip_prefix(&prefix) else {
            break;
        };
        match rest.split_once('/') {
            None => entries.push(gh::dir_entry(
                urls,
                repo,
                file,
                "file",
                content.len(),
                &gh::blob_sha(content),
            )),
            Some((dir, _)) => {
                let dir_path = format!("{prefix}{dir}");
                if !seen_dirs.contains(&dir_path) {
                    let sha = gh::blob_sha(&dir_path);
                    entries.push(gh::dir_entry(urls, repo, &dir_path, "dir", 0, &sha));
                    seen_dirs.push(dir_path);
                }
            }
        }
    }
    if entries.is_empty() && !path.is_empty() {
        return Reply::not_found();
    }
    Reply::json(200, Value::Array(entries))
}

/// `GET /pulls`: `state` open (the default), closed or all; `sort` created (the default) or
/// updated; `direction` desc (the default) or asc; paginated.
pub(super) fn list_pulls(model: &Model, urls: &Urls, req: &RestRequest<'_>, key: &str) -> Reply {
    let repo = &model.repos[key];
    let state = req.param("state").unwrap_or_else(|| "open".into());
    let mut pulls: Vec<_> = repo
        .pulls
        .values()
        .filter(|p| match state.as_str() {
            "all" => true,
            "closed" => !p.open,
            _ => p.open,
        })
        .collect();
    let updated = req.param("sort").as_deref() == Some("updated");
    pulls.sort_by_key(|p| {
        let at = if updated {
            p.updated_at_ms
        } else {
            p.created_at_ms
        };
        (at, p.number)
    });
    if req.param("direction").as_deref() != Some("asc") {
        pulls.reverse();
    }
    let items = pulls
        .into_iter()
        .map(|p| gh::pull_simple(urls, repo, p))
        .collect();
    paginate(
        urls,
        req,
        &format!("/repositories/{}/pulls", repo.id),
        items,
    )
}

/// `GET /pulls/{number}`.
pub(super) fn get_pull(model: &Model, urls: &Urls, key: &str, number: &str) -> Reply {
    let repo = &model.repos[key];
    match number.parse::<u64>().ok().and_then(|n| repo.pulls.get(&n)) {
        Some(pull) => Reply::json(200, gh::pull(urls, repo, pull)),
        None => Reply::not_found(),
    }
}

pub(super) fn pull_files(
    model: &Model,
    urls: &Urls,
    req: &RestRequest<'_>,
    key: &str,
    number: &str,
) -> Reply {
    let repo = &model.repos[key];
    let Some(pull) = number.parse::<u64>().ok().and_then(|n| repo.pulls.get(&n)) else {
        return Reply::not_found();
    };
    let items = pull
        .changed_files
        .iter()
        .take(MAX_PULL_FILES)
        .map(|f| gh::pull_file(urls, repo, pull, f))
        .collect();
    paginate(
        urls,
        req,
        &format!("/repositories/{}/pulls/{}/files", repo.id, pull.number),
        items,
    )
}

pub(super) fn permission(model: &Model, urls: &Urls, key: &str, login: &str) -> Reply {
    let repo = &model.repos[key];
    let bare = login
        .strip_suffix("[bot]")
        .unwrap_or(login)
        .to_ascii_lowercase();
    let (Some(role), Some(actor)) = (
        repo.collaborators.get(&login.to_ascii_lowercase()),
        model.actors.get(&bare),
    ) else {
        return Reply::not_found();
    };
    let mut user = gh::user(urls, actor);
    user["role_name"] = json!(role.role_name());
    Reply::json(
        200,
        json!({"permission": role.permission(), "role_name": role.role_name(), "user": user}),
    )
}
