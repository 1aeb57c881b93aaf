//! GitHub's ids and numbers as types of their own, so that a repository id is never passed where
//! an installation id or a pull-request number is meant. Each is the integer GitHub gives,
//! serialised as that bare integer (job payloads and stored rows read as before).

use std::fmt;

use serde::{Deserialize, Serialize};

/// Declares a GitHub integer id: a transparent `i64` with a `Display` of the bare number.
macro_rules! github_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name(pub i64);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

github_id!(
    /// GitHub's repository id: stable across renames and transfers, and the store's key of a
    /// repository.
    RepoId
);

github_id!(
    /// The id of an installation of the GitHub App on an account.
    InstallationId
);

github_id!(
    /// The number of a pull request within its repository (`#12`), as URLs and the REST API name
    /// it.
    PrNumber
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_serialise_and_print_as_the_bare_number() {
        assert_eq!(serde_json::to_string(&PrNumber(12)).unwrap(), "12");
        assert_eq!(
            serde_json::from_str::<RepoId>("7").unwrap(),
            RepoId(7),
            "a number reads back"
        );
        assert_eq!(InstallationId(42).to_string(), "42");
    }
}
