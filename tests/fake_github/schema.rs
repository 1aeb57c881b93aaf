//! GitHub's public GraphQL schema (`tests/fixtures/github/graphql-schema.graphql`), parsed once per
//! test binary. Shared by the fake's GraphQL endpoint and the schema test.

use std::path::Path;
use std::sync::OnceLock;

use apollo_compiler::Schema;
use apollo_compiler::validation::Valid;

/// The schema file, relative to the crate root.
const SCHEMA_PATH: &str = "tests/fixtures/github/graphql-schema.graphql";

/// The only defect of the published schema (@octokit/graphql-schema 15.26.1): two fields of
/// `EnterpriseOwnerInfo` are declared twice with the same type. Any other problem fails loudly.
const KNOWN_DEFECT: &str = "field of object type `EnterpriseOwnerInfo`";

/// The parsed schema; the first call parses it (about a second in a debug build).
pub fn github_schema() -> &'static Valid<Schema> {
    static SCHEMA: OnceLock<Valid<Schema>> = OnceLock::new();
    SCHEMA.get_or_init(load)
}

fn load() -> Valid<Schema> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SCHEMA_PATH);
    let sdl = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    match Schema::parse_and_validate(sdl, &path) {
        Ok(schema) => schema,
        Err(with_errors) => {
            let unexpected: Vec<String> = with_errors
                .errors
                .iter()
                .map(|d| d.to_json().message)
                .filter(|m| !(m.starts_with("duplicate definitions") && m.contains(KNOWN_DEFECT)))
                .collect();
            assert!(
                unexpected.is_empty(),
                "GitHub's schema has problems beyond the known duplicate fields:\n{}",
                unexpected.join("\n")
            );
            // The duplicates are identical; the parser kept the first of each.
            Valid::assume_valid(with_errors.partial)
        }
    }
}
