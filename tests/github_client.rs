//! The GitHub client façade against the fake GitHub over HTTP: App JWT and installation tokens
//! for real, token caching by installation, retries, rate limits, no duplicated creates, and
//! pagination that keeps the token on a non-github.com host.

mod common;
mod fake_github;

use std::sync::Arc;
use std::time::Duration;

use common::pause::Recorder;
use fake_github::{FakeGitHub, Fault, LoggedRequest, Target};
use gitlore::clock::ManualClock;
use gitlore::domain::Secret;
use gitlore::domain::{InstallationId, RepoName, UnixMs};
use gitlore::github::auth::AppKey;
use gitlore::github::client::{As, GitHub};
use gitlore::github::error::Error as GitHubError;
use gitlore::github::ops::checks::{CheckOutput, CheckRunFields};
use gitlore::github::ops::contents::FileContent;
use gitlore::github::ops::issues::NewIssue;
use gitlore::github::repo::RepoClient;
use gitlore::repo_config::{CONFIG_PATH, RepoConfig, Resolved as ResolvedConfig};
use gitlore::runner::fetch_config;

const APP_ID: i64 = 4242;
/// The REST path of acme/widgets, and of its issues.
const WIDGETS: &str = "/repos/acme/widgets";
const ISSUES: &str = "/repos/acme/widgets/issues";

struct Setup {
    gh: FakeGitHub,
    client: GitHub,
    clock: Arc<ManualClock>,
    pauses: Arc<Recorder>,
}

async fn setup() -> Setup {
    let gh = FakeGitHub::start().await;
    gh.with_test_app(APP_ID, "gitlore");
    gh.seed(|m| {
        m.add_installation(7, "acme", &["acme/widgets"]);
        m.add_installation(8, "other", &["other/thing"]);
    });
    let clock = Arc::new(ManualClock::new(UnixMs(gh.now_ms())));
    let pauses = Arc::new(Recorder::new(clock.clone()));
    let key = AppKey::new(APP_ID, &Secret::new(fake_github::test_private_key_pem())).unwrap();
    let client = GitHub::new(&gh.base_url(), key, clock.clone(), pauses.clone()).unwrap();
    Setup {
        gh,
        client,
        clock,
        pauses,
    }
}

fn widgets() -> RepoName {
    RepoName::parse("acme/widgets").unwrap()
}

impl Setup {
    /// acme/widgets as installation 7.
    fn widgets(&self) -> RepoClient<'_> {
        self.client.repo(InstallationId(7), &widgets())
    }

    /// The next `times` requests whose path starts with `path` answer with `fault`.
    fn fail(&self, method: &str, path: &str, fault: Fault, times: usize) {
        self.gh.inject(Target::rest(method, path), fault, times);
    }

    /// Moves the fake GitHub's clock and gitlore's together.
    fn advance(&self, by: Duration) {
        self.gh.advance(by);
        self.clock.advance(by);
    }

    /// How many installation tokens `installation` has been given.
    fn token_exchanges(&self, installation: i64) -> usize {
        let path = format!("/app/installations/{installation}/access_tokens");
        self.gh.count("POST", &path)
    }

    /// Sets the text of `path` in `repo`.
    fn put_file(&self, repo: &str, path: &str, text: &str) {
        self.gh
            .seed(|m| m.repo_mut(repo).files.insert(path.into(), text.into()));
    }

    /// Adds an issue to acme/widgets; its number.
    fn add_issue(&self) -> i64 {
        self.gh
            .seed(|m| m.add_issue("acme/widgets", "t", "b", "alice").number) as i64
    }

    /// Adds `count` issues labelled `label` to acme/widgets.
    fn add_labelled_issues(&self, count: u64, label: &str) {
        self.gh.seed(|m| {
            for n in 0..count {
                let author = m.actor("alice");
                let mut extra = m.new_issue(1000 + n, &format!("bulk {n}"), author);
                extra.labels.push(label.into());
                m.insert_issue("acme/widgets", extra);
            }
        });
    }

    /// Installation 9 sees acme/widgets and the org's acme/.github, with these config files.
    fn org_and_repo_config(&self, org: &str, repo: &str) {
        self.gh
            .seed(|m| m.add_installation(9, "acme", &["acme/widgets", "acme/.github"]));
        self.put_file("acme/.github", CONFIG_PATH, org);
        self.put_file("acme/widgets", CONFIG_PATH, repo);
    }

    /// Asks installation 7's GraphQL for its rate limit.
    async fn rate_limit(&self) -> serde_json::Value {
        let query = include_str!("../src/github/graphql/rate_limit.graphql");
        let variables = serde_json::json!({});
        let answer = self
            .client
            .graphql_as(As::Installation(InstallationId(7)), query, variables);
        answer.await.unwrap()
    }

    /// A second client, sharing the clock and pauses, whose API is at `url`.
    fn client_at(&self, url: &str) -> GitHub {
        let key = AppKey::new(APP_ID, &Secret::new(fake_github::test_private_key_pem())).unwrap();
        GitHub::new(url, key, self.clock.clone(), self.pauses.clone()).unwrap()
    }

    /// The repo config installation `installation` resolves for acme/widgets.
    async fn config(&self, installation: i64) -> Result<ResolvedConfig, GitHubError> {
        fetch_config::fetch(&self.client.repo(InstallationId(installation), &widgets())).await
    }
}

/// An issue labelled `label` that is found again by the `marker` in its `body`.
fn new_issue<'a>(label: &'a str, marker: &'a str, body: &'a str) -> NewIssue<'a> {
    NewIssue {
        title: "Review lessons",
        body,
        label,
        marker,
    }
}

/// A check run whose output is `summary` and nothing else.
fn check_run_summarised(summary: &str) -> CheckRunFields<'_> {
    let output = CheckOutput {
        title: "t",
        summary,
        text: None,
        annotations: Vec::new(),
    };
    CheckRunFields {
        output: Some(output),
        ..CheckRunFields::default()
    }
}

/// Asserts that `error` is worth retrying later and the thing asked for is not gone.
fn assert_transient(error: &GitHubError) {
    assert!(error.is_transient() && !error.is_gone(), "{error}");
}

/// Asserts that the thing asked for is gone, which no retry changes.
fn assert_gone(error: &GitHubError) {
    assert!(error.is_gone() && !error.is_transient(), "{error}");
}

/// Asserts that `error` is neither worth retrying nor a sign that the thing is gone.
fn assert_neither_transient_nor_gone(error: &GitHubError) {
    assert!(!error.is_transient() && !error.is_gone(), "{error}");
}

#[tokio::test]
async fn one_token_exchange_per_installation_until_it_expires() {
    let s = setup().await;
    for _ in 0..5 {
        assert_eq!(s.widgets().default_branch().await.unwrap(), "main");
    }
    assert_eq!(s.token_exchanges(7), 1);
    let other = RepoName::parse("other/thing").unwrap();
    s.client
        .repo(InstallationId(8), &other)
        .default_branch()
        .await
        .unwrap();
    let a = s
        .client
        .installation_token(InstallationId(7))
        .await
        .unwrap();
    let b = s
        .client
        .installation_token(InstallationId(8))
        .await
        .unwrap();
    let shared = a.expose() == b.expose();
    assert!(!shared, "two installations never share a token");
    // An hour later the token has expired: a new exchange.
    s.advance(Duration::from_secs(3600));
    s.widgets().default_branch().await.unwrap();
    assert_eq!(s.token_exchanges(7), 2);
}

#[tokio::test]
async fn a_502_is_retried_and_a_secondary_rate_limit_is_waited_out() {
    let s = setup().await;
    s.fail("GET", WIDGETS, Fault::ServerError(502), 1);
    assert_eq!(s.widgets().default_branch().await.unwrap(), "main");
    let limit = Fault::SecondaryRateLimit { retry_after_s: 2 };
    s.fail("GET", WIDGETS, limit, 1);
    assert_eq!(s.widgets().default_branch().await.unwrap(), "main");
    let waits = s.pauses.waits();
    assert_eq!(waits.len(), 2, "{waits:?}");
    let backoff = waits[0] >= Duration::from_millis(500);
    assert!(backoff, "backoff after the 502: {waits:?}");
    let retry_after = Duration::from_secs(2);
    assert_eq!(waits[1], retry_after, "Retry-After honoured exactly");
}

#[tokio::test]
async fn a_failing_create_is_not_duplicated() {
    let s = setup().await;
    s.fail("POST", ISSUES, Fault::ServerError(502), 2);
    let marker = "<!-- gitlore:findings -->";
    let issue = new_issue("gitlore", marker, "<!-- gitlore:findings -->\nhello");
    let created = s.widgets().create_issue_once(&issue).await.unwrap();
    let again = s.widgets().create_issue_once(&issue).await.unwrap();
    let found_again = created.number == again.number;
    assert!(found_again, "found again by its marker, not created twice");
    let issues = s.gh.inspect(|m| m.repo("acme/widgets").issues.len());
    assert_eq!(issues, 1);
}

#[tokio::test]
async fn pages_after_the_first_keep_the_token_on_another_host() {
    let s = setup().await;
    for _ in 0..3 {
        // Each call looks up (nothing has the marker) and creates one.
        let issue = new_issue("lore", "never", "b");
        s.widgets().create_issue_once(&issue).await.unwrap();
    }
    s.add_labelled_issues(230, "lore");
    s.gh.clear_log();
    let issues = s.widgets().issues_with_label("lore").await.unwrap();
    assert_eq!(issues.len(), 233);
    let requests = s.gh.requests();
    let pages: Vec<_> = requests.iter().filter(|r| r.method == "GET").collect();
    assert_eq!(pages.len(), 3, "100 per page");
    let authenticated = |r: &&LoggedRequest| r.status == 200 && r.installation_id == Some(7);
    let authenticated = pages.iter().all(authenticated);
    assert!(authenticated, "every page authenticated");
}

#[tokio::test]
async fn a_missing_file_is_none_and_an_existing_one_is_its_text() {
    let s = setup().await;
    let text = "[schedule]\nmin-new-comments = 5\n";
    s.put_file("acme/widgets", ".github/gitlore.toml", text);
    let content = s.widgets().file(".github/gitlore.toml", "main").await;
    let bytes = FileContent::Bytes(text.as_bytes().to_vec());
    assert_eq!(content.unwrap(), Some(bytes));
    assert_eq!(s.widgets().file("nope.toml", "main").await.unwrap(), None);
}

#[tokio::test]
async fn repo_config_merges_org_defaults() {
    let s = setup().await;
    let org = "[schedule]\nmin-new-comments = 5\ninterval-hours = 6\n";
    s.org_and_repo_config(org, "[schedule]\nmin-new-comments = 50\n");
    let resolved = s.config(9).await.unwrap();
    assert_eq!(resolved.problems, vec![]);
    assert_eq!(resolved.config.schedule.interval_hours, 6);
    assert_eq!(resolved.config.schedule.min_new_comments, 50);
    // Installation 7 cannot see acme/.github and the repo has no file: defaults, no problem.
    s.gh.seed(|m| m.repo_mut("acme/widgets").files.remove(CONFIG_PATH));
    let resolved = s.config(7).await.unwrap();
    assert_eq!(resolved.config, RepoConfig::default());
    assert_eq!(resolved.problems, vec![]);
}

#[tokio::test]
async fn a_broken_repo_config_is_reported_with_its_line_over_the_org_defaults() {
    let s = setup().await;
    let org = "[schedule]\nmin-new-comments = 5\n";
    s.org_and_repo_config(org, "[schedule]\n\nmin-new-comment = 50\n");
    let resolved = s.config(9).await.unwrap();
    let defaults_stand = resolved.config.schedule.min_new_comments == 5;
    assert!(defaults_stand, "the org defaults stand");
    let problem = &resolved.problems[0];
    let at = (problem.source.as_str(), problem.line);
    assert_eq!(at, ("acme/widgets:.github/gitlore.toml", Some(3)));
}

#[tokio::test]
async fn only_content_creating_requests_count_towards_the_per_minute_cap() {
    let s = setup().await;
    for _ in 0..120 {
        s.rate_limit().await;
    }
    let no_pause = s.pauses.waits().is_empty();
    assert!(no_pause, "GraphQL queries create nothing: no pause");
    for n in 0..81 {
        let marker = format!("<!-- gitlore:test {n} -->");
        let issue = new_issue("gitlore", &marker, &marker);
        s.widgets().create_issue_once(&issue).await.unwrap();
    }
    let waits = s.pauses.waits();
    assert_eq!(waits.len(), 1, "the 81st create waits: {waits:?}");
    let secs = waits[0].as_secs_f64();
    assert!(
        secs > 50.0 && secs <= 60.0,
        "the rest of the minute: {waits:?}"
    );
}

#[tokio::test]
async fn a_spent_graphql_limit_is_waited_out_until_its_reset() {
    let s = setup().await;
    let exhausted = Fault::PrimaryExhausted { reset_in_s: 30 };
    s.gh.inject(Target::graphql("RateLimit"), exhausted, 1);
    let data = s.rate_limit().await;
    assert!(data["rateLimit"]["remaining"].is_number(), "{data}");
    let waits = s.pauses.waits();
    assert_eq!(waits.len(), 1, "{waits:?}");
    let until_reset = Duration::from_secs(29)..=Duration::from_secs(31);
    assert!(until_reset.contains(&waits[0]), "{waits:?}");
}

#[tokio::test]
async fn a_page_linking_to_another_host_never_gets_the_token() {
    let s = setup().await;
    let foreign = FakeGitHub::start().await;
    // The configured host as user info in front of the foreign one.
    let user_info = format!("{}@", s.gh.origin());
    let disguised = foreign.base_url().replace("http://", &user_info);
    for next in [
        format!("{}/repos/acme/widgets/issues?page=2", foreign.base_url()),
        format!("{disguised}/repos/acme/widgets/issues?page=3"),
    ] {
        s.fail("GET", ISSUES, Fault::NextPageAt(next), 1);
        let listed = s.widgets().issues_with_label("lore").await;
        let error = format!("{:#}", listed.unwrap_err());
        assert!(error.contains("another host"), "{error}");
    }
    assert_eq!(foreign.requests().len(), 0, "{:?}", foreign.requests());
}

#[tokio::test]
async fn an_outage_or_a_rate_limit_is_transient() {
    let s = setup().await;
    let number = s.add_issue();
    // A 502 on every attempt: GitHub is down for now.
    s.fail("GET", ISSUES, Fault::ServerError(502), 4);
    assert_transient(&s.widgets().get_issue(number).await.unwrap_err());
    let retried = s.gh.count("GET", ISSUES);
    assert_eq!(retried, 4, "retried");
    // A spent primary limit that resets in an hour: longer than a request waits.
    let limit = Fault::PrimaryExhausted { reset_in_s: 3600 };
    s.fail("GET", ISSUES, limit, 1);
    assert_transient(&s.widgets().get_issue(number).await.unwrap_err());
}

#[tokio::test]
async fn no_answer_at_all_is_transient() {
    let s = setup().await;
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let nowhere = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let offline = s.client_at(&nowhere);
    let unreachable = offline
        .repo(InstallationId(7), &widgets())
        .default_branch()
        .await;
    let unreachable = unreachable.unwrap_err();
    assert!(unreachable.is_transient(), "{unreachable}");
    let said = unreachable.to_string().starts_with("cannot reach GitHub");
    assert!(said, "{unreachable}");
}

#[tokio::test]
async fn a_deleted_or_missing_issue_is_gone_and_not_transient() {
    let s = setup().await;
    let repo = s.widgets();
    let number = s.add_issue();
    let path = format!("/repos/acme/widgets/issues/{number}");
    s.fail("GET", &path, Fault::Gone, 1);
    assert_gone(&repo.get_issue(number).await.unwrap_err());
    assert_gone(&repo.get_issue(number + 100).await.unwrap_err());
    let again = repo.get_issue(number).await.unwrap().number;
    assert_eq!(again, number, "the 410 was injected once");
}

#[tokio::test]
async fn an_unreadable_answer_or_a_refused_request_is_neither_transient_nor_gone() {
    let s = setup().await;
    let repo = s.widgets();
    // An answer gitlore cannot read is a bug to fix, not an outage to wait out.
    s.fail("GET", WIDGETS, Fault::UnexpectedAnswer, 1);
    let unreadable = repo.default_branch().await.unwrap_err();
    let says = format!("{unreadable}").contains("missing field `default_branch`");
    assert!(says, "{unreadable}");
    assert_neither_transient_nor_gone(&unreadable);
    let refused = repo.collaborator_permission("../admin").await.unwrap_err();
    assert_neither_transient_nor_gone(&refused);
}

#[tokio::test]
async fn a_check_run_github_refuses_as_invalid_is_not_sent_again() {
    let s = setup().await;
    // A 422: GitHub refuses a summary over 65,535 characters, and would again.
    let summary = "x".repeat(70_000);
    let too_long = check_run_summarised(&summary);
    let head = "a".repeat(40);
    let invalid = s.widgets().create_check_run(&head, &too_long).await;
    let invalid = invalid.unwrap_err();
    assert!(invalid.to_string().contains("422"), "{invalid}");
    let sent = s.gh.count("POST", "/repos/acme/widgets/check-runs");
    assert_eq!(sent, 1, "not sent again");
    assert_neither_transient_nor_gone(&invalid);
}

#[tokio::test]
async fn the_repo_config_waits_out_an_outage_but_not_an_unreadable_answer() {
    let s = setup().await;
    s.fail("GET", WIDGETS, Fault::UnexpectedAnswer, 1);
    let config = s.config(7).await.unwrap_err();
    assert!(!config.is_transient(), "{config}");
    s.fail("GET", WIDGETS, Fault::ServerError(503), 4);
    let config = s.config(7).await.unwrap_err();
    assert!(config.is_transient(), "{config}");
}
