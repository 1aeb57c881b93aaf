//! The GraphQL endpoint: authenticates the installation token, parses and validates the document
//! against GitHub's public schema (an unknown field is an error, as on GitHub), applies GitHub's
//! pagination and node limits, runs the operation over the model (`resolvers.rs`) and answers in
//! GitHub's shape (`{"data": …, "errors": [{"type", "message", "path", "locations"}]}`, HTTP 200).
//!
//! Any valid document whose fields the resolvers model is answered: the bot's documents in
//! `src/github/graphql/` are, and a field the fake does not model answers a GraphQL error naming it.

use apollo_compiler::ExecutableDocument;
use apollo_compiler::ast::{Definition, Document, OperationType};
use apollo_compiler::resolvers::Execution;
use apollo_compiler::response::{JsonMap, JsonValue};
use serde_json::{Value, json};

use super::auth;
use super::limits;
use super::model::Model;
use super::resolvers::{Ctx, RateInfo, root};
use super::schema::github_schema;
use super::server::{Reply, Urls};

/// GitHub's documentation link on GraphQL errors.
const GRAPHQL_DOCS: &str = "https://docs.github.com/graphql";
/// What apollo-compiler puts before a resolver's error message.
const RESOLVER_ERROR_PREFIX: &str = "resolver error: ";

/// The operation's name and whether it is a mutation, read without the schema (for the log and
/// fault targets, before anything else happens).
pub fn describe(body: &Value) -> (Option<String>, bool) {
    let Some(query) = body.get("query").and_then(Value::as_str) else {
        return (None, false);
    };
    let wanted = body.get("operationName").and_then(Value::as_str);
    let document = match Document::parse(query, "request.graphql") {
        Ok(document) => document,
        Err(with_errors) => with_errors.partial,
    };
    let operations: Vec<_> = document
        .definitions
        .iter()
        .filter_map(|d| match d {
            Definition::OperationDefinition(op) => Some(op),
            _ => None,
        })
        .collect();
    let chosen = match wanted {
        Some(name) => operations
            .iter()
            .find(|op| op.name.as_ref().is_some_and(|n| n == name)),
        None if operations.len() == 1 => operations.first(),
        None => None,
    };
    match chosen {
        Some(op) => (
            op.name.as_ref().map(|n| n.to_string()),
            op.operation_type == OperationType::Mutation,
        ),
        None => (wanted.map(str::to_string), false),
    }
}

fn errors(list: Vec<Value>) -> Reply {
    Reply::json(200, json!({ "errors": list }))
}

/// Answers one GraphQL request. `rate` is the payer's bucket before this request.
pub fn execute(
    model: &mut Model,
    urls: &Urls,
    body: Option<&Value>,
    token: Option<&str>,
    rate: RateInfo,
) -> Reply {
    let Some(token) = token else {
        return Reply::json(
            401,
            json!({"message": "This endpoint requires you to be authenticated.", "documentation_url": GRAPHQL_DOCS}),
        );
    };
    let Some(live) = auth::live_token(model, token) else {
        return Reply::json(
            401,
            json!({"message": "Bad credentials", "documentation_url": GRAPHQL_DOCS}),
        );
    };
    let scope = live.repos.clone();
    let Some(query) = body.and_then(|b| b.get("query")).and_then(Value::as_str) else {
        return errors(vec![
            json!({"message": "A query attribute must be specified and must be a string."}),
        ]);
    };
    let operation_name = body
        .and_then(|b| b.get("operationName"))
        .and_then(Value::as_str);
    let raw_variables: JsonMap = match body.and_then(|b| b.get("variables")) {
        None | Some(Value::Null) => JsonMap::new(),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| (k.as_str().into(), JsonValue::from(v.clone())))
            .collect(),
        Some(_) => {
            return errors(vec![json!({"message": "Variables are invalid JSON."})]);
        }
    };

    let schema = github_schema();
    let document = match ExecutableDocument::parse_and_validate(schema, query, "query.graphql") {
        Ok(document) => document,
        Err(with_errors) => {
            let list = with_errors
                .errors
                .iter()
                .map(|d| serde_json::to_value(d.to_json()).unwrap_or(Value::Null))
                .collect();
            return errors(list);
        }
    };
    let operation = match document.operations.get(operation_name) {
        Ok(operation) => operation,
        Err(e) => return errors(vec![json!({ "message": e.message().to_string() })]),
    };
    let variables =
        match apollo_compiler::request::coerce_variable_values(schema, operation, &raw_variables) {
            Ok(variables) => variables,
            Err(e) => return errors(vec![json!({"message": e.message().to_string()})]),
        };
    let limits = match limits::check(&document, operation, &variables) {
        Ok(limits) => limits,
        Err(e) => {
            return errors(vec![json!({"type": e.kind, "message": e.message})]);
        }
    };

    let ctx = Ctx::new(model, urls, scope, rate, limits.clone());
    let root = root(&ctx, operation.operation_type);
    let response = Execution::new(schema, &document)
        .operation(operation)
        .coerced_variable_values(&variables)
        .execute_sync(&root);
    let mut value = match response {
        Ok(response) => serde_json::to_value(&response).unwrap_or(Value::Null),
        Err(e) => json!({"errors": [{"message": e.message().to_string()}]}),
    };
    if let Some(list) = value.get_mut("errors").and_then(Value::as_array_mut) {
        for error in list {
            // apollo-compiler prefixes resolver errors; GitHub's messages have no prefix.
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .trim_start_matches(RESOLVER_ERROR_PREFIX)
                .to_string();
            if let Some(kind) = super::resolvers::error_type(&message) {
                error["type"] = json!(kind);
            }
            error["message"] = json!(message);
        }
    }
    Reply {
        cost: limits.cost,
        ..Reply::json(200, value)
    }
}
