//! Webhook payload → domain event. Handlers never see raw JSON: [`parse`] reads the fields gitlore
//! uses into our own types and says plainly what it will ignore.

mod payload;

use chrono::DateTime;
use thiserror::Error;

use crate::domain::{
    Author, Comment, CommentKind, DELETED_ACCOUNT, InstallationId, PrNumber, PullRequest, Repo,
    RepoName,
};

/// A delivery that cannot be read. Retrying will not help: the delivery fails for good.
#[derive(Debug, Error)]
pub enum ParseError {
    #[error("the body is not valid JSON for a `{event}` event: {source}")]
    Json {
        event: String,
        source: serde_json::Error,
    },
    #[error("the `{event}.{action}` payload has no `{field}`")]
    Missing {
        event: String,
        action: String,
        field: &'static str,
    },
    #[error("`{value}` is not an RFC 3339 time (field `{field}`)")]
    Time { field: &'static str, value: String },
    #[error("`{0}` is not an owner/name repository name")]
    RepoName(String),
}

/// The repository an event happened in, and the installation it came through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// Absent on deliveries of repository webhooks (not through an App installation).
    pub installation_id: Option<InstallationId>,
    pub repo: Repo,
}

/// An installation as an `installation*` event describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installation {
    pub id: InstallationId,
    pub account_login: Option<String>,
    pub account_type: Option<String>,
}

/// What happened to an installation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstallationChange {
    /// Created, or new permissions accepted: register and backfill.
    Registered,
    Suspended,
    /// Unsuspended: register again and backfill what was missed.
    Unsuspended,
    /// Uninstalled: delete all of its data.
    Deleted,
}

/// What a delivery means to gitlore.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Ping,
    Installation {
        installation: Installation,
        change: InstallationChange,
        repos: Vec<Repo>,
    },
    ReposAdded {
        installation: Installation,
        repos: Vec<Repo>,
    },
    ReposRemoved {
        installation: Installation,
        repos: Vec<Repo>,
    },
    /// A comment created or edited (or a review submitted, edited or dismissed).
    CommentUpserted {
        origin: Origin,
        pr: PullRequest,
        comment: Comment,
        /// An edit wins over a create carrying the same `updated_at`.
        is_edit: bool,
        /// For edited conversation comments: the body before the edit.
        previous_body: Option<String>,
    },
    CommentDeleted {
        origin: Origin,
        pr: PullRequest,
        comment: Comment,
    },
    ThreadResolution {
        origin: Origin,
        pr: PullRequest,
        /// GitHub id of the thread's first comment.
        root_id: i64,
        node_id: Option<String>,
        resolved: bool,
    },
    PullRequestChanged {
        origin: Origin,
        pr: PullRequest,
        /// Opened, synchronize or reopened: the PR's check run must be (re)computed.
        wants_check_run: bool,
    },
    IssueEdited {
        origin: Origin,
        issue_number: i64,
        body: String,
        editor: String,
    },
    CheckRunAction {
        origin: Origin,
        check_run_id: i64,
        app_id: Option<i64>,
        head_sha: String,
        pr_numbers: Vec<PrNumber>,
        identifier: String,
        requester: String,
    },
    Push {
        origin: Origin,
        git_ref: String,
    },
    /// Acknowledged and stored, with no effect; the reason says why.
    Ignored(String),
}

impl Event {
    /// The installation the event came through, when it names one.
    pub fn installation_id(&self) -> Option<InstallationId> {
        match self {
            Event::Installation { installation, .. }
            | Event::ReposAdded { installation, .. }
            | Event::ReposRemoved { installation, .. } => Some(installation.id),
            Event::CommentUpserted { origin, .. }
            | Event::CommentDeleted { origin, .. }
            | Event::ThreadResolution { origin, .. }
            | Event::PullRequestChanged { origin, .. }
            | Event::IssueEdited { origin, .. }
            | Event::CheckRunAction { origin, .. }
            | Event::Push { origin, .. } => origin.installation_id,
            Event::Ping | Event::Ignored(_) => None,
        }
    }
}

/// Reads a delivery's body given its `X-GitHub-Event` name.
pub fn parse(event: &str, body: &[u8]) -> Result<Event, ParseError> {
    if !is_handled(event) {
        return Ok(Event::Ignored(format!("event `{event}` is not used")));
    }
    let payload: payload::Payload = match serde_json::from_slice(body) {
        Ok(payload) => payload,
        Err(source) => return unused_or_broken(event, body, source),
    };
    let action = payload.action.clone().unwrap_or_default();
    let mut reader = Reader {
        event,
        action: &action,
        payload,
    };
    reader.event()
}

/// A payload that did not read as a whole: fine if its action is one gitlore does not use (its
/// other fields may have any shape), an error otherwise.
fn unused_or_broken(
    event: &str,
    body: &[u8],
    source: serde_json::Error,
) -> Result<Event, ParseError> {
    // Not JSON at all: the full read's error says why.
    if let Ok(payload::ActionOnly { action }) = serde_json::from_slice(body) {
        let action = action.unwrap_or_default();
        if !is_handled_action(event, &action) {
            return Ok(Event::Ignored(format!(
                "action `{action}` of `{event}` is not used"
            )));
        }
    }
    Err(ParseError::Json {
        event: event.to_string(),
        source,
    })
}

/// Whether gitlore acts on this action of this event.
fn is_handled_action(event: &str, action: &str) -> bool {
    match event {
        "ping" | "push" => true,
        "installation" => matches!(
            action,
            "created" | "deleted" | "suspend" | "unsuspend" | "new_permissions_accepted"
        ),
        "installation_repositories" => matches!(action, "added" | "removed"),
        "pull_request_review_comment" | "issue_comment" => {
            matches!(action, "created" | "edited" | "deleted")
        }
        "pull_request_review" => matches!(action, "submitted" | "edited" | "dismissed"),
        "pull_request_review_thread" => matches!(action, "resolved" | "unresolved"),
        "pull_request" => matches!(action, "opened" | "synchronize" | "reopened" | "closed"),
        "issues" => action == "edited",
        "check_run" => action == "requested_action",
        _ => false,
    }
}

/// The events of behaviour §1's table (checked before parsing, so unused events cost nothing).
fn is_handled(event: &str) -> bool {
    matches!(
        event,
        "ping"
            | "installation"
            | "installation_repositories"
            | "pull_request_review_comment"
            | "pull_request_review"
            | "pull_request_review_thread"
            | "issue_comment"
            | "pull_request"
            | "issues"
            | "check_run"
            | "push"
    )
}

/// Turns one payload into one event, taking out the fields each event needs.
struct Reader<'a> {
    event: &'a str,
    action: &'a str,
    payload: payload::Payload,
}

impl Reader<'_> {
    fn event(&mut self) -> Result<Event, ParseError> {
        if !is_handled_action(self.event, self.action) {
            return Ok(Event::Ignored(format!(
                "action `{}` of `{}` is not used",
                self.action, self.event
            )));
        }
        match self.event {
            "ping" => Ok(Event::Ping),
            "installation" => self.installation(),
            "installation_repositories" => self.installation_repositories(),
            "pull_request_review_comment" => self.review_comment(),
            "pull_request_review" => self.review(),
            "pull_request_review_thread" => self.review_thread(),
            "issue_comment" => self.issue_comment(),
            "pull_request" => self.pull_request(),
            "issues" => self.issue_edited(),
            "check_run" => self.check_run_action(),
            _ => self.push(),
        }
    }

    fn installation(&mut self) -> Result<Event, ParseError> {
        let change = match self.action {
            "suspend" => InstallationChange::Suspended,
            "unsuspend" => InstallationChange::Unsuspended,
            "deleted" => InstallationChange::Deleted,
            _ => InstallationChange::Registered, // created, new_permissions_accepted
        };
        let installation = self.installation_info()?;
        let repos = repos(std::mem::take(&mut self.payload.repositories))?;
        Ok(Event::Installation {
            installation,
            change,
            repos,
        })
    }

    fn installation_repositories(&mut self) -> Result<Event, ParseError> {
        let installation = self.installation_info()?;
        let added = repos(std::mem::take(&mut self.payload.repositories_added))?;
        let removed = repos(std::mem::take(&mut self.payload.repositories_removed))?;
        Ok(if self.action == "added" {
            Event::ReposAdded {
                installation,
                repos: added,
            }
        } else {
            Event::ReposRemoved {
                installation,
                repos: removed,
            }
        })
    }

    fn review_comment(&mut self) -> Result<Event, ParseError> {
        let origin = self.origin()?;
        let pr = pull_request(self.take(|p| p.pull_request.take(), "pull_request")?)?;
        let raw = self.take(|p| p.comment.take(), "comment")?;
        let comment = Comment {
            kind: CommentKind::Inline,
            github_id: raw.id,
            node_id: raw.node_id,
            author: author(
                raw.user,
                raw.author_association,
                raw.performed_via_github_app,
            ),
            body: raw.body,
            path: raw.path,
            line: raw.line.or(raw.original_line),
            diff_hunk: raw.diff_hunk,
            in_reply_to: raw.in_reply_to_id,
            review_id: raw.pull_request_review_id,
            review_state: None,
            created_at: Some(time("comment.created_at", &raw.created_at)?),
            updated_at: time("comment.updated_at", &raw.updated_at)?,
            html_url: raw.html_url,
        };
        Ok(self.comment_event(origin, pr, comment, None))
    }

    fn review(&mut self) -> Result<Event, ParseError> {
        let origin = self.origin()?;
        let pr = pull_request(self.take(|p| p.pull_request.take(), "pull_request")?)?;
        let raw = self.take(|p| p.review.take(), "review")?;
        // Reviews carry no `updated_at`: the submission time orders versions, and an edit or a
        // dismissal wins a tie with the submission.
        let submitted_at = match raw.submitted_at.as_deref() {
            Some(at) => time("review.submitted_at", at)?,
            None => pr.updated_at,
        };
        let comment = Comment {
            node_id: raw.node_id,
            review_id: Some(raw.id),
            review_state: Some(raw.state.to_ascii_lowercase()),
            created_at: Some(submitted_at),
            html_url: raw.html_url,
            ..Comment::new(
                CommentKind::Review,
                raw.id,
                author(raw.user, raw.author_association, None),
                raw.body.unwrap_or_default(),
                submitted_at,
            )
        };
        Ok(self.comment_event(origin, pr, comment, None))
    }

    fn review_thread(&mut self) -> Result<Event, ParseError> {
        let origin = self.origin()?;
        let pr = pull_request(self.take(|p| p.pull_request.take(), "pull_request")?)?;
        let thread = self.take(|p| p.thread.take(), "thread")?;
        let root_id = thread
            .comments
            .iter()
            .find(|c| c.in_reply_to_id.is_none())
            .or_else(|| thread.comments.iter().min_by_key(|c| c.id))
            .map(|c| c.in_reply_to_id.unwrap_or(c.id))
            .ok_or_else(|| self.missing("thread.comments"))?;
        Ok(Event::ThreadResolution {
            origin,
            pr,
            root_id,
            node_id: thread.node_id,
            resolved: self.action == "resolved",
        })
    }

    fn issue_comment(&mut self) -> Result<Event, ParseError> {
        let issue = self.take(|p| p.issue.take(), "issue")?;
        let Some(link) = issue.pull_request else {
            return Ok(Event::Ignored(
                "comment on an issue, not a pull request".into(),
            ));
        };
        let origin = self.origin()?;
        let pr = PullRequest {
            number: PrNumber(issue.number),
            title: issue.title,
            state: issue.state,
            merged: link.merged_at.is_some(),
            head_sha: None,
            updated_at: time(
                "issue.updated_at",
                issue
                    .updated_at
                    .as_deref()
                    .ok_or_else(|| self.missing("issue.updated_at"))?,
            )?,
            author: issue.user.map(|user| user.login),
        };
        let raw = self.take(|p| p.comment.take(), "comment")?;
        let comment = Comment {
            node_id: raw.node_id,
            created_at: Some(time("comment.created_at", &raw.created_at)?),
            html_url: raw.html_url,
            ..Comment::new(
                CommentKind::Conversation,
                raw.id,
                author(
                    raw.user,
                    raw.author_association,
                    raw.performed_via_github_app,
                ),
                raw.body,
                time("comment.updated_at", &raw.updated_at)?,
            )
        };
        let previous_body = self
            .payload
            .changes
            .take()
            .and_then(|c| c.body)
            .map(|b| b.from);
        Ok(self.comment_event(origin, pr, comment, previous_body))
    }

    fn comment_event(
        &self,
        origin: Origin,
        pr: PullRequest,
        comment: Comment,
        previous_body: Option<String>,
    ) -> Event {
        match self.action {
            "deleted" => Event::CommentDeleted {
                origin,
                pr,
                comment,
            },
            action => Event::CommentUpserted {
                origin,
                pr,
                comment,
                is_edit: matches!(action, "edited" | "dismissed"),
                previous_body,
            },
        }
    }

    fn pull_request(&mut self) -> Result<Event, ParseError> {
        let origin = self.origin()?;
        let pr = pull_request(self.take(|p| p.pull_request.take(), "pull_request")?)?;
        Ok(Event::PullRequestChanged {
            origin,
            pr,
            wants_check_run: self.action != "closed",
        })
    }

    fn issue_edited(&mut self) -> Result<Event, ParseError> {
        let origin = self.origin()?;
        let issue = self.take(|p| p.issue.take(), "issue")?;
        let editor = self.take(|p| p.sender.take(), "sender")?;
        Ok(Event::IssueEdited {
            origin,
            issue_number: issue.number,
            body: issue.body.unwrap_or_default(),
            editor: editor.login,
        })
    }

    fn check_run_action(&mut self) -> Result<Event, ParseError> {
        let origin = self.origin()?;
        let run = self.take(|p| p.check_run.take(), "check_run")?;
        let action = self.take(|p| p.requested_action.take(), "requested_action")?;
        let requester = self.take(|p| p.sender.take(), "sender")?;
        Ok(Event::CheckRunAction {
            origin,
            check_run_id: run.id,
            app_id: run.app.map(|app| app.id),
            head_sha: run.head_sha,
            pr_numbers: run.pull_requests.iter().map(|pr| pr.number).collect(),
            identifier: action.identifier,
            requester: requester.login,
        })
    }

    fn push(&mut self) -> Result<Event, ParseError> {
        let origin = self.origin()?;
        let git_ref = self.take(|p| p.git_ref.take(), "ref")?;
        Ok(Event::Push { origin, git_ref })
    }

    fn origin(&mut self) -> Result<Origin, ParseError> {
        let installation_id = self.payload.installation.as_ref().map(|i| i.id);
        let repo = repo(self.take(|p| p.repository.take(), "repository")?)?;
        Ok(Origin {
            installation_id,
            repo,
        })
    }

    fn installation_info(&mut self) -> Result<Installation, ParseError> {
        let raw = self.take(|p| p.installation.take(), "installation")?;
        let (account_login, account_type) = match raw.account {
            Some(account) => (Some(account.login), Some(account.kind)),
            None => (None, None),
        };
        Ok(Installation {
            id: raw.id,
            account_login,
            account_type,
        })
    }

    fn take<T>(
        &mut self,
        field: impl FnOnce(&mut payload::Payload) -> Option<T>,
        name: &'static str,
    ) -> Result<T, ParseError> {
        field(&mut self.payload).ok_or_else(|| self.missing(name))
    }

    fn missing(&self, field: &'static str) -> ParseError {
        ParseError::Missing {
            event: self.event.to_string(),
            action: self.action.to_string(),
            field,
        }
    }
}

fn repos(raw: Vec<payload::Repository>) -> Result<Vec<Repo>, ParseError> {
    raw.into_iter().map(repo).collect()
}

fn repo(raw: payload::Repository) -> Result<Repo, ParseError> {
    let name = RepoName::parse(&raw.full_name).ok_or(ParseError::RepoName(raw.full_name))?;
    Ok(Repo {
        id: raw.id,
        name,
        default_branch: raw.default_branch,
        private: raw.private,
    })
}

/// A pull request as GitHub's REST API answers it (`GET /repos/{r}/pulls…`), which webhooks
/// show the same way.
pub fn pull_request_from_value(value: serde_json::Value) -> Result<PullRequest, ParseError> {
    let raw = serde_json::from_value(value).map_err(|source| ParseError::Json {
        event: "pull_request".into(),
        source,
    })?;
    pull_request(raw)
}

fn pull_request(raw: payload::PullRequest) -> Result<PullRequest, ParseError> {
    Ok(PullRequest {
        number: raw.number,
        title: raw.title,
        state: raw.state,
        merged: raw.merged.unwrap_or(raw.merged_at.is_some()),
        head_sha: Some(raw.head.sha),
        updated_at: time("pull_request.updated_at", &raw.updated_at)?,
        author: raw.user.map(|user| user.login),
    })
}

fn author(
    user: Option<payload::User>,
    association: Option<String>,
    via_app: Option<payload::AppRef>,
) -> Author {
    // A deleted account shows as `null`; GitHub displays it as "ghost".
    let user = user.unwrap_or(payload::User {
        login: DELETED_ACCOUNT.into(),
        kind: "User".into(),
    });
    Author {
        is_bot_account: user.kind == "Bot",
        login: user.login,
        association,
        via_app: via_app.map(|app| app.id),
    }
}

/// Unix seconds of an RFC 3339 time.
fn time(field: &'static str, value: &str) -> Result<i64, ParseError> {
    DateTime::parse_from_rfc3339(value)
        .map(|t| t.timestamp())
        .map_err(|_| ParseError::Time {
            field,
            value: value.to_string(),
        })
}
