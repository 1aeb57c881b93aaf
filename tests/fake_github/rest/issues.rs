//! Issues (list with filters, get, create, update), their conversation comments, and reactions
//! on those comments and on inline review comments (idempotent: 200 for an existing reaction,
//! 201 for a new one).

use serde_json::Value;

use super::super::json as gh;
use super::super::model::{Model, Reaction};
use super::super::server::{Reply, Urls};
use super::{RestRequest, not_supplied, paginate, validation_failed};

/// Longest issue or comment body GitHub accepts, in characters.
const MAX_BODY_CHARS: usize = 65_536;
/// The reactions GitHub knows.
const REACTIONS: [&str; 8] = [
    "+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes",
];

pub(super) fn list_issues(model: &Model, urls: &Urls, req: &RestRequest<'_>, key: &str) -> Reply {
    let repo = &model.repos[key];
    let state = req.param("state").unwrap_or_else(|| "open".to_string());
    if !matches!(state.as_str(), "open" | "closed" | "all") {
        return validation_failed("Issue", "state", "state is not included in the list");
    }
    let labels: Vec<String> = req
        .param("labels")
        .map(|l| {
            l.split(',')
                .map(|s| s.trim().to_ascii_lowercase())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let creator = req.param("creator").map(|c| c.to_ascii_lowercase());
    let ascending = req.param("direction").as_deref() == Some("asc");
    let sort_updated = req.param("sort").as_deref() == Some("updated");

    // (sort key, number, json)
    let mut rows: Vec<(i64, u64, Value)> = Vec::new();
    for issue in repo.issues.values() {
        let state_ok = state == "all" || (state == "open") == issue.open;
        let labels_ok = labels
            .iter()
            .all(|l| issue.labels.iter().any(|x| x.eq_ignore_ascii_case(l)));
        let creator_ok = creator
            .as_ref()
            .is_none_or(|c| issue.author.rest_login().eq_ignore_ascii_case(c));
        if state_ok && labels_ok && creator_ok {
            let sort_key = if sort_updated {
                issue.updated_at_ms
            } else {
                issue.created_at_ms
            };
            rows.push((sort_key, issue.number, gh::issue(urls, repo, issue)));
        }
    }
    for pull in repo.pulls.values() {
        let state_ok = state == "all" || (state == "open") == pull.open;
        let creator_ok = creator
            .as_ref()
            .is_none_or(|c| pull.author.rest_login().eq_ignore_ascii_case(c));
        if state_ok && labels.is_empty() && creator_ok {
            let sort_key = if sort_updated {
                pull.updated_at_ms
            } else {
                pull.created_at_ms
            };
            rows.push((sort_key, pull.number, gh::pull_as_issue(urls, repo, pull)));
        }
    }
    rows.sort_by_key(|(k, n, _)| (*k, *n));
    if !ascending {
        rows.reverse();
    }
    let items = rows.into_iter().map(|(_, _, v)| v).collect();
    paginate(
        urls,
        req,
        &format!("/repositories/{}/issues", repo.id),
        items,
    )
}

/// Label names from a request's `labels` (strings or `{name}` objects).
fn label_names(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|labels| {
            labels
                .iter()
                .filter_map(|l| l.as_str().or_else(|| l.get("name").and_then(Value::as_str)))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn create_issue(
    model: &mut Model,
    urls: &Urls,
    req: &RestRequest<'_>,
    key: &str,
) -> Reply {
    let title = match req.field("title") {
        Some(Value::String(t)) if !t.is_empty() => t.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => return not_supplied("title"),
    };
    let body = req.str_field("body").map(str::to_string);
    if body
        .as_ref()
        .is_some_and(|b| b.chars().count() > MAX_BODY_CHARS)
    {
        return validation_failed(
            "Issue",
            "body",
            "body is too long (maximum is 65536 characters)",
        );
    }
    let author = model.app_bot();
    let number = model.repos[key].next_number();
    let mut issue = model.new_issue(number, &title, author);
    issue.body = body;
    issue.labels = req.field("labels").map(label_names).unwrap_or_default();
    model.insert_issue(key, issue);
    let repo = &model.repos[key];
    let value = gh::issue(urls, repo, &repo.issues[&number]);
    let location = urls.api(&format!("/repos/{}/issues/{number}", repo.full_name()));
    Reply::json(201, value).header("Location", location)
}

pub(super) fn get_issue(model: &Model, urls: &Urls, key: &str, number: &str) -> Reply {
    let repo = &model.repos[key];
    let Ok(number) = number.parse::<u64>() else {
        return Reply::not_found();
    };
    if let Some(issue) = repo.issues.get(&number) {
        return Reply::json(200, gh::issue(urls, repo, issue));
    }
    if let Some(pull) = repo.pulls.get(&number) {
        return Reply::json(200, gh::pull_as_issue(urls, repo, pull));
    }
    Reply::not_found()
}

pub(super) fn update_issue(
    model: &mut Model,
    urls: &Urls,
    req: &RestRequest<'_>,
    key: &str,
    number: &str,
) -> Reply {
    let Ok(number) = number.parse::<u64>() else {
        return Reply::not_found();
    };
    if let Some(Value::String(body)) = req.field("body")
        && body.chars().count() > MAX_BODY_CHARS
    {
        return validation_failed(
            "Issue",
            "body",
            "body is too long (maximum is 65536 characters)",
        );
    }
    let state = req.str_field("state");
    if state.is_some_and(|s| s != "open" && s != "closed") {
        return validation_failed("Issue", "state", "state is not included in the list");
    }
    let now = model.now_ms;
    let repo = model.repos.get_mut(key).expect("checked by repo_route");
    if let Some(issue) = repo.issues.get_mut(&number) {
        match req.field("title") {
            Some(Value::String(t)) if !t.is_empty() => issue.title = t.clone(),
            Some(Value::String(_)) => return not_supplied("title"),
            _ => {}
        }
        match req.field("body") {
            Some(Value::String(b)) => issue.body = Some(b.clone()),
            Some(Value::Null) => issue.body = None,
            _ => {}
        }
        if let Some(labels) = req.field("labels") {
            issue.labels = label_names(labels);
        }
        if let Some(state) = state {
            let open = state == "open";
            if open != issue.open {
                issue.open = open;
                issue.closed_at_ms = if open { None } else { Some(now) };
                issue.state_reason = if open {
                    Some("reopened".to_string())
                } else {
                    Some(
                        req.str_field("state_reason")
                            .unwrap_or("completed")
                            .to_string(),
                    )
                };
            }
        }
        issue.updated_at_ms = now;
        let repo = &model.repos[key];
        return Reply::json(200, gh::issue(urls, repo, &repo.issues[&number]));
    }
    if let Some(pull) = repo.pulls.get_mut(&number) {
        if let Some(Value::String(t)) = req.field("title") {
            pull.title = t.clone();
        }
        if let Some(Value::String(b)) = req.field("body") {
            pull.body = Some(b.clone());
        }
        pull.updated_at_ms = now;
        let repo = &model.repos[key];
        return Reply::json(200, gh::pull_as_issue(urls, repo, &repo.pulls[&number]));
    }
    Reply::not_found()
}

fn issue_exists(model: &Model, key: &str, number: u64) -> bool {
    let repo = &model.repos[key];
    repo.issues.contains_key(&number) || repo.pulls.contains_key(&number)
}

pub(super) fn list_issue_comments(
    model: &Model,
    urls: &Urls,
    req: &RestRequest<'_>,
    key: &str,
    number: &str,
) -> Reply {
    let Some(number) = number
        .parse::<u64>()
        .ok()
        .filter(|n| issue_exists(model, key, *n))
    else {
        return Reply::not_found();
    };
    let repo = &model.repos[key];
    let items = repo
        .issue_comments
        .iter()
        .filter(|c| c.issue_number == number)
        .map(|c| gh::issue_comment(urls, repo, c))
        .collect();
    paginate(
        urls,
        req,
        &format!("/repositories/{}/issues/{number}/comments", repo.id),
        items,
    )
}

pub(super) fn create_issue_comment(
    model: &mut Model,
    urls: &Urls,
    req: &RestRequest<'_>,
    key: &str,
    number: &str,
) -> Reply {
    let Some(number) = number
        .parse::<u64>()
        .ok()
        .filter(|n| issue_exists(model, key, *n))
    else {
        return Reply::not_found();
    };
    let Some(body) = req.str_field("body").filter(|b| !b.is_empty()) else {
        return not_supplied("body");
    };
    if body.chars().count() > MAX_BODY_CHARS {
        return validation_failed(
            "IssueComment",
            "body",
            "body is too long (maximum is 65536 characters)",
        );
    }
    let author = model.app_bot();
    let comment = model.new_issue_comment(key, number, author, body);
    let repo = model.repos.get_mut(key).expect("checked by repo_route");
    let location = urls.api(&format!(
        "/repos/{}/issues/comments/{}",
        repo.full_name(),
        comment.id
    ));
    let value = gh::issue_comment(urls, repo, &comment);
    repo.issue_comments.push(comment);
    Reply::json(201, value).header("Location", location)
}

pub(super) fn list_reactions(
    model: &Model,
    urls: &Urls,
    req: &RestRequest<'_>,
    key: &str,
    id: &str,
) -> Reply {
    let repo = &model.repos[key];
    let Some(comment) = id
        .parse::<i64>()
        .ok()
        .and_then(|id| repo.issue_comments.iter().find(|c| c.id == id))
    else {
        return Reply::not_found();
    };
    let items = comment
        .reactions
        .iter()
        .map(|r| gh::reaction(urls, r))
        .collect();
    paginate(
        urls,
        req,
        &format!(
            "/repositories/{}/issues/comments/{}/reactions",
            repo.id, comment.id
        ),
        items,
    )
}

pub(super) fn create_reaction(
    model: &mut Model,
    urls: &Urls,
    req: &RestRequest<'_>,
    key: &str,
    id: &str,
) -> Reply {
    let Some(id) = id.parse::<i64>().ok() else {
        return Reply::not_found();
    };
    if !model.repos[key].issue_comments.iter().any(|c| c.id == id) {
        return Reply::not_found();
    }
    fn reactions<'m>(model: &'m mut Model, key: &str, id: i64) -> Option<&'m mut Vec<Reaction>> {
        model
            .repos
            .get_mut(key)?
            .issue_comments
            .iter_mut()
            .find(|c| c.id == id)
            .map(|c| &mut c.reactions)
    }
    react(model, urls, req, |model| reactions(model, key, id))
}

pub(super) fn create_review_comment_reaction(
    model: &mut Model,
    urls: &Urls,
    req: &RestRequest<'_>,
    key: &str,
    id: &str,
) -> Reply {
    let Some(id) = id.parse::<i64>().ok() else {
        return Reply::not_found();
    };
    fn reactions<'m>(model: &'m mut Model, key: &str, id: i64) -> Option<&'m mut Vec<Reaction>> {
        model
            .repos
            .get_mut(key)?
            .pulls
            .values_mut()
            .flat_map(|p| p.threads.iter_mut())
            .flat_map(|t| t.comments.iter_mut())
            .find(|c| c.id == id)
            .map(|c| &mut c.reactions)
    }
    if reactions(model, key, id).is_none() {
        return Reply::not_found();
    }
    react(model, urls, req, |model| reactions(model, key, id))
}

/// Adds the App's reaction to the list `reactions_of` finds (checked to exist), or answers the
/// existing one.
fn react(
    model: &mut Model,
    urls: &Urls,
    req: &RestRequest<'_>,
    reactions_of: impl for<'m> Fn(&'m mut Model) -> Option<&'m mut Vec<Reaction>>,
) -> Reply {
    let Some(content) = req.str_field("content") else {
        return not_supplied("content");
    };
    if !REACTIONS.contains(&content) {
        return validation_failed("Reaction", "content", "content is not included in the list");
    }
    let user = model.app_bot();
    let fresh = model.new_reaction(content, user.clone());
    let reactions = reactions_of(model).expect("checked by the caller");
    if let Some(existing) = reactions
        .iter()
        .find(|r| r.content == content && r.user.id == user.id)
    {
        return Reply::json(200, gh::reaction(urls, existing));
    }
    let value = gh::reaction(urls, &fresh);
    reactions.push(fresh);
    Reply::json(201, value)
}
