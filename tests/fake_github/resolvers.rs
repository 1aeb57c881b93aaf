//! GraphQL objects over the model: Query (`repository`, `node`, `rateLimit`), Mutation
//! (`pinIssue`, `unpinIssue`), Repository, PullRequest, PullRequestReviewThread,
//! PullRequestReviewComment, PullRequestReview, IssueComment, Issue, User/Bot, RateLimit, and
//! connections with `first`/`after` cursors, `pageInfo`, `edges` and `totalCount`.
//!
//! What a token may see is its installation's repositories: anything else is `NOT_FOUND`, as on
//! GitHub. Bots show their login without `[bot]`, as GitHub's GraphQL API does.

mod fields;

use std::cell::RefCell;

use apollo_compiler::ast::OperationType;
use apollo_compiler::resolvers::{FieldError, ObjectValue, ResolveInfo, ResolvedValue};
use apollo_compiler::response::{JsonMap, JsonValue};
use base64::Engine as _;

use super::limits::Limits;
use super::model::{Actor, Model, Pull};
use super::server::Urls;

/// How many issues GitHub lets a repository pin.
pub const MAX_PINNED_ISSUES: usize = 3;
/// The fake's message when a fourth issue is pinned (GitHub's exact wording is not published).
pub const PIN_LIMIT_MESSAGE: &str = "Repository already has 3 pinned issues";
/// Prefix of the fake's cursors (opaque to clients, like GitHub's).
const CURSOR_PREFIX: &str = "cursor:v2:";

/// The payer's rate-limit bucket before the request, for `rateLimit`.
#[derive(Debug, Clone, Copy)]
pub struct RateInfo {
    pub limit: i64,
    pub used: i64,
    pub reset_s: i64,
}

/// GitHub's error `type` for a message the resolvers produce.
pub fn error_type(message: &str) -> Option<&'static str> {
    if message.starts_with("Could not resolve to") {
        Some("NOT_FOUND")
    } else if message == PIN_LIMIT_MESSAGE {
        Some("UNPROCESSABLE")
    } else if message.ends_with("does not appear to be a valid cursor.") {
        Some("INVALID_CURSOR_ARGUMENTS")
    } else {
        None
    }
}

/// What one request's resolvers share.
pub struct Ctx<'m> {
    model: RefCell<&'m mut Model>,
    urls: &'m Urls,
    /// Lower-cased `owner/name` of the repositories the token opens.
    scope: Vec<String>,
    rate: RateInfo,
    limits: Limits,
}

impl<'m> Ctx<'m> {
    pub fn new(
        model: &'m mut Model,
        urls: &'m Urls,
        scope: Vec<String>,
        rate: RateInfo,
        limits: Limits,
    ) -> Ctx<'m> {
        Ctx {
            model: RefCell::new(model),
            urls,
            scope,
            rate,
            limits,
        }
    }

    fn in_scope(&self, repo_key: &str) -> bool {
        self.scope.iter().any(|k| k == repo_key)
    }
}

/// The root object of an operation.
pub fn root<'c, 'm>(ctx: &'c Ctx<'m>, operation: OperationType) -> Obj<'c, 'm> {
    let kind = match operation {
        OperationType::Mutation => Kind::Mutation,
        _ => Kind::Query,
    };
    Obj { ctx, kind }
}

#[derive(Debug, Clone)]
struct PageInfo {
    has_next: bool,
    has_previous: bool,
    start_cursor: Option<String>,
    end_cursor: Option<String>,
}

/// A GraphQL object, by what it points at in the model.
#[derive(Debug, Clone)]
enum Kind {
    Query,
    Mutation,
    Repository(String),
    PullRequest(String, u64),
    Thread(String, u64, usize),
    ReviewComment(String, u64, usize, usize),
    Review(String, u64, usize),
    Issue(String, u64),
    IssueComment(String, i64),
    Actor(Actor),
    RateLimit,
    PageInfo(PageInfo),
    Connection {
        type_name: &'static str,
        edge_name: &'static str,
        nodes: Vec<Kind>,
        cursors: Vec<String>,
        total: usize,
        page_info: PageInfo,
    },
    Edge {
        type_name: &'static str,
        cursor: String,
        node: Box<Kind>,
    },
    PinPayload(Option<Box<Kind>>, Option<String>),
}

/// An object bound to the request's context.
pub struct Obj<'c, 'm> {
    ctx: &'c Ctx<'m>,
    kind: Kind,
}

/// What a field resolves to, before it is bound to the context.
enum Out {
    Leaf(JsonValue),
    Object(Kind),
    Objects(Vec<Kind>),
}

fn leaf(value: impl Into<JsonValue>) -> Result<Out, FieldError> {
    Ok(Out::Leaf(value.into()))
}

fn null() -> Result<Out, FieldError> {
    Ok(Out::Leaf(JsonValue::Null))
}

fn opt_leaf<T: Into<JsonValue>>(value: Option<T>) -> Result<Out, FieldError> {
    Ok(Out::Leaf(value.map_or(JsonValue::Null, Into::into)))
}

fn err(message: impl Into<String>) -> FieldError {
    FieldError {
        message: message.into(),
    }
}

fn unmodelled(type_name: &str, field: &str) -> FieldError {
    err(format!(
        "the fake GitHub does not model `{type_name}.{field}`: add it to tests/fake_github/resolvers.rs"
    ))
}

fn encode_cursor(index: usize) -> String {
    base64::engine::general_purpose::STANDARD.encode(format!("{CURSOR_PREFIX}{index}"))
}

fn decode_cursor(cursor: &str) -> Option<usize> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(cursor)
        .ok()?;
    String::from_utf8(bytes)
        .ok()?
        .strip_prefix(CURSOR_PREFIX)?
        .parse()
        .ok()
}

fn arg_i64(args: &JsonMap, name: &str) -> Option<i64> {
    args.get(name).and_then(JsonValue::as_i64)
}

fn arg_str<'a>(args: &'a JsonMap, name: &str) -> Option<&'a str> {
    args.get(name).and_then(JsonValue::as_str)
}

/// One page of `nodes` as a connection, by `first` and `after` (GitHub's limits were checked
/// before execution).
fn connection(
    type_name: &'static str,
    edge_name: &'static str,
    nodes: Vec<Kind>,
    args: &JsonMap,
) -> Result<Out, FieldError> {
    if args.get("last").is_some_and(|v| !v.is_null())
        || args.get("before").is_some_and(|v| !v.is_null())
    {
        return Err(err("the fake GitHub pages with `first`/`after` only"));
    }
    let first = usize::try_from(arg_i64(args, "first").unwrap_or(0)).unwrap_or(0);
    let start = match arg_str(args, "after") {
        None => 0,
        Some(after) => match decode_cursor(after) {
            Some(index) => index + 1,
            None => {
                return Err(err(format!(
                    "`{after}` does not appear to be a valid cursor."
                )));
            }
        },
    };
    let total = nodes.len();
    let page: Vec<Kind> = nodes.into_iter().skip(start).take(first).collect();
    let cursors: Vec<String> = (start..start + page.len()).map(encode_cursor).collect();
    let page_info = PageInfo {
        has_next: start + page.len() < total,
        has_previous: start > 0,
        start_cursor: cursors.first().cloned(),
        end_cursor: cursors.last().cloned(),
    };
    Ok(Out::Object(Kind::Connection {
        type_name,
        edge_name,
        nodes: page,
        cursors,
        total,
        page_info,
    }))
}

fn pull_state(pull: &Pull) -> &'static str {
    if pull.merged {
        "MERGED"
    } else if pull.open {
        "OPEN"
    } else {
        "CLOSED"
    }
}

impl ObjectValue for Obj<'_, '_> {
    fn type_name(&self) -> &str {
        match &self.kind {
            Kind::Query => "Query",
            Kind::Mutation => "Mutation",
            Kind::Repository(_) => "Repository",
            Kind::PullRequest(..) => "PullRequest",
            Kind::Thread(..) => "PullRequestReviewThread",
            Kind::ReviewComment(..) => "PullRequestReviewComment",
            Kind::Review(..) => "PullRequestReview",
            Kind::Issue(..) => "Issue",
            Kind::IssueComment(..) => "IssueComment",
            Kind::Actor(actor) if actor.bot => "Bot",
            Kind::Actor(_) => "User",
            Kind::RateLimit => "RateLimit",
            Kind::PageInfo(_) => "PageInfo",
            Kind::Connection { type_name, .. } => type_name,
            Kind::Edge { type_name, .. } => type_name,
            Kind::PinPayload(..) => "PinIssuePayload",
        }
    }

    fn resolve_field<'a>(
        &'a self,
        info: &'a ResolveInfo<'a>,
    ) -> Result<ResolvedValue<'a>, FieldError> {
        let out = self.resolve(info.field_name(), info.arguments())?;
        let bind = |kind: Kind| Obj {
            ctx: self.ctx,
            kind,
        };
        Ok(match out {
            Out::Leaf(value) => ResolvedValue::Leaf(value),
            Out::Object(kind) => ResolvedValue::object(bind(kind)),
            Out::Objects(kinds) => ResolvedValue::list(
                kinds
                    .into_iter()
                    .map(move |k| ResolvedValue::object(bind(k))),
            ),
        })
    }
}

impl Obj<'_, '_> {
    fn resolve(&self, field: &str, args: &JsonMap) -> Result<Out, FieldError> {
        let type_name = self.type_name().to_string();
        match &self.kind {
            Kind::Query => self.query(field, args),
            Kind::Mutation => self.mutation(field, args),
            Kind::Repository(key) => self.repository(key, field, args),
            Kind::PullRequest(key, number) => self.pull_request(key, *number, field, args),
            Kind::Thread(key, number, t) => self.thread(key, *number, *t, field, args),
            Kind::ReviewComment(key, number, t, c) => {
                self.review_comment(key, *number, *t, *c, field)
            }
            Kind::Review(key, number, r) => self.review(key, *number, *r, field),
            Kind::Issue(key, number) => self.issue(key, *number, field),
            Kind::IssueComment(key, id) => self.issue_comment(key, *id, field),
            Kind::Actor(actor) => self.actor(actor, field),
            Kind::RateLimit => self.rate_limit(field),
            Kind::PageInfo(info) => match field {
                "hasNextPage" => leaf(info.has_next),
                "hasPreviousPage" => leaf(info.has_previous),
                "startCursor" => opt_leaf(info.start_cursor.clone()),
                "endCursor" => opt_leaf(info.end_cursor.clone()),
                _ => Err(unmodelled(&type_name, field)),
            },
            Kind::Connection {
                edge_name,
                nodes,
                cursors,
                total,
                page_info,
                ..
            } => match field {
                "nodes" => Ok(Out::Objects(nodes.clone())),
                "edges" => Ok(Out::Objects(
                    nodes
                        .iter()
                        .zip(cursors)
                        .map(|(node, cursor)| Kind::Edge {
                            type_name: edge_name,
                            cursor: cursor.clone(),
                            node: Box::new(node.clone()),
                        })
                        .collect(),
                )),
                "pageInfo" => Ok(Out::Object(Kind::PageInfo(page_info.clone()))),
                "totalCount" => leaf(*total as i64),
                _ => Err(unmodelled(&type_name, field)),
            },
            Kind::Edge { cursor, node, .. } => match field {
                "cursor" => leaf(cursor.clone()),
                "node" => Ok(Out::Object((**node).clone())),
                _ => Err(unmodelled(&type_name, field)),
            },
            Kind::PinPayload(issue, client_mutation_id) => match field {
                "issue" => match issue {
                    Some(kind) => Ok(Out::Object((**kind).clone())),
                    None => null(),
                },
                "clientMutationId" => opt_leaf(client_mutation_id.clone()),
                _ => Err(unmodelled(&type_name, field)),
            },
        }
    }
}
