//! The request log: every request the fake received, with the token it carried and the status
//! it got, so that tests assert on what the client did (writes, page fetches, GraphQL calls).

use serde_json::Value;

/// One request as the fake saw and answered it.
#[derive(Debug, Clone)]
pub struct LoggedRequest {
    /// `GET`, `POST`, …
    pub method: String,
    /// For REST, the path relative to the REST base (`/repos/acme/widgets/issues`); for GraphQL,
    /// `/graphql`; for anything else, the path as received.
    pub path: String,
    /// The raw query string (without `?`), empty when none.
    pub query: String,
    /// The token of the `Authorization` header (an installation token or a JWT), if any.
    pub token: Option<String>,
    /// The installation the token belongs to, when it is a token the fake issued.
    pub installation_id: Option<i64>,
    /// The JSON body, if any.
    pub body: Option<Value>,
    /// The status answered.
    pub status: u16,
    /// For GraphQL: the operation's name.
    pub graphql_operation: Option<String>,
    /// For GraphQL: whether the operation is a mutation.
    pub graphql_mutation: bool,
    /// The injected fault that answered, if one did (`Debug` of the fault).
    pub fault: Option<String>,
}

impl LoggedRequest {
    pub fn is_graphql(&self) -> bool {
        self.path == "/graphql"
    }

    /// A content write: a REST call other than GET/HEAD (the token exchange excepted: it writes
    /// nothing a user sees), or a GraphQL mutation.
    pub fn is_write(&self) -> bool {
        if self.is_graphql() {
            return self.graphql_mutation;
        }
        let token_exchange =
            self.path.starts_with("/app/installations/") && self.path.ends_with("/access_tokens");
        let sign_in = self.path.starts_with("/login/oauth/");
        !matches!(self.method.as_str(), "GET" | "HEAD") && !token_exchange && !sign_in
    }
}
