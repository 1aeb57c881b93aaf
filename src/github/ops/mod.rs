//! The façade's operations, one file per kind of GitHub object: those on one repository as
//! `impl RepoClient` blocks, the App's own (`app.rs`) and a signed-in person's own (`user.rs`)
//! as `impl GitHub` blocks. Requests and answers are typed structs; each method's doc says
//! whether it is retried and why.

pub mod app;
pub mod checks;
pub mod comments;
pub mod contents;
pub mod deliveries;
pub mod issues;
pub mod permission;
pub mod pulls;
pub mod user;

use serde::{Deserialize, Deserializer};

/// A field GitHub may send as `null`, read as its default (an issue's `body`, say).
fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Option::unwrap_or_default)
}

/// The App that made a comment or a check run, as GitHub names it.
#[derive(Debug, Deserialize)]
struct MadeBy {
    id: Option<i64>,
}
