//! Every GraphQL document the bot sends (`src/github/graphql/*.graphql`) is valid against GitHub's
//! public schema (`tests/fixtures/github/graphql-schema.graphql`, see `tests/fixtures/NOTICE`),
//! stays within GitHub's page and node limits, and follows the folder's conventions: one
//! operation per file named after the file, shared fragments identical wherever they are copied.

#[path = "fake_github/limits.rs"]
mod limits;
#[path = "fake_github/schema.rs"]
mod schema;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use apollo_compiler::response::{JsonMap, JsonValue};
use apollo_compiler::validation::Valid;
use apollo_compiler::{ExecutableDocument, Schema};

fn schema() -> &'static Valid<Schema> {
    schema::github_schema()
}

fn documents() -> Vec<(PathBuf, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/github/graphql");
    let mut files: Vec<(PathBuf, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "graphql"))
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            (path, text)
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .graphql file in {}", dir.display());
    files
}

/// `backfill_pull_requests.graphql` → `BackfillPullRequests`.
fn operation_name_for(path: &Path) -> String {
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("file name");
    stem.split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
        })
        .collect()
}

/// Variables for a limit check: required variables without a default get a placeholder, Int ones
/// the worst case (a full page).
fn placeholder_variables(document: &ExecutableDocument) -> JsonMap {
    let mut map = JsonMap::new();
    for operation in document.operations.iter() {
        for var in &operation.variables {
            if var.default_value.is_some() || !var.ty.is_non_null() {
                continue;
            }
            let value = match var.ty.inner_named_type().as_str() {
                "Int" => JsonValue::from(limits::MAX_PAGE),
                _ => JsonValue::from("placeholder"),
            };
            map.insert(var.name.as_str(), value);
        }
    }
    map
}

#[test]
fn every_document_is_valid_against_githubs_schema_and_within_limits() {
    let schema = schema();
    let mut fragments: BTreeMap<String, (PathBuf, String)> = BTreeMap::new();
    for (path, text) in documents() {
        let document = ExecutableDocument::parse_and_validate(schema, text.as_str(), &path)
            .unwrap_or_else(|e| {
                panic!(
                    "{} is not valid against GitHub's schema:\n{e}",
                    path.display()
                )
            });

        let names: Vec<String> = document
            .operations
            .iter()
            .filter_map(|op| op.name.as_ref().map(|n| n.to_string()))
            .collect();
        assert_eq!(
            names,
            vec![operation_name_for(&path)],
            "{} must hold exactly one operation, named after the file",
            path.display()
        );

        let operation = document.operations.get(None).expect("one operation");
        let raw = placeholder_variables(&document);
        let variables = apollo_compiler::request::coerce_variable_values(schema, operation, &raw)
            .unwrap_or_else(|e| panic!("{}: variables: {}", path.display(), e.message()));
        let limits = limits::check(&document, operation, &variables)
            .unwrap_or_else(|e| panic!("{} breaks a GitHub limit: {}", path.display(), e.message));
        assert!(
            limits.node_count <= limits::MAX_NODES,
            "{}: {limits:?}",
            path.display()
        );

        for (name, fragment) in &document.fragments {
            let text = fragment.to_string();
            match fragments.get(name.as_str()) {
                Some((first_path, first_text)) => assert_eq!(
                    first_text,
                    &text,
                    "fragment {name} differs between {} and {}",
                    first_path.display(),
                    path.display()
                ),
                None => {
                    fragments.insert(name.to_string(), (path.clone(), text));
                }
            }
        }
    }
}

#[test]
fn the_backfill_page_costs_what_its_comment_says() {
    let schema = schema();
    let (path, text) = documents()
        .into_iter()
        .find(|(path, _)| path.ends_with("backfill_pull_requests.graphql"))
        .expect("backfill_pull_requests.graphql");
    let document = ExecutableDocument::parse_and_validate(schema, text, &path).expect("valid");
    let operation = document
        .operations
        .get(Some("BackfillPullRequests"))
        .expect("operation");
    let raw = placeholder_variables(&document);
    let variables = apollo_compiler::request::coerce_variable_values(schema, operation, &raw)
        .expect("variables");
    let limits = limits::check(&document, operation, &variables).expect("within limits");
    // 25 PRs + 25×50 threads + 25×50×50 thread comments + 25×50 reviews + 25×50 comments.
    assert_eq!(limits.node_count, 66_275);
    // 1 + 25 + 25×50 + 25 + 25 = 1,326 connection fetches → 13 points.
    assert_eq!(limits.cost, 13);
}

#[test]
fn a_field_github_does_not_have_fails_validation() {
    let schema = schema();
    let query = r#"
        query Bad($id: ID!) {
          node(id: $id) {
            ... on PullRequestReviewThread { isResolved severity }
          }
        }
    "#;
    let errors = ExecutableDocument::parse_and_validate(schema, query, "bad.graphql")
        .expect_err("`severity` is not a field of PullRequestReviewThread")
        .errors
        .to_string();
    assert!(errors.contains("severity"), "{errors}");
}

#[test]
fn a_page_over_100_breaks_githubs_limit() {
    let schema = schema();
    let query = r#"
        query Big($owner: String!, $name: String!) {
          repository(owner: $owner, name: $name) {
            pullRequests(first: 101) { nodes { number } }
          }
        }
    "#;
    let document =
        ExecutableDocument::parse_and_validate(schema, query, "big.graphql").expect("valid");
    let operation = document.operations.get(None).expect("operation");
    let raw = placeholder_variables(&document);
    let variables = apollo_compiler::request::coerce_variable_values(schema, operation, &raw)
        .expect("variables");
    let error = limits::check(&document, operation, &variables).expect_err("101 > 100");
    assert_eq!(error.kind, "EXCESSIVE_PAGINATION");
}
