//! Webhooks from the fake's own state: each builder reads the model as it is now and returns
//! the event GitHub would deliver for it (repository, installation, sender and the object, in
//! the shapes of the REST representations), so a test changes the fake and then delivers what
//! the fake says happened, never a hand-edited fixture. The `act_*` methods do both halves of
//! what a person does on github.com: change the state, return its webhook.

use serde_json::{Value, json};

use super::FakeGitHub;
use super::json::{self, time};
use super::model::{Actor, ChangedFile, Model, Pull, Repo, ReviewComment, Thread};
use super::server::{Urls, lock};

/// One delivery: the `X-GitHub-Event` name and the JSON body.
#[derive(Debug, Clone)]
pub struct Webhook {
    pub event: &'static str,
    pub payload: Value,
}

impl FakeGitHub {
    fn webhook(&self, f: impl FnOnce(&mut Model, &Urls) -> Webhook) -> Webhook {
        let mut model = lock(&self.shared.model);
        f(&mut model, &self.shared.urls)
    }

    /// `installation.{action}` for installation `id` with every repository it holds.
    pub fn installation_event(&self, action: &str, id: i64) -> Webhook {
        self.webhook(|m, urls| {
            let installation = &m.installations[&id];
            let repos: Vec<Value> = m
                .repos
                .values()
                .filter(|r| {
                    installation
                        .repos
                        .contains(&super::model::repo_key(&r.full_name()))
                })
                .map(short_repo)
                .collect();
            let account = json::user(
                urls,
                &Actor {
                    login: installation.account.clone(),
                    bot: false,
                    id: id + 7_000_000,
                },
            );
            Webhook {
                event: "installation",
                payload: json!({
                    "action": action,
                    "installation": { "id": id, "node_id": format!("I_{id}"), "account": account },
                    "repositories": repos,
                    "sender": account,
                }),
            }
        })
    }

    /// `pull_request.{action}` for pull request `number` of `repo` as it is now.
    pub fn pull_request_event(&self, action: &str, repo: &str, number: u64) -> Webhook {
        self.webhook(|m, urls| {
            let r = m.repo(repo);
            let pull = &r.pulls[&number];
            let mut payload = envelope(m, urls, r, action, &pull.author);
            payload["number"] = json!(number);
            payload["pull_request"] = json::pull(urls, r, pull);
            Webhook {
                event: "pull_request",
                payload,
            }
        })
    }

    /// `pull_request_review_comment.{action}` for review comment `id` of `repo`.
    pub fn review_comment_event(&self, action: &str, repo: &str, id: i64) -> Webhook {
        self.webhook(|m, urls| {
            let r = m.repo(repo);
            let (pull, thread, comment) = find_review_comment(r, id);
            let mut payload = envelope(m, urls, r, action, &comment.author);
            payload["pull_request"] = json::pull(urls, r, pull);
            payload["comment"] = review_comment_json(urls, r, pull, thread, comment);
            Webhook {
                event: "pull_request_review_comment",
                payload,
            }
        })
    }

    /// `pull_request_review.{action}` for the review with database id `id` of `repo`.
    pub fn review_event(&self, action: &str, repo: &str, id: i64) -> Webhook {
        self.webhook(|m, urls| {
            let r = m.repo(repo);
            let (pull, review) = r
                .pulls
                .values()
                .find_map(|p| p.reviews.iter().find(|v| v.id == id).map(|v| (p, v)))
                .unwrap_or_else(|| panic!("the fake has no review {id}"));
            let full = r.full_name();
            let mut payload = envelope(m, urls, r, action, &review.author);
            payload["pull_request"] = json::pull(urls, r, pull);
            payload["review"] = json!({
                "id": review.id,
                "node_id": review.node_id,
                "user": json::user(urls, &review.author),
                "body": review.body,
                "state": review.state.to_ascii_lowercase(),
                "submitted_at": time(review.submitted_at_ms),
                "author_association": review.author_association,
                "commit_id": pull.head_sha,
                "html_url": urls.web(&format!("/{full}/pull/{}#pullrequestreview-{}", pull.number, review.id)),
            });
            Webhook {
                event: "pull_request_review",
                payload,
            }
        })
    }

    /// `pull_request_review_thread.{action}` (`resolved` / `unresolved`) for the thread that
    /// review comment `root` starts.
    pub fn thread_event(&self, action: &str, repo: &str, root: i64) -> Webhook {
        self.webhook(|m, urls| {
            let r = m.repo(repo);
            let (pull, thread, comment) = find_review_comment(r, root);
            let mut payload = envelope(m, urls, r, action, &comment.author);
            payload["pull_request"] = json::pull(urls, r, pull);
            let comments: Vec<Value> = thread
                .comments
                .iter()
                .map(|c| review_comment_json(urls, r, pull, thread, c))
                .collect();
            payload["thread"] = json!({ "node_id": thread.node_id, "comments": comments });
            Webhook {
                event: "pull_request_review_thread",
                payload,
            }
        })
    }

    /// `issue_comment.{action}` for conversation comment `id` of `repo`.
    pub fn issue_comment_event(&self, action: &str, repo: &str, id: i64) -> Webhook {
        self.webhook(|m, urls| {
            let r = m.repo(repo);
            let comment = r
                .issue_comments
                .iter()
                .find(|c| c.id == id)
                .unwrap_or_else(|| panic!("the fake has no conversation comment {id}"));
            let mut payload = envelope(m, urls, r, action, &comment.author);
            payload["issue"] = issue_json(urls, r, comment.issue_number);
            payload["comment"] = json::issue_comment(urls, r, comment);
            Webhook {
                event: "issue_comment",
                payload,
            }
        })
    }

    /// `issues.edited` by `sender` for issue `number`, whose body was `previous` before.
    pub fn issue_edited_event(
        &self,
        repo: &str,
        number: u64,
        previous: &str,
        sender: &str,
    ) -> Webhook {
        self.webhook(|m, urls| {
            let sender = m.actor(sender);
            let r = m.repo(repo);
            let mut payload = envelope(m, urls, r, "edited", &sender);
            payload["issue"] = issue_json(urls, r, number);
            payload["changes"] = json!({ "body": { "from": previous } });
            Webhook {
                event: "issues",
                payload,
            }
        })
    }

    /// `check_run.requested_action` by `sender` pressing button `identifier` on the check run
    /// of commit `sha`.
    pub fn check_run_action_event(
        &self,
        repo: &str,
        sha: &str,
        identifier: &str,
        sender: &str,
    ) -> Webhook {
        self.webhook(|m, urls| {
            let sender = m.actor(sender);
            let r = m.repo(repo);
            let run = r
                .check_runs
                .iter()
                .find(|c| c.head_sha == sha)
                .unwrap_or_else(|| panic!("the fake has no check run on {sha}"));
            let app = m.app.as_ref().map(|a| json::app(urls, a));
            let mut check_run = json::check_run(urls, r, run, app);
            let pulls: Vec<Value> = r
                .pulls
                .values()
                .filter(|p| p.head_sha == sha)
                .map(|p| json!({ "number": p.number, "head": { "sha": p.head_sha } }))
                .collect();
            check_run["pull_requests"] = json!(pulls);
            let mut payload = envelope(m, urls, r, "requested_action", &sender);
            payload["check_run"] = check_run;
            payload["requested_action"] = json!({ "identifier": identifier });
            Webhook {
                event: "check_run",
                payload,
            }
        })
    }

    /// `push` of the default branch's head to `git_ref` (e.g. `refs/heads/main`).
    pub fn push_event(&self, repo: &str, git_ref: &str) -> Webhook {
        self.webhook(|m, urls| {
            let sender = m.actor("erin");
            let r = m.repo(repo);
            let mut payload = envelope(m, urls, r, "", &sender);
            let object = payload.as_object_mut().expect("an object");
            object.remove("action");
            payload["ref"] = json!(git_ref);
            payload["before"] = json!("0".repeat(40));
            payload["after"] = json!("a".repeat(40));
            Webhook {
                event: "push",
                payload,
            }
        })
    }

    /// `author` opens a pull request changing `files` on `repo`: returns its number, head
    /// commit and `pull_request.opened`.
    pub fn act_open_pull(
        &self,
        repo: &str,
        author: &str,
        files: &[&str],
    ) -> (u64, String, Webhook) {
        let (number, sha) = self.seed(|m| {
            let pull = m.add_open_pull(repo, "A change", author);
            for file in files {
                pull.changed_files.push(ChangedFile {
                    filename: file.to_string(),
                    status: "modified".into(),
                    additions: 3,
                    deletions: 1,
                    patch: None,
                });
            }
            (pull.number, pull.head_sha.clone())
        });
        (number, sha, self.pull_request_event("opened", repo, number))
    }

    /// A new commit is pushed to pull request `number`: returns the new head and
    /// `pull_request.synchronize`.
    pub fn act_push_to_pull(&self, repo: &str, number: u64) -> (String, Webhook) {
        let sha = self.seed(|m| {
            let now = m.now_ms;
            let id = m.next_id();
            let pull = m.pull_mut(repo, number);
            pull.head_sha = format!("{id:040x}");
            pull.updated_at_ms = now;
            pull.head_sha.clone()
        });
        (sha, self.pull_request_event("synchronize", repo, number))
    }

    /// `author` starts a review thread on `path`/`line` of pull request `number`: returns the
    /// comment's id and `pull_request_review_comment.created`.
    pub fn act_review_comment(
        &self,
        repo: &str,
        number: u64,
        author: &str,
        path: &str,
        line: u64,
        body: &str,
    ) -> (i64, Webhook) {
        let id = self.seed(|m| {
            let index = m.add_thread(repo, number, path, line, author, body);
            m.pull_mut(repo, number).threads[index].comments[0].id
        });
        (id, self.review_comment_event("created", repo, id))
    }

    /// `author` comments `body` on issue or pull request `number`: returns the comment's id
    /// and `issue_comment.created`.
    pub fn act_comment(&self, repo: &str, number: u64, author: &str, body: &str) -> (i64, Webhook) {
        let id = self.seed(|m| m.add_issue_comment(repo, number, author, body));
        (id, self.issue_comment_event("created", repo, id))
    }

    /// `editor` replaces issue `number`'s body with `body`: returns `issues.edited`.
    pub fn act_edit_issue(&self, repo: &str, number: u64, editor: &str, body: &str) -> Webhook {
        let previous = self.seed(|m| {
            let now = m.now_ms;
            let issue = m
                .repo_mut(repo)
                .issues
                .get_mut(&number)
                .unwrap_or_else(|| panic!("the fake has no issue {repo}#{number}"));
            issue.updated_at_ms = now;
            issue.body.replace(body.to_string()).unwrap_or_default()
        });
        self.issue_edited_event(repo, number, &previous, editor)
    }
}

impl Webhook {
    /// The same delivery with its comment's body and update time changed: a version of the
    /// comment newer (or older) than the one the fake serves.
    pub fn with_comment(mut self, body: &str, updated_at_ms: i64) -> Webhook {
        self.payload["comment"]["body"] = json!(body);
        self.payload["comment"]["updated_at"] = json!(time(updated_at_ms));
        self
    }
}

/// `action`, `repository`, `installation` (the one holding `repo`) and `sender`.
fn envelope(m: &Model, urls: &Urls, repo: &Repo, action: &str, sender: &Actor) -> Value {
    let key = super::model::repo_key(&repo.full_name());
    let installation = m
        .installations
        .values()
        .find(|i| i.repos.contains(&key))
        .map_or(
            Value::Null,
            |i| json!({ "id": i.id, "node_id": format!("I_{}", i.id) }),
        );
    json!({
        "action": action,
        "repository": json::repository(urls, repo),
        "installation": installation,
        "sender": json::user(urls, sender),
    })
}

/// The short repository object of `installation.repositories`.
fn short_repo(repo: &Repo) -> Value {
    json!({
        "id": repo.id,
        "node_id": repo.node_id,
        "name": repo.name,
        "full_name": repo.full_name(),
        "private": repo.private,
    })
}

/// Issue or pull request `number` as the issue of an `issue_comment` / `issues` event.
fn issue_json(urls: &Urls, repo: &Repo, number: u64) -> Value {
    if let Some(pull) = repo.pulls.get(&number) {
        return json::pull_as_issue(urls, repo, pull);
    }
    let issue = repo
        .issues
        .get(&number)
        .unwrap_or_else(|| panic!("the fake has no issue {}#{number}", repo.full_name()));
    json::issue(urls, repo, issue)
}

fn find_review_comment(repo: &Repo, id: i64) -> (&Pull, &Thread, &ReviewComment) {
    repo.pulls
        .values()
        .flat_map(|p| p.threads.iter().map(move |t| (p, t)))
        .find_map(|(p, t)| t.comments.iter().find(|c| c.id == id).map(|c| (p, t, c)))
        .unwrap_or_else(|| panic!("the fake has no review comment {id}"))
}

/// An inline review comment as `pull_request_review_comment` shows it.
fn review_comment_json(
    urls: &Urls,
    repo: &Repo,
    pull: &Pull,
    thread: &Thread,
    comment: &ReviewComment,
) -> Value {
    let full = repo.full_name();
    json!({
        "id": comment.id,
        "node_id": comment.node_id,
        "url": urls.api(&format!("/repos/{full}/pulls/comments/{}", comment.id)),
        "html_url": urls.web(&format!("/{full}/pull/{}#discussion_r{}", pull.number, comment.id)),
        "pull_request_url": urls.api(&format!("/repos/{full}/pulls/{}", pull.number)),
        "pull_request_review_id": comment.review_id,
        "user": json::user(urls, &comment.author),
        "body": comment.body,
        "path": thread.path,
        "line": thread.line,
        "original_line": thread.original_line,
        "diff_hunk": comment.diff_hunk,
        "commit_id": pull.head_sha,
        "in_reply_to_id": comment.reply_to,
        "author_association": comment.author_association,
        "created_at": time(comment.created_at_ms),
        "updated_at": time(comment.updated_at_ms),
    })
}
