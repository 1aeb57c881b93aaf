//! Checks a JSON answer against a response schema of GitHub's REST description
//! (`tests/fixtures/github/rest-openapi-fake.json`): required fields present, types and enums
//! right, nullability respected, and no field the description does not have.

use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;

fn description() -> &'static Value {
    static DESCRIPTION: OnceLock<Value> = OnceLock::new();
    DESCRIPTION.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/github/rest-openapi-fake.json");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        serde_json::from_str(&text).expect("the REST description is JSON")
    })
}

/// Panics with every mismatch between `value` and the schema of `method path` → `status`
/// (`path` as in the description: `/repos/{owner}/{repo}/issues`).
pub fn assert_conforms(method: &str, path: &str, status: u16, value: &Value) {
    let schema = description()
        .pointer(&format!(
            "/paths/{}/{}/responses/{status}/schema",
            path.replace('~', "~0").replace('/', "~1"),
            method.to_ascii_lowercase()
        ))
        .unwrap_or_else(|| panic!("no schema for {method} {path} → {status}"));
    let mut errors = Vec::new();
    check(schema, value, "$", &mut errors);
    assert!(
        errors.is_empty(),
        "{method} {path} → {status} does not match GitHub's description:\n{}",
        errors.join("\n")
    );
}

fn check(schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    if value.is_null() && schema.get("nullable").and_then(Value::as_bool) == Some(true) {
        return;
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        // Merge the parts' properties so that no part flags another's fields as unknown.
        let mut merged = serde_json::Map::new();
        let mut required = Vec::new();
        for part in all {
            if let Some(props) = part.get("properties").and_then(Value::as_object) {
                merged.extend(props.clone());
            }
            if let Some(req) = part.get("required").and_then(Value::as_array) {
                required.extend(req.clone());
            }
        }
        let combined =
            serde_json::json!({"type": "object", "properties": merged, "required": required});
        return check(&combined, value, at, errors);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alternatives) = schema.get(key).and_then(Value::as_array) {
            // A field that one alternative declares is not unknown to the others (GitHub's
            // `account` is "a user or an enterprise" and carries fields of both).
            let mut declared = serde_json::Map::new();
            for alt in alternatives {
                if let Some(props) = alt.get("properties").and_then(Value::as_object) {
                    for name in props.keys() {
                        declared.insert(name.clone(), serde_json::json!({}));
                    }
                }
            }
            let fits = alternatives.iter().any(|alt| {
                let mut widened = alt.clone();
                if let Some(props) = widened.get_mut("properties").and_then(Value::as_object_mut) {
                    for (name, any) in &declared {
                        props.entry(name.clone()).or_insert_with(|| any.clone());
                    }
                }
                let mut e = Vec::new();
                check(&widened, value, at, &mut e);
                e.is_empty()
            });
            if !fits {
                errors.push(format!("{at}: matches no alternative of {key}"));
            }
            return;
        }
    }
    let ty = schema.get("type").and_then(Value::as_str);
    match (ty, value) {
        (Some("object") | None, Value::Object(map))
            if schema.get("properties").is_some() || ty.is_some() =>
        {
            let props = schema.get("properties").and_then(Value::as_object);
            for req in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(name) = req.as_str()
                    && !map.contains_key(name)
                {
                    errors.push(format!("{at}: required field `{name}` missing"));
                }
            }
            let open = schema
                .get("additionalProperties")
                .is_some_and(|a| a != &Value::Bool(false));
            for (name, v) in map {
                match props.and_then(|p| p.get(name)) {
                    Some(sub) => check(sub, v, &format!("{at}.{name}"), errors),
                    None if open || props.is_none() => {}
                    None => errors.push(format!(
                        "{at}: field `{name}` is not in GitHub's description"
                    )),
                }
            }
        }
        (Some("array"), Value::Array(items)) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check(item_schema, item, &format!("{at}[{i}]"), errors);
                }
            }
        }
        (Some("string"), Value::String(s)) => {
            if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
                && !allowed.iter().any(|a| a.as_str() == Some(s))
            {
                errors.push(format!("{at}: {s:?} is not one of {allowed:?}"));
            }
        }
        (Some("integer"), Value::Number(n)) if n.is_i64() || n.is_u64() => {}
        (Some("number"), Value::Number(_)) => {}
        (Some("boolean"), Value::Bool(_)) => {}
        (None, _) => {}
        (Some(expected), other) => errors.push(format!("{at}: expected {expected}, got {other}")),
    }
}
