//! The fake's in-memory GitHub: the App, installations, repositories with their files, pull
//! requests (review threads, review comments, reviews), issues (labels, pins), issue and PR
//! conversation comments, reactions, check runs and collaborator permissions.
//!
//! Tests seed and inspect it through `FakeGitHub::seed` / `FakeGitHub::inspect`; the REST and
//! GraphQL handlers read and change it. Ids come from one counter, so every `databaseId` is
//! unique; node ids look like GitHub's (`PR_kwDO…`) and are opaque to clients.
//! Bots are stored by their GraphQL login (`renovate`): REST shows them as `renovate[bot]`.

mod seed;

use std::collections::{BTreeMap, HashMap};

use base64::Engine as _;

/// The first id the counter hands out: far from 0 so that an id mixed up with a count or an
/// index shows.
const FIRST_ID: i64 = 1_000_001;

/// Who wrote something.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    /// The login as GraphQL shows it (bots without `[bot]`).
    pub login: String,
    pub bot: bool,
    pub id: i64,
}

impl Actor {
    /// The login as REST shows it (`renovate[bot]` for a bot).
    pub fn rest_login(&self) -> String {
        if self.bot {
            format!("{}[bot]", self.login)
        } else {
            self.login.clone()
        }
    }
}

/// The GitHub App the fake knows.
#[derive(Debug, Clone)]
pub struct App {
    pub id: i64,
    pub slug: String,
    pub name: String,
    pub owner: String,
    /// PEM of the App's RSA public key, to verify the JWTs it signs.
    pub public_key_pem: String,
}

/// An installation of the App on an account.
#[derive(Debug, Clone)]
pub struct Installation {
    pub id: i64,
    pub account: String,
    /// Lower-cased `owner/name` of every repository it covers.
    pub repos: Vec<String>,
    pub suspended: bool,
}

/// An installation access token the fake issued.
#[derive(Debug, Clone)]
pub struct Token {
    pub token: String,
    pub installation_id: i64,
    pub expires_at_ms: i64,
    /// Lower-cased `owner/name` of the repositories it may touch.
    pub repos: Vec<String>,
}

/// An app registration waiting for `POST /app-manifests/{code}/conversions`.
#[derive(Debug, Clone)]
pub struct ManifestConversion {
    pub app_id: i64,
    pub slug: String,
    pub name: String,
    pub owner: String,
    pub pem: String,
    pub public_key_pem: String,
    pub webhook_secret: String,
    pub client_id: String,
    pub client_secret: String,
}

/// A repository collaborator's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Admin,
    Maintain,
    Write,
    Triage,
    Read,
}

impl Role {
    /// The legacy `permission` field of the collaborator-permission API.
    pub fn permission(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Maintain | Role::Write => "write",
            Role::Triage | Role::Read => "read",
        }
    }

    /// The `role_name` field.
    pub fn role_name(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Maintain => "maintain",
            Role::Write => "write",
            Role::Triage => "triage",
            Role::Read => "read",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Repo {
    pub id: i64,
    pub node_id: String,
    pub owner: String,
    pub name: String,
    pub default_branch: String,
    /// Files on the default branch's head, by path.
    pub files: BTreeMap<String, String>,
    /// Files on the default branch's head that are not UTF-8 text (e.g. saved as UTF-16).
    pub binary_files: BTreeMap<String, Vec<u8>>,
    /// Pull requests by number (numbers shared with issues).
    pub pulls: BTreeMap<u64, Pull>,
    /// Issues by number.
    pub issues: BTreeMap<u64, Issue>,
    /// Conversation comments of issues and pull requests, in creation order.
    pub issue_comments: Vec<IssueComment>,
    pub check_runs: Vec<CheckRun>,
    /// By lower-cased login.
    pub collaborators: BTreeMap<String, Role>,
    pub created_at_ms: i64,
    /// Private repositories are shown only to collaborators (and installation tokens).
    pub private: bool,
}

impl Repo {
    pub fn full_name(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }

    /// The next free issue/PR number.
    pub fn next_number(&self) -> u64 {
        let last_pull = self.pulls.keys().next_back().copied().unwrap_or(0);
        let last_issue = self.issues.keys().next_back().copied().unwrap_or(0);
        last_pull.max(last_issue) + 1
    }
}

#[derive(Debug, Clone)]
pub struct ChangedFile {
    pub filename: String,
    /// added, removed, modified, renamed …
    pub status: String,
    pub additions: u64,
    pub deletions: u64,
    pub patch: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Pull {
    pub id: i64,
    pub node_id: String,
    pub number: u64,
    pub title: String,
    pub body: Option<String>,
    pub author: Actor,
    /// `true` while open.
    pub open: bool,
    pub merged: bool,
    pub merged_at_ms: Option<i64>,
    pub head_sha: String,
    pub head_ref: String,
    pub changed_files: Vec<ChangedFile>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    pub threads: Vec<Thread>,
    pub reviews: Vec<Review>,
}

/// An inline review thread and its comments (the first one starts the thread).
#[derive(Debug, Clone)]
pub struct Thread {
    pub node_id: String,
    pub path: String,
    pub line: Option<u64>,
    pub original_line: Option<u64>,
    pub resolved: bool,
    pub comments: Vec<ReviewComment>,
}

#[derive(Debug, Clone)]
pub struct ReviewComment {
    pub id: i64,
    pub node_id: String,
    pub author: Actor,
    pub author_association: String,
    pub body: String,
    pub diff_hunk: String,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    /// Database id of the comment this one replies to.
    pub reply_to: Option<i64>,
    /// Database id of the review it was submitted with.
    pub review_id: Option<i64>,
    pub reactions: Vec<Reaction>,
}

#[derive(Debug, Clone)]
pub struct Review {
    pub id: i64,
    pub node_id: String,
    pub author: Actor,
    pub author_association: String,
    /// APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING.
    pub state: String,
    pub body: String,
    pub submitted_at_ms: i64,
    pub updated_at_ms: i64,
}

#[derive(Debug, Clone)]
pub struct Issue {
    pub id: i64,
    pub node_id: String,
    pub number: u64,
    pub title: String,
    pub body: Option<String>,
    pub author: Actor,
    pub labels: Vec<String>,
    pub open: bool,
    pub state_reason: Option<String>,
    pub pinned: bool,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    pub closed_at_ms: Option<i64>,
}

/// A conversation comment on an issue or a pull request.
#[derive(Debug, Clone)]
pub struct IssueComment {
    pub id: i64,
    pub node_id: String,
    pub issue_number: u64,
    pub author: Actor,
    pub author_association: String,
    pub body: String,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    pub reactions: Vec<Reaction>,
}

#[derive(Debug, Clone)]
pub struct Reaction {
    pub id: i64,
    pub node_id: String,
    /// +1, -1, laugh, confused, heart, hooray, rocket, eyes.
    pub content: String,
    pub user: Actor,
    pub created_at_ms: i64,
}

#[derive(Debug, Clone)]
pub struct CheckRun {
    pub id: i64,
    pub node_id: String,
    pub head_sha: String,
    pub name: String,
    pub status: String,
    pub conclusion: Option<String>,
    pub started_at_ms: Option<i64>,
    pub completed_at_ms: Option<i64>,
    pub details_url: Option<String>,
    pub external_id: Option<String>,
    pub title: Option<String>,
    pub summary: Option<String>,
    pub text: Option<String>,
    /// Every annotation sent so far (GitHub appends annotations across updates).
    pub annotations: Vec<serde_json::Value>,
    pub actions: Vec<serde_json::Value>,
    /// The App that created it.
    pub app_id: Option<i64>,
}

/// Where a node id points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeRef {
    Repository(String),
    PullRequest(String, u64),
    Thread(String, u64, usize),
    ReviewComment(String, u64, usize, usize),
    Review(String, u64, usize),
    Issue(String, u64),
    IssueComment(String, i64),
}

/// The App's OAuth client (web application flow): its credentials, codes waiting to be
/// exchanged, and the user tokens issued, each naming its user's login.
#[derive(Debug, Default)]
pub struct OAuth {
    /// `(client_id, client_secret)`, once seeded.
    pub client: Option<(String, String)>,
    pub codes: HashMap<String, OAuthCode>,
    /// User token → login.
    pub user_tokens: HashMap<String, String>,
}

/// A one-time code the authorize page handed out.
#[derive(Debug, Clone)]
pub struct OAuthCode {
    pub login: String,
    pub redirect_uri: String,
    pub expires_at_ms: i64,
}

/// The whole fake GitHub.
#[derive(Debug)]
pub struct Model {
    pub app: Option<App>,
    pub installations: BTreeMap<i64, Installation>,
    /// By lower-cased `owner/name`.
    pub repos: BTreeMap<String, Repo>,
    pub tokens: HashMap<String, Token>,
    pub manifest_codes: HashMap<String, ManifestConversion>,
    /// The App's OAuth client and the sign-ins made with it (`/login/oauth/…`, user tokens).
    pub oauth: OAuth,
    /// Actors by lower-cased GraphQL login.
    pub actors: HashMap<String, Actor>,
    pub nodes: HashMap<String, NodeRef>,
    /// The App's webhook target and delivery attempts.
    pub hooks: super::hooks::Hooks,
    /// The fake's clock, in ms since the epoch.
    pub now_ms: i64,
    next_id: i64,
}

/// A base64 text whose payload reads like GitHub's new node ids.
fn node_id(prefix: &str, id: i64) -> String {
    let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("fake:{id}"));
    format!("{prefix}_kwDO{payload}")
}

/// `acme/Widgets` → `acme/widgets`: repository names are case-insensitive on GitHub.
pub fn repo_key(full_name: &str) -> String {
    full_name.to_ascii_lowercase()
}
