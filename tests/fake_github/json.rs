//! REST representations of the model's objects, with every field GitHub's REST description
//! marks as required (URLs point at the fake's own host). The self-test checks them against the
//! description's response schemas.

use base64::Engine as _;
use serde_json::{Value, json};
use sha1::{Digest, Sha1};

use super::model::{Actor, App, CheckRun, Installation, Issue, IssueComment, Pull, Reaction, Repo};
use super::server::Urls;

/// Characters per line of base64 in a contents answer, as GitHub wraps it.
const BASE64_LINE: usize = 60;
/// The largest file the contents API serves with its content: 1 MB.
const MAX_CONTENT_BYTES: usize = 1024 * 1024;

/// RFC 3339 in UTC without fractions, as GitHub writes times (`2024-01-01T00:00:00Z`).
pub fn time(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

fn opt_time(ms: Option<i64>) -> Value {
    ms.map_or(Value::Null, |ms| Value::String(time(ms)))
}

/// A `simple-user`.
pub fn user(urls: &Urls, actor: &Actor) -> Value {
    let login = actor.rest_login();
    let api = urls.api(&format!("/users/{login}"));
    json!({
        "login": login,
        "id": actor.id,
        "node_id": format!("U_fake{}", actor.id),
        "avatar_url": format!("{}/avatars/u/{}", urls.origin, actor.id),
        "gravatar_id": "",
        "url": api,
        "html_url": urls.web(&format!("/{login}")),
        "followers_url": format!("{api}/followers"),
        "following_url": format!("{api}/following{{/other_user}}"),
        "gists_url": format!("{api}/gists{{/gist_id}}"),
        "starred_url": format!("{api}/starred{{/owner}}{{/repo}}"),
        "subscriptions_url": format!("{api}/subscriptions"),
        "organizations_url": format!("{api}/orgs"),
        "repos_url": format!("{api}/repos"),
        "events_url": format!("{api}/events{{/privacy}}"),
        "received_events_url": format!("{api}/received_events"),
        "type": if actor.bot { "Bot" } else { "User" },
        "site_admin": false,
        "user_view_type": "public"
    })
}

/// An owner object for an account name (organization or user; the fake calls them all
/// `Organization` unless the name is a known actor).
fn owner(urls: &Urls, login: &str, id: i64) -> Value {
    user(
        urls,
        &Actor {
            login: login.to_string(),
            bot: false,
            id,
        },
    )
}

/// A full repository.
pub fn repository(urls: &Urls, repo: &Repo) -> Value {
    let full = repo.full_name();
    let api = urls.api(&format!("/repos/{full}"));
    let mut owner = owner(urls, &repo.owner, repo.id + 7_000_000);
    owner["type"] = json!("Organization");
    let open_issues = repo.issues.values().filter(|i| i.open).count();
    let host = urls.origin.trim_start_matches("http://");
    let mut value = json!({
        "id": repo.id,
        "node_id": repo.node_id,
        "name": repo.name,
        "full_name": full,
        "owner": owner,
        "private": repo.private,
        "visibility": if repo.private { "private" } else { "public" },
        "html_url": urls.web(&format!("/{full}")),
        "description": null,
        "fork": false,
        "url": api,
        "git_url": format!("git://{host}/{full}.git"),
        "ssh_url": format!("git@{host}:{full}.git"),
        "clone_url": urls.web(&format!("/{full}.git")),
        "svn_url": urls.web(&format!("/{full}")),
        "mirror_url": null,
        "homepage": null,
        "language": null
    });
    let counters = json!({
        "forks": 0,
        "forks_count": 0,
        "stargazers_count": 0,
        "watchers_count": 0,
        "watchers": 0,
        "size": 0,
        "default_branch": repo.default_branch,
        "open_issues": open_issues,
        "open_issues_count": open_issues,
        "is_template": false,
        "topics": [],
        "has_issues": true,
        "has_projects": false,
        "has_wiki": false,
        "has_pages": false,
        "has_downloads": false,
        "has_discussions": false,
        "archived": false,
        "disabled": false,
        "license": null,
        "pushed_at": time(repo.created_at_ms),
        "created_at": time(repo.created_at_ms),
        "updated_at": time(repo.created_at_ms),
        "network_count": 0,
        "subscribers_count": 0,
        "allow_forking": false,
        "web_commit_signoff_required": false
    });
    if let (Some(map), Value::Object(more)) = (value.as_object_mut(), counters) {
        map.extend(more);
    }
    // The hypermedia URL templates GitHub puts on every repository.
    let templates = [
        ("archive_url", "/{archive_format}{/ref}"),
        ("assignees_url", "/assignees{/user}"),
        ("blobs_url", "/git/blobs{/sha}"),
        ("branches_url", "/branches{/branch}"),
        ("collaborators_url", "/collaborators{/collaborator}"),
        ("comments_url", "/comments{/number}"),
        ("commits_url", "/commits{/sha}"),
        ("compare_url", "/compare/{base}...{head}"),
        ("contents_url", "/contents/{+path}"),
        ("contributors_url", "/contributors"),
        ("deployments_url", "/deployments"),
        ("downloads_url", "/downloads"),
        ("events_url", "/events"),
        ("forks_url", "/forks"),
        ("git_commits_url", "/git/commits{/sha}"),
        ("git_refs_url", "/git/refs{/sha}"),
        ("git_tags_url", "/git/tags{/sha}"),
        ("hooks_url", "/hooks"),
        ("issue_comment_url", "/issues/comments{/number}"),
        ("issue_events_url", "/issues/events{/number}"),
        ("issues_url", "/issues{/number}"),
        ("keys_url", "/keys{/key_id}"),
        ("labels_url", "/labels{/name}"),
        ("languages_url", "/languages"),
        ("merges_url", "/merges"),
        ("milestones_url", "/milestones{/number}"),
        (
            "notifications_url",
            "/notifications{?since,all,participating}",
        ),
        ("pulls_url", "/pulls{/number}"),
        ("releases_url", "/releases{/id}"),
        ("stargazers_url", "/stargazers"),
        ("statuses_url", "/statuses/{sha}"),
        ("subscribers_url", "/subscribers"),
        ("subscription_url", "/subscription"),
        ("tags_url", "/tags"),
        ("teams_url", "/teams"),
        ("trees_url", "/git/trees{/sha}"),
    ];
    for (field, suffix) in templates {
        value[field] = json!(format!("{api}{suffix}"));
    }
    value
}

fn label(urls: &Urls, repo: &Repo, name: &str) -> Value {
    let id = name
        .bytes()
        .fold(7_i64, |h, b| (h * 31 + i64::from(b)) % 1_000_000_007);
    json!({
        "id": id,
        "node_id": format!("LA_fake{id}"),
        "url": urls.api(&format!("/repos/{}/labels/{name}", repo.full_name())),
        "name": name,
        "description": null,
        "color": "ededed",
        "default": false
    })
}

/// The fields an issue and a pull request share in the issues API.
#[allow(clippy::too_many_arguments)]
fn issue_like(
    urls: &Urls,
    repo: &Repo,
    id: i64,
    node_id: &str,
    number: u64,
    title: &str,
    body: Option<&str>,
    author: &Actor,
    labels: &[String],
    open: bool,
    times: (i64, i64, Option<i64>),
) -> Value {
    let full = repo.full_name();
    let api = urls.api(&format!("/repos/{full}/issues/{number}"));
    let comments = repo
        .issue_comments
        .iter()
        .filter(|c| c.issue_number == number)
        .count();
    json!({
        "id": id,
        "node_id": node_id,
        "url": api,
        "repository_url": urls.api(&format!("/repos/{full}")),
        "labels_url": format!("{api}/labels{{/name}}"),
        "comments_url": format!("{api}/comments"),
        "events_url": format!("{api}/events"),
        "html_url": urls.web(&format!("/{full}/issues/{number}")),
        "number": number,
        "state": if open { "open" } else { "closed" },
        "title": title,
        "body": body,
        "user": user(urls, author),
        "labels": labels.iter().map(|l| label(urls, repo, l)).collect::<Vec<_>>(),
        "assignee": null,
        "assignees": [],
        "milestone": null,
        "locked": false,
        "active_lock_reason": null,
        "comments": comments,
        "created_at": time(times.0),
        "updated_at": time(times.1),
        "closed_at": opt_time(times.2),
        "author_association": "NONE",
        "timeline_url": format!("{api}/timeline")
    })
}

/// An issue as the issues API shows it.
pub fn issue(urls: &Urls, repo: &Repo, issue: &Issue) -> Value {
    let mut value = issue_like(
        urls,
        repo,
        issue.id,
        &issue.node_id,
        issue.number,
        &issue.title,
        issue.body.as_deref(),
        &issue.author,
        &issue.labels,
        issue.open,
        (issue.created_at_ms, issue.updated_at_ms, issue.closed_at_ms),
    );
    value["state_reason"] = json!(issue.state_reason);
    value
}

/// A pull request as the pulls API lists it (GitHub's `pull-request-simple`).
pub fn pull_simple(urls: &Urls, repo: &Repo, pull: &Pull) -> Value {
    let issue = pull_as_issue(urls, repo, pull);
    let full = repo.full_name();
    let n = pull.number;
    let api = |tail: &str| urls.api(&format!("/repos/{full}{tail}"));
    let mut short_repo = repository(urls, repo);
    let short = short_repo.as_object_mut().expect("an object");
    for only_in_full in ["network_count", "subscribers_count"] {
        short.remove(only_in_full);
    }
    let mut owner = owner(urls, &repo.owner, repo.id + 7_000_000);
    owner["type"] = json!("Organization");
    let branch = |name: &str, sha: &str| {
        json!({
            "label": format!("{}:{name}", repo.owner),
            "ref": name,
            "sha": sha,
            "repo": short_repo,
            "user": owner,
        })
    };
    let href = |url: String| json!({ "href": url });
    let url = api(&format!("/pulls/{n}"));
    let mut value = json!({
        "url": url,
        "diff_url": urls.web(&format!("/{full}/pull/{n}.diff")),
        "patch_url": urls.web(&format!("/{full}/pull/{n}.patch")),
        "issue_url": api(&format!("/issues/{n}")),
        "commits_url": api(&format!("/pulls/{n}/commits")),
        "review_comments_url": api(&format!("/pulls/{n}/comments")),
        "review_comment_url": api("/pulls/comments{/number}"),
        "statuses_url": api(&format!("/statuses/{}", pull.head_sha)),
        "merged_at": opt_time(pull.merged_at_ms),
        "merge_commit_sha": null,
        "requested_reviewers": [],
        "requested_teams": [],
        "head": branch(&pull.head_ref, &pull.head_sha),
        "base": branch(&repo.default_branch, &format!("{:040x}", repo.id)),
        "_links": {
            "self": href(url.clone()),
            "html": href(urls.web(&format!("/{full}/pull/{n}"))),
            "issue": href(api(&format!("/issues/{n}"))),
            "comments": href(api(&format!("/issues/{n}/comments"))),
            "review_comments": href(api(&format!("/pulls/{n}/comments"))),
            "review_comment": href(api("/pulls/comments{/number}")),
            "commits": href(api(&format!("/pulls/{n}/commits"))),
            "statuses": href(api(&format!("/statuses/{}", pull.head_sha))),
        },
        "auto_merge": null,
        "draft": false,
    });
    for key in [
        "id",
        "node_id",
        "html_url",
        "comments_url",
        "number",
        "state",
        "locked",
        "title",
        "user",
        "body",
        "labels",
        "milestone",
        "active_lock_reason",
        "created_at",
        "updated_at",
        "closed_at",
        "assignee",
        "assignees",
        "author_association",
    ] {
        value[key] = issue[key].clone();
    }
    value
}

/// A pull request as `GET /pulls/{n}` and webhooks show it (GitHub's `pull-request`).
pub fn pull(urls: &Urls, repo: &Repo, pull: &Pull) -> Value {
    let mut value = pull_simple(urls, repo, pull);
    let changed = &pull.changed_files;
    let review_comments: usize = pull.threads.iter().map(|t| t.comments.len()).sum();
    let comments = repo
        .issue_comments
        .iter()
        .filter(|c| c.issue_number == pull.number)
        .count();
    let extra = json!({
        "merged": pull.merged,
        "mergeable": null,
        "rebaseable": null,
        "mergeable_state": "unknown",
        "merged_by": null,
        "comments": comments,
        "review_comments": review_comments,
        "maintainer_can_modify": false,
        "commits": 1,
        "additions": changed.iter().map(|f| f.additions).sum::<u64>(),
        "deletions": changed.iter().map(|f| f.deletions).sum::<u64>(),
        "changed_files": changed.len(),
    });
    let object = value.as_object_mut().expect("an object");
    object.extend(extra.as_object().expect("an object").clone());
    value
}

/// A pull request as the issues API shows it (with its `pull_request` key).
pub fn pull_as_issue(urls: &Urls, repo: &Repo, pull: &Pull) -> Value {
    let full = repo.full_name();
    let closed_at = if pull.open {
        None
    } else {
        pull.merged_at_ms.or(Some(pull.updated_at_ms))
    };
    let mut value = issue_like(
        urls,
        repo,
        pull.id,
        &pull.node_id,
        pull.number,
        &pull.title,
        pull.body.as_deref(),
        &pull.author,
        &[],
        pull.open,
        (pull.created_at_ms, pull.updated_at_ms, closed_at),
    );
    value["html_url"] = json!(urls.web(&format!("/{full}/pull/{}", pull.number)));
    value["draft"] = json!(false);
    value["pull_request"] = json!({
        "url": urls.api(&format!("/repos/{full}/pulls/{}", pull.number)),
        "html_url": urls.web(&format!("/{full}/pull/{}", pull.number)),
        "diff_url": urls.web(&format!("/{full}/pull/{}.diff", pull.number)),
        "patch_url": urls.web(&format!("/{full}/pull/{}.patch", pull.number)),
        "merged_at": opt_time(pull.merged_at_ms),
    });
    value
}

fn reaction_rollup(urls: &Urls, repo: &Repo, comment: &IssueComment) -> Value {
    let count = |content: &str| {
        comment
            .reactions
            .iter()
            .filter(|r| r.content == content)
            .count()
    };
    json!({
        "url": urls.api(&format!("/repos/{}/issues/comments/{}/reactions", repo.full_name(), comment.id)),
        "total_count": comment.reactions.len(),
        "+1": count("+1"),
        "-1": count("-1"),
        "laugh": count("laugh"),
        "confused": count("confused"),
        "heart": count("heart"),
        "hooray": count("hooray"),
        "eyes": count("eyes"),
        "rocket": count("rocket")
    })
}

/// An issue (or PR conversation) comment.
pub fn issue_comment(urls: &Urls, repo: &Repo, comment: &IssueComment) -> Value {
    let full = repo.full_name();
    let is_pull = repo.pulls.contains_key(&comment.issue_number);
    let page = if is_pull { "pull" } else { "issues" };
    json!({
        "id": comment.id,
        "node_id": comment.node_id,
        "url": urls.api(&format!("/repos/{full}/issues/comments/{}", comment.id)),
        "html_url": urls.web(&format!("/{full}/{page}/{}#issuecomment-{}", comment.issue_number, comment.id)),
        "body": comment.body,
        "user": user(urls, &comment.author),
        "created_at": time(comment.created_at_ms),
        "updated_at": time(comment.updated_at_ms),
        "issue_url": urls.api(&format!("/repos/{full}/issues/{}", comment.issue_number)),
        "author_association": comment.author_association,
        "performed_via_github_app": null,
        "reactions": reaction_rollup(urls, repo, comment)
    })
}

pub fn reaction(urls: &Urls, reaction: &Reaction) -> Value {
    json!({
        "id": reaction.id,
        "node_id": reaction.node_id,
        "user": user(urls, &reaction.user),
        "content": reaction.content,
        "created_at": time(reaction.created_at_ms)
    })
}

/// The App as check runs and the manifest flow show it.
pub fn app(urls: &Urls, app: &App) -> Value {
    let mut owner = owner(urls, &app.owner, app.id + 9_000_000);
    // The App's owner object in GitHub's description has no `user_view_type`.
    if let Some(map) = owner.as_object_mut() {
        map.remove("user_view_type");
    }
    json!({
        "id": app.id,
        "slug": app.slug,
        "node_id": format!("A_fake{}", app.id),
        "client_id": format!("Iv1.fake{}", app.id),
        "owner": owner,
        "name": app.name,
        "description": null,
        "external_url": urls.web(&format!("/apps/{}", app.slug)),
        "html_url": urls.web(&format!("/apps/{}", app.slug)),
        "created_at": "2024-01-01T00:00:00Z",
        "updated_at": "2024-01-01T00:00:00Z",
        "permissions": {
            "metadata": "read",
            "contents": "read",
            "pull_requests": "read",
            "issues": "write",
            "checks": "write"
        },
        "events": [
            "check_run", "issue_comment", "issues", "pull_request", "pull_request_review",
            "pull_request_review_comment", "pull_request_review_thread", "push"
        ]
    })
}

pub fn check_run(urls: &Urls, repo: &Repo, run: &CheckRun, app_value: Option<Value>) -> Value {
    let full = repo.full_name();
    let api = urls.api(&format!("/repos/{full}/check-runs/{}", run.id));
    json!({
        "id": run.id,
        "head_sha": run.head_sha,
        "node_id": run.node_id,
        "external_id": run.external_id,
        "url": api,
        "html_url": urls.web(&format!("/{full}/runs/{}", run.id)),
        "details_url": run.details_url,
        "status": run.status,
        "conclusion": run.conclusion,
        "started_at": opt_time(run.started_at_ms),
        "completed_at": opt_time(run.completed_at_ms),
        "output": {
            "title": run.title,
            "summary": run.summary,
            "text": run.text,
            "annotations_count": run.annotations.len(),
            "annotations_url": format!("{api}/annotations")
        },
        "name": run.name,
        "check_suite": { "id": run.id + 5_000_000 },
        "app": app_value,
        "pull_requests": []
    })
}

/// The git blob sha of a text, as GitHub reports it for a file.
pub fn blob_sha(content: impl AsRef<[u8]>) -> String {
    let content = content.as_ref();
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {}\0", content.len()).as_bytes());
    hasher.update(content);
    hex::encode(hasher.finalize())
}

/// GitHub's base64 of file contents: wrapped with a newline every 60 characters.
fn wrapped_base64(content: &[u8]) -> String {
    let flat = base64::engine::general_purpose::STANDARD.encode(content);
    let mut out = String::with_capacity(flat.len() + flat.len() / BASE64_LINE + 1);
    for chunk in flat.as_bytes().chunks(BASE64_LINE) {
        out.push_str(std::str::from_utf8(chunk).unwrap_or_default());
        out.push('\n');
    }
    out
}

fn content_links(urls: &Urls, repo: &Repo, path: &str, sha: &str, kind: &str) -> Value {
    let full = repo.full_name();
    let self_url = urls.api(&format!(
        "/repos/{full}/contents/{path}?ref={}",
        repo.default_branch
    ));
    let git_url = urls.api(&format!(
        "/repos/{full}/git/{}/{sha}",
        if kind == "dir" { "trees" } else { "blobs" }
    ));
    let html_url = urls.web(&format!(
        "/{full}/{}/{}/{path}",
        if kind == "dir" { "tree" } else { "blob" },
        repo.default_branch
    ));
    json!({"self": self_url, "git": git_url, "html": html_url, "url": self_url, "git_url": git_url, "html_url": html_url})
}

/// A file of the contents API. Like GitHub, a file over 1 MB comes without its content
/// (`"encoding": "none"`, `"content": ""`).
pub fn file_content(urls: &Urls, repo: &Repo, path: &str, content: &[u8]) -> Value {
    let sha = blob_sha(content);
    let links = content_links(urls, repo, path, &sha, "file");
    let name = path.rsplit('/').next().unwrap_or(path);
    let (encoding, text) = if content.len() > MAX_CONTENT_BYTES {
        ("none", String::new())
    } else {
        ("base64", wrapped_base64(content))
    };
    json!({
        "type": "file",
        "encoding": encoding,
        "size": content.len(),
        "name": name,
        "path": path,
        "content": text,
        "sha": sha,
        "url": links["url"],
        "git_url": links["git_url"],
        "html_url": links["html_url"],
        "download_url": urls.web(&format!("/raw/{}/{}/{path}", repo.full_name(), repo.default_branch)),
        "_links": {"self": links["self"], "git": links["git"], "html": links["html"]}
    })
}

/// One entry of a directory listing of the contents API.
pub fn dir_entry(
    urls: &Urls,
    repo: &Repo,
    path: &str,
    kind: &str,
    size: usize,
    sha: &str,
) -> Value {
    let links = content_links(urls, repo, path, sha, kind);
    let name = path.rsplit('/').next().unwrap_or(path);
    let download = if kind == "file" {
        json!(urls.web(&format!(
            "/raw/{}/{}/{path}",
            repo.full_name(),
            repo.default_branch
        )))
    } else {
        Value::Null
    };
    json!({
        "type": kind,
        "size": size,
        "name": name,
        "path": path,
        "sha": sha,
        "url": links["url"],
        "git_url": links["git_url"],
        "html_url": links["html_url"],
        "download_url": download,
        "_links": {"self": links["self"], "git": links["git"], "html": links["html"]}
    })
}

/// One file of `GET /pulls/{n}/files`.
pub fn pull_file(urls: &Urls, repo: &Repo, pull: &Pull, file: &super::model::ChangedFile) -> Value {
    let full = repo.full_name();
    let sha = blob_sha(format!("{}:{}", pull.head_sha, file.filename));
    let mut value = json!({
        "sha": sha,
        "filename": file.filename,
        "status": file.status,
        "additions": file.additions,
        "deletions": file.deletions,
        "changes": file.additions + file.deletions,
        "blob_url": urls.web(&format!("/{full}/blob/{}/{}", pull.head_sha, file.filename)),
        "raw_url": urls.web(&format!("/{full}/raw/{}/{}", pull.head_sha, file.filename)),
        "contents_url": urls.api(&format!("/repos/{full}/contents/{}?ref={}", file.filename, pull.head_sha)),
    });
    if let Some(patch) = &file.patch {
        value["patch"] = json!(patch);
    }
    value
}

/// An installation of the App.
pub fn installation(urls: &Urls, app: &App, installation: &Installation, account_id: i64) -> Value {
    let mut account = owner(urls, &installation.account, account_id);
    // GitHub's description of `account` joins a user's fields and an enterprise's.
    if let Some(map) = account.as_object_mut() {
        map.remove("user_view_type");
        map.insert("type".to_string(), json!("Organization"));
        map.insert("name".to_string(), json!(installation.account));
        map.insert(
            "slug".to_string(),
            json!(installation.account.to_ascii_lowercase()),
        );
        map.insert("created_at".to_string(), json!("2024-01-01T00:00:00Z"));
        map.insert("updated_at".to_string(), json!("2024-01-01T00:00:00Z"));
    }
    json!({
        "id": installation.id,
        "account": account,
        "repository_selection": "selected",
        "access_tokens_url": urls.api(&format!("/app/installations/{}/access_tokens", installation.id)),
        "repositories_url": urls.api("/installation/repositories"),
        "html_url": urls.web(&format!("/organizations/{}/settings/installations/{}", installation.account, installation.id)),
        "app_id": app.id,
        "target_id": account_id,
        "target_type": "Organization",
        "permissions": {
            "metadata": "read",
            "contents": "read",
            "pull_requests": "read",
            "issues": "write",
            "checks": "write"
        },
        "events": [
            "check_run", "issue_comment", "issues", "pull_request", "pull_request_review",
            "pull_request_review_comment", "pull_request_review_thread", "push"
        ],
        "created_at": "2024-01-01T00:00:00Z",
        "updated_at": "2024-01-01T00:00:00Z",
        "single_file_name": null,
        "app_slug": app.slug,
        "suspended_by": null,
        "suspended_at": null
    })
}
