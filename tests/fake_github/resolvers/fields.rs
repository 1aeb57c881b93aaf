//! The fields of each GraphQL type the fake models: one method per type, reading the model
//! (the mutations write it). A field not listed answers a GraphQL error naming it.

use apollo_compiler::resolvers::FieldError;
use apollo_compiler::response::{JsonMap, JsonValue};

use super::super::json::time;
use super::super::model::{Actor, NodeRef, Pull};
use super::{
    Kind, MAX_PINNED_ISSUES, Obj, Out, PIN_LIMIT_MESSAGE, arg_i64, arg_str, connection, err, leaf,
    null, opt_leaf, pull_state, unmodelled,
};

impl Obj<'_, '_> {
    pub(super) fn query(&self, field: &str, args: &JsonMap) -> Result<Out, FieldError> {
        match field {
            "repository" => {
                let owner = arg_str(args, "owner").unwrap_or_default();
                let name = arg_str(args, "name").unwrap_or_default();
                let key = format!("{owner}/{name}").to_ascii_lowercase();
                let exists = self.ctx.model.borrow().repos.contains_key(&key);
                if exists && self.ctx.in_scope(&key) {
                    Ok(Out::Object(Kind::Repository(key)))
                } else {
                    Err(err(format!(
                        "Could not resolve to a Repository with the name '{owner}/{name}'."
                    )))
                }
            }
            "node" => {
                let id = arg_str(args, "id").unwrap_or_default();
                self.node(id)
            }
            "rateLimit" => Ok(Out::Object(Kind::RateLimit)),
            _ => Err(unmodelled("Query", field)),
        }
    }

    /// The object a node id points at, if the token may see it.
    pub(super) fn node(&self, id: &str) -> Result<Out, FieldError> {
        let not_found = || {
            err(format!(
                "Could not resolve to a node with the global id of '{id}'"
            ))
        };
        let model = self.ctx.model.borrow();
        let Some(node) = model.nodes.get(id) else {
            return Err(not_found());
        };
        let key = match node {
            NodeRef::Repository(k)
            | NodeRef::PullRequest(k, ..)
            | NodeRef::Thread(k, ..)
            | NodeRef::ReviewComment(k, ..)
            | NodeRef::Review(k, ..)
            | NodeRef::Issue(k, ..)
            | NodeRef::IssueComment(k, ..) => k,
        };
        if !self.ctx.in_scope(key) {
            return Err(not_found());
        }
        Ok(Out::Object(match node.clone() {
            NodeRef::Repository(k) => Kind::Repository(k),
            NodeRef::PullRequest(k, n) => Kind::PullRequest(k, n),
            NodeRef::Thread(k, n, t) => Kind::Thread(k, n, t),
            NodeRef::ReviewComment(k, n, t, c) => Kind::ReviewComment(k, n, t, c),
            NodeRef::Review(k, n, r) => Kind::Review(k, n, r),
            NodeRef::Issue(k, n) => Kind::Issue(k, n),
            NodeRef::IssueComment(k, id) => Kind::IssueComment(k, id),
        }))
    }

    pub(super) fn mutation(&self, field: &str, args: &JsonMap) -> Result<Out, FieldError> {
        let pin = match field {
            "pinIssue" => true,
            "unpinIssue" => false,
            _ => return Err(unmodelled("Mutation", field)),
        };
        let input = args.get("input").and_then(JsonValue::as_object);
        let issue_id = input
            .and_then(|i| i.get("issueId"))
            .and_then(JsonValue::as_str)
            .unwrap_or_default()
            .to_string();
        let client_mutation_id = input
            .and_then(|i| i.get("clientMutationId"))
            .and_then(JsonValue::as_str)
            .map(str::to_string);
        let Out::Object(Kind::Issue(key, number)) = self.node(&issue_id)? else {
            return Err(err(format!(
                "Could not resolve to a node with the global id of '{issue_id}'"
            )));
        };
        let mut model = self.ctx.model.borrow_mut();
        let pinned = model.pinned_count(&key);
        let now = model.now_ms;
        let Some(issue) = model
            .repos
            .get_mut(&key)
            .and_then(|r| r.issues.get_mut(&number))
        else {
            return Err(err(format!(
                "Could not resolve to a node with the global id of '{issue_id}'"
            )));
        };
        if pin && !issue.pinned && pinned >= MAX_PINNED_ISSUES {
            return Err(err(PIN_LIMIT_MESSAGE));
        }
        if issue.pinned != pin {
            issue.pinned = pin;
            issue.updated_at_ms = now;
        }
        Ok(Out::Object(Kind::PinPayload(
            Some(Box::new(Kind::Issue(key, number))),
            client_mutation_id,
        )))
    }

    pub(super) fn repository(
        &self,
        key: &str,
        field: &str,
        args: &JsonMap,
    ) -> Result<Out, FieldError> {
        let model = self.ctx.model.borrow();
        let repo = &model.repos[key];
        match field {
            "id" => leaf(repo.node_id.clone()),
            "databaseId" => leaf(repo.id),
            "name" => leaf(repo.name.clone()),
            "nameWithOwner" => leaf(repo.full_name()),
            "url" => leaf(self.ctx.urls.web(&format!("/{}", repo.full_name()))),
            "isPrivate" => leaf(true),
            "pullRequest" => {
                let number = arg_i64(args, "number")
                    .and_then(|n| u64::try_from(n).ok())
                    .unwrap_or(0);
                if repo.pulls.contains_key(&number) {
                    Ok(Out::Object(Kind::PullRequest(key.to_string(), number)))
                } else {
                    Err(err(format!(
                        "Could not resolve to a PullRequest with the number of {number}."
                    )))
                }
            }
            "issue" => {
                let number = arg_i64(args, "number")
                    .and_then(|n| u64::try_from(n).ok())
                    .unwrap_or(0);
                if repo.issues.contains_key(&number) {
                    Ok(Out::Object(Kind::Issue(key.to_string(), number)))
                } else {
                    Err(err(format!(
                        "Could not resolve to an Issue with the number of {number}."
                    )))
                }
            }
            "pullRequests" => {
                let states: Vec<String> = args
                    .get("states")
                    .and_then(JsonValue::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(JsonValue::as_str)
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default();
                let mut pulls: Vec<&Pull> = repo
                    .pulls
                    .values()
                    .filter(|p| states.is_empty() || states.iter().any(|s| s == pull_state(p)))
                    .collect();
                let order = args.get("orderBy").and_then(JsonValue::as_object);
                let order_field = order
                    .and_then(|o| o.get("field"))
                    .and_then(JsonValue::as_str);
                let descending = order
                    .and_then(|o| o.get("direction"))
                    .and_then(JsonValue::as_str)
                    == Some("DESC");
                match order_field {
                    Some("UPDATED_AT") => pulls.sort_by_key(|p| (p.updated_at_ms, p.number)),
                    Some("CREATED_AT") | None => pulls.sort_by_key(|p| (p.created_at_ms, p.number)),
                    Some(other) => {
                        return Err(err(format!(
                            "the fake GitHub cannot order pull requests by {other}"
                        )));
                    }
                }
                if descending {
                    pulls.reverse();
                }
                let nodes = pulls
                    .iter()
                    .map(|p| Kind::PullRequest(key.to_string(), p.number))
                    .collect();
                connection("PullRequestConnection", "PullRequestEdge", nodes, args)
            }
            "pinnedIssues" => Err(unmodelled("Repository", field)),
            _ => Err(unmodelled("Repository", field)),
        }
    }

    pub(super) fn pull_request(
        &self,
        key: &str,
        number: u64,
        field: &str,
        args: &JsonMap,
    ) -> Result<Out, FieldError> {
        let model = self.ctx.model.borrow();
        let repo = &model.repos[key];
        let pull = &repo.pulls[&number];
        let url = self
            .ctx
            .urls
            .web(&format!("/{}/pull/{number}", repo.full_name()));
        match field {
            "id" => leaf(pull.node_id.clone()),
            "databaseId" => leaf(pull.id),
            "number" => leaf(number as i64),
            "title" => leaf(pull.title.clone()),
            "body" => leaf(pull.body.clone().unwrap_or_default()),
            "url" | "permalink" => leaf(url),
            "state" => leaf(pull_state(pull)),
            "merged" => leaf(pull.merged),
            "closed" => leaf(!pull.open),
            "isDraft" => leaf(false),
            "mergedAt" => opt_leaf(pull.merged_at_ms.map(time)),
            "closedAt" => opt_leaf(if pull.open {
                None
            } else {
                Some(time(pull.merged_at_ms.unwrap_or(pull.updated_at_ms)))
            }),
            "createdAt" => leaf(time(pull.created_at_ms)),
            "updatedAt" => leaf(time(pull.updated_at_ms)),
            "headRefOid" => leaf(pull.head_sha.clone()),
            "headRefName" => leaf(pull.head_ref.clone()),
            "baseRefName" => leaf(repo.default_branch.clone()),
            "changedFiles" => leaf(pull.changed_files.len() as i64),
            "author" => Ok(Out::Object(Kind::Actor(pull.author.clone()))),
            "repository" => Ok(Out::Object(Kind::Repository(key.to_string()))),
            "reviewThreads" => {
                let nodes = (0..pull.threads.len())
                    .map(|t| Kind::Thread(key.to_string(), number, t))
                    .collect();
                connection(
                    "PullRequestReviewThreadConnection",
                    "PullRequestReviewThreadEdge",
                    nodes,
                    args,
                )
            }
            "reviews" => {
                let nodes = (0..pull.reviews.len())
                    .map(|r| Kind::Review(key.to_string(), number, r))
                    .collect();
                connection(
                    "PullRequestReviewConnection",
                    "PullRequestReviewEdge",
                    nodes,
                    args,
                )
            }
            "comments" => {
                let nodes = repo
                    .issue_comments
                    .iter()
                    .filter(|c| c.issue_number == number)
                    .map(|c| Kind::IssueComment(key.to_string(), c.id))
                    .collect();
                connection("IssueCommentConnection", "IssueCommentEdge", nodes, args)
            }
            _ => Err(unmodelled("PullRequest", field)),
        }
    }

    pub(super) fn thread(
        &self,
        key: &str,
        number: u64,
        t: usize,
        field: &str,
        args: &JsonMap,
    ) -> Result<Out, FieldError> {
        let model = self.ctx.model.borrow();
        let thread = &model.repos[key].pulls[&number].threads[t];
        match field {
            "id" => leaf(thread.node_id.clone()),
            "isResolved" => leaf(thread.resolved),
            "isCollapsed" => leaf(thread.resolved),
            "isOutdated" => leaf(thread.line.is_none()),
            "path" => leaf(thread.path.clone()),
            "line" => opt_leaf(thread.line.map(|l| l as i64)),
            "originalLine" => opt_leaf(thread.original_line.map(|l| l as i64)),
            "startLine" | "originalStartLine" | "startDiffSide" => null(),
            "diffSide" => leaf("RIGHT"),
            "subjectType" => leaf("LINE"),
            "pullRequest" => Ok(Out::Object(Kind::PullRequest(key.to_string(), number))),
            "repository" => Ok(Out::Object(Kind::Repository(key.to_string()))),
            "comments" => {
                let nodes = (0..thread.comments.len())
                    .map(|c| Kind::ReviewComment(key.to_string(), number, t, c))
                    .collect();
                connection(
                    "PullRequestReviewCommentConnection",
                    "PullRequestReviewCommentEdge",
                    nodes,
                    args,
                )
            }
            _ => Err(unmodelled("PullRequestReviewThread", field)),
        }
    }

    pub(super) fn review_comment(
        &self,
        key: &str,
        number: u64,
        t: usize,
        c: usize,
        field: &str,
    ) -> Result<Out, FieldError> {
        let model = self.ctx.model.borrow();
        let repo = &model.repos[key];
        let pull = &repo.pulls[&number];
        let thread = &pull.threads[t];
        let comment = &thread.comments[c];
        match field {
            "id" => leaf(comment.node_id.clone()),
            "databaseId" | "fullDatabaseId" => leaf(comment.id),
            "body" => leaf(comment.body.clone()),
            "path" => leaf(thread.path.clone()),
            "line" => opt_leaf(thread.line.map(|l| l as i64)),
            "originalLine" => opt_leaf(thread.original_line.map(|l| l as i64)),
            "diffHunk" => leaf(comment.diff_hunk.clone()),
            "createdAt" | "publishedAt" => leaf(time(comment.created_at_ms)),
            "updatedAt" => leaf(time(comment.updated_at_ms)),
            "url" => leaf(self.ctx.urls.web(&format!(
                "/{}/pull/{number}#discussion_r{}",
                repo.full_name(),
                comment.id
            ))),
            "author" => Ok(Out::Object(Kind::Actor(comment.author.clone()))),
            "authorAssociation" => leaf(comment.author_association.clone()),
            "isMinimized" => leaf(false),
            "outdated" => leaf(thread.line.is_none()),
            "replyTo" => match comment
                .reply_to
                .and_then(|id| thread.comments.iter().position(|x| x.id == id))
            {
                Some(index) => Ok(Out::Object(Kind::ReviewComment(
                    key.to_string(),
                    number,
                    t,
                    index,
                ))),
                None => null(),
            },
            "pullRequestReview" => match comment
                .review_id
                .and_then(|id| pull.reviews.iter().position(|r| r.id == id))
            {
                Some(index) => Ok(Out::Object(Kind::Review(key.to_string(), number, index))),
                None => null(),
            },
            "pullRequest" => Ok(Out::Object(Kind::PullRequest(key.to_string(), number))),
            _ => Err(unmodelled("PullRequestReviewComment", field)),
        }
    }

    pub(super) fn review(
        &self,
        key: &str,
        number: u64,
        r: usize,
        field: &str,
    ) -> Result<Out, FieldError> {
        let model = self.ctx.model.borrow();
        let repo = &model.repos[key];
        let review = &repo.pulls[&number].reviews[r];
        match field {
            "id" => leaf(review.node_id.clone()),
            "databaseId" | "fullDatabaseId" => leaf(review.id),
            "body" => leaf(review.body.clone()),
            "state" => leaf(review.state.clone()),
            "submittedAt" | "publishedAt" => leaf(time(review.submitted_at_ms)),
            "createdAt" => leaf(time(review.submitted_at_ms)),
            "updatedAt" => leaf(time(review.updated_at_ms)),
            "url" => leaf(self.ctx.urls.web(&format!(
                "/{}/pull/{number}#pullrequestreview-{}",
                repo.full_name(),
                review.id
            ))),
            "author" => Ok(Out::Object(Kind::Actor(review.author.clone()))),
            "authorAssociation" => leaf(review.author_association.clone()),
            "isMinimized" => leaf(false),
            "pullRequest" => Ok(Out::Object(Kind::PullRequest(key.to_string(), number))),
            _ => Err(unmodelled("PullRequestReview", field)),
        }
    }

    pub(super) fn issue(&self, key: &str, number: u64, field: &str) -> Result<Out, FieldError> {
        let model = self.ctx.model.borrow();
        let repo = &model.repos[key];
        let issue = &repo.issues[&number];
        match field {
            "id" => leaf(issue.node_id.clone()),
            "databaseId" | "fullDatabaseId" => leaf(issue.id),
            "number" => leaf(number as i64),
            "title" => leaf(issue.title.clone()),
            "body" => leaf(issue.body.clone().unwrap_or_default()),
            "url" => leaf(
                self.ctx
                    .urls
                    .web(&format!("/{}/issues/{number}", repo.full_name())),
            ),
            "state" => leaf(if issue.open { "OPEN" } else { "CLOSED" }),
            "closed" => leaf(!issue.open),
            "isPinned" => leaf(issue.pinned),
            "createdAt" => leaf(time(issue.created_at_ms)),
            "updatedAt" => leaf(time(issue.updated_at_ms)),
            "author" => Ok(Out::Object(Kind::Actor(issue.author.clone()))),
            "repository" => Ok(Out::Object(Kind::Repository(key.to_string()))),
            _ => Err(unmodelled("Issue", field)),
        }
    }

    pub(super) fn issue_comment(&self, key: &str, id: i64, field: &str) -> Result<Out, FieldError> {
        let model = self.ctx.model.borrow();
        let repo = &model.repos[key];
        let Some(comment) = repo.issue_comments.iter().find(|c| c.id == id) else {
            return null();
        };
        let page = if repo.pulls.contains_key(&comment.issue_number) {
            "pull"
        } else {
            "issues"
        };
        match field {
            "id" => leaf(comment.node_id.clone()),
            "databaseId" | "fullDatabaseId" => leaf(comment.id),
            "body" => leaf(comment.body.clone()),
            "createdAt" | "publishedAt" => leaf(time(comment.created_at_ms)),
            "updatedAt" => leaf(time(comment.updated_at_ms)),
            "url" => leaf(self.ctx.urls.web(&format!(
                "/{}/{page}/{}#issuecomment-{}",
                repo.full_name(),
                comment.issue_number,
                comment.id
            ))),
            "author" => Ok(Out::Object(Kind::Actor(comment.author.clone()))),
            "authorAssociation" => leaf(comment.author_association.clone()),
            "isMinimized" => leaf(false),
            _ => Err(unmodelled("IssueComment", field)),
        }
    }

    pub(super) fn actor(&self, actor: &Actor, field: &str) -> Result<Out, FieldError> {
        match field {
            "login" => leaf(actor.login.clone()),
            "id" => leaf(format!(
                "{}_fake{}",
                if actor.bot { "BOT" } else { "U" },
                actor.id
            )),
            "databaseId" => leaf(actor.id),
            "url" => leaf(self.ctx.urls.web(&format!("/{}", actor.rest_login()))),
            "avatarUrl" => leaf(format!("{}/avatars/u/{}", self.ctx.urls.origin, actor.id)),
            _ => Err(unmodelled(if actor.bot { "Bot" } else { "User" }, field)),
        }
    }

    pub(super) fn rate_limit(&self, field: &str) -> Result<Out, FieldError> {
        let rate = self.ctx.rate;
        let cost = self.ctx.limits.cost;
        match field {
            "cost" => leaf(cost),
            "limit" => leaf(rate.limit),
            "used" => leaf(rate.used + cost),
            "remaining" => leaf((rate.limit - rate.used - cost).max(0)),
            "resetAt" => leaf(time(rate.reset_s * 1000)),
            "nodeCount" => leaf(self.ctx.limits.node_count),
            _ => Err(unmodelled("RateLimit", field)),
        }
    }
}
