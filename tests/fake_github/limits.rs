//! GitHub's static GraphQL limits, computed from a validated document before it runs: every
//! connection needs `first` or `last` (at most 100), the query may request at most 500,000 nodes,
//! and its rate-limit cost is the number of connection fetches divided by 100.
//!
//! The rules are GitHub's ("Rate limits and node limits for the GraphQL API"): the node count is
//! the sum over connections of the product of the `first`/`last` arguments on the path down to
//! them; the cost counts one request per fetch of each connection (the product of the parents'
//! page sizes), divided by 100 and rounded, at least 1. This file depends on apollo-compiler only,
//! so the schema test (`tests/graphql_schema.rs`) checks the bot's documents with the same code.

use apollo_compiler::ExecutableDocument;
use apollo_compiler::ast::Value;
use apollo_compiler::executable::{Field, Operation, Selection, SelectionSet};
use apollo_compiler::response::{JsonMap, JsonValue};

/// GitHub's largest page on any connection, in items.
pub const MAX_PAGE: i64 = 100;
/// GitHub's limit on the nodes one query may request.
pub const MAX_NODES: i64 = 500_000;
/// Connection fetches per rate-limit point.
const REQUESTS_PER_POINT: f64 = 100.0;

/// What GitHub computes before running a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The most nodes the query can return.
    pub node_count: i64,
    /// Rate-limit points the query costs.
    pub cost: i64,
}

/// A limit the query breaks, as GitHub words it: `(error type, message)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitError {
    pub kind: &'static str,
    pub message: String,
}

/// Computes node count and cost of `operation`, or the first limit it breaks.
/// `variables` are the request's coerced variables (defaults applied).
pub fn check(
    document: &ExecutableDocument,
    operation: &Operation,
    variables: &JsonMap,
) -> Result<Limits, LimitError> {
    let mut walk = Walk {
        document,
        variables,
        nodes: 0,
        requests: 0,
    };
    walk.selection_set(&operation.selection_set, 1)?;
    if walk.nodes > MAX_NODES {
        return Err(LimitError {
            kind: "MAX_NODE_LIMIT_EXCEEDED",
            message: format!(
                "This query requests up to {} possible nodes which exceeds the maximum limit of {}.",
                thousands(walk.nodes),
                thousands(MAX_NODES)
            ),
        });
    }
    let cost = ((walk.requests as f64) / REQUESTS_PER_POINT).round() as i64;
    Ok(Limits {
        node_count: walk.nodes,
        cost: cost.max(1),
    })
}

struct Walk<'a> {
    document: &'a ExecutableDocument,
    variables: &'a JsonMap,
    nodes: i64,
    requests: i64,
}

impl Walk<'_> {
    /// `fetches`: how many times this selection set is resolved (product of the parents' pages).
    fn selection_set(&mut self, set: &SelectionSet, fetches: i64) -> Result<(), LimitError> {
        for selection in &set.selections {
            match selection {
                Selection::Field(field) => self.field(field, fetches)?,
                Selection::InlineFragment(inline) => {
                    self.selection_set(&inline.selection_set, fetches)?
                }
                Selection::FragmentSpread(spread) => {
                    if let Some(fragment) = self.document.fragments.get(&spread.fragment_name) {
                        self.selection_set(&fragment.selection_set, fetches)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn field(&mut self, field: &Field, fetches: i64) -> Result<(), LimitError> {
        let type_name = field.definition.ty.inner_named_type().as_str();
        if !type_name.ends_with("Connection") {
            return self.selection_set(&field.selection_set, fetches);
        }
        let first = self.int_argument(field, "first");
        let last = self.int_argument(field, "last");
        let name = field.name.as_str();
        let page = match (first, last) {
            (None, None) => {
                return Err(LimitError {
                    kind: "MISSING_PAGINATION_BOUNDARIES",
                    message: format!(
                        "You must provide a `first` or `last` value to properly paginate the `{name}` connection."
                    ),
                });
            }
            (Some(first), _) if first > MAX_PAGE => {
                return Err(excessive(name, "first", first));
            }
            (_, Some(last)) if last > MAX_PAGE => {
                return Err(excessive(name, "last", last));
            }
            (first, last) => first.unwrap_or(0).max(last.unwrap_or(0)),
        };
        self.requests += fetches;
        let below = fetches.saturating_mul(page);
        self.nodes = self.nodes.saturating_add(below);
        self.selection_set(&field.selection_set, below)
    }

    fn int_argument(&self, field: &Field, name: &str) -> Option<i64> {
        let argument = field.arguments.iter().find(|a| a.name == name)?;
        match argument.value.as_ref() {
            Value::Int(i) => i.try_to_i32().ok().map(i64::from),
            Value::Variable(var) => match self.variables.get(var.as_str()) {
                Some(JsonValue::Number(n)) => n.as_i64(),
                _ => None,
            },
            _ => None,
        }
    }
}

fn excessive(connection: &str, argument: &str, value: i64) -> LimitError {
    LimitError {
        kind: "EXCESSIVE_PAGINATION",
        message: format!(
            "Requesting {value} records on the `{connection}` connection exceeds the `{argument}` limit of {MAX_PAGE} records."
        ),
    }
}

/// `1234567` → `"1,234,567"`, as GitHub writes counts in its messages.
fn thousands(n: i64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
