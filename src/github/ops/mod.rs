//! The façade's operations beyond the core in `client.rs`, as further `impl GitHub` blocks, one
//! file per kind of GitHub object. Each method's doc says whether it is retried and why.

pub mod app;
pub mod checks;
pub mod comments;
pub mod issues;
pub mod permission;
pub mod pulls;
pub mod user;

use anyhow::{Context, Result};
use http::Method;
use serde_json::Value;

use super::client::{As, GitHub};

impl GitHub {
    /// Every item of a `Link`-paginated list, the token on every page; `items_key` names the
    /// field holding the items when the answer is an object (`check_runs`) rather than a list.
    /// GETs: retried.
    pub(super) async fn all_pages(
        &self,
        who: As,
        first_url: &str,
        items_key: Option<&str>,
    ) -> Result<Vec<Value>> {
        let mut url = first_url.to_string();
        let mut items = Vec::new();
        loop {
            let reply = self.call(Method::GET, &url, who, None, true).await?;
            let mut page = reply.json()?;
            let list = match items_key {
                Some(key) => page[key].take(),
                None => page,
            };
            let Value::Array(list) = list else {
                anyhow::bail!("GitHub's answer to {url} is not a list");
            };
            items.extend(list);
            match reply.next_page() {
                Some(next) => url = next,
                None => return Ok(items),
            }
        }
    }
}

/// A string field of a JSON object, or an error naming it.
fn str_field<'a>(value: &'a Value, field: &str, what: &str) -> Result<&'a str> {
    value[field]
        .as_str()
        .with_context(|| format!("GitHub's {what} has no {field}"))
}

/// An integer field of a JSON object, or an error naming it.
fn i64_field(value: &Value, field: &str, what: &str) -> Result<i64> {
    value[field]
        .as_i64()
        .with_context(|| format!("GitHub's {what} has no {field}"))
}
