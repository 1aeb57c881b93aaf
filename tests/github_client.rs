//! The GitHub client façade against the fake GitHub over HTTP: App JWT and installation tokens
//! for real, token caching by installation, retries, rate limits, no duplicated creates, and
//! pagination that keeps the token on a non-github.com host.

mod common;
mod fake_github;

use std::sync::Arc;
use std::time::Duration;

use common::pause::Recorder;
use fake_github::{FakeGitHub, Fault, Target};
use gitlore::clock::ManualClock;
use gitlore::domain::RepoName;
use gitlore::domain::Secret;
use gitlore::github::auth::AppKey;
use gitlore::github::client::{As, GitHub};
use gitlore::github::ops::checks::{CheckOutput, CheckRunFields};
use gitlore::github::ops::contents::FileContent;
use gitlore::github::ops::issues::NewIssue;

const APP_ID: i64 = 4242;

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
    let clock = Arc::new(ManualClock::new(gh.now_ms()));
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

#[tokio::test]
async fn one_token_exchange_per_installation_until_it_expires() {
    let s = setup().await;
    for _ in 0..5 {
        assert_eq!(
            s.client.repo(7, &widgets()).default_branch().await.unwrap(),
            "main"
        );
    }
    assert_eq!(s.gh.count("POST", "/app/installations/7/access_tokens"), 1);
    let other = RepoName::parse("other/thing").unwrap();
    s.client.repo(8, &other).default_branch().await.unwrap();
    let (a, b) = (
        s.client.installation_token(7).await.unwrap(),
        s.client.installation_token(8).await.unwrap(),
    );
    assert_ne!(
        a.expose(),
        b.expose(),
        "two installations never share a token"
    );
    // An hour later the token has expired: a new exchange.
    s.gh.advance(Duration::from_secs(3600));
    s.clock.advance_ms(3_600_000);
    s.client.repo(7, &widgets()).default_branch().await.unwrap();
    assert_eq!(s.gh.count("POST", "/app/installations/7/access_tokens"), 2);
}

#[tokio::test]
async fn a_502_is_retried_and_a_secondary_rate_limit_is_waited_out() {
    let s = setup().await;
    s.gh.inject(
        Target::rest("GET", "/repos/acme/widgets"),
        Fault::ServerError(502),
        1,
    );
    assert_eq!(
        s.client.repo(7, &widgets()).default_branch().await.unwrap(),
        "main"
    );
    s.gh.inject(
        Target::rest("GET", "/repos/acme/widgets"),
        Fault::SecondaryRateLimit { retry_after_s: 2 },
        1,
    );
    assert_eq!(
        s.client.repo(7, &widgets()).default_branch().await.unwrap(),
        "main"
    );
    let waits = s.pauses.waits();
    assert_eq!(waits.len(), 2, "{waits:?}");
    assert!(
        waits[0] >= Duration::from_millis(500),
        "backoff after the 502: {waits:?}"
    );
    assert_eq!(
        waits[1],
        Duration::from_secs(2),
        "Retry-After honoured exactly"
    );
}

#[tokio::test]
async fn a_failing_create_is_not_duplicated() {
    let s = setup().await;
    s.gh.inject(
        Target::rest("POST", "/repos/acme/widgets/issues"),
        Fault::ServerError(502),
        2,
    );
    let issue = NewIssue {
        title: "Review lessons",
        body: "<!-- gitlore:findings -->\nhello",
        label: "gitlore",
        marker: "<!-- gitlore:findings -->",
    };
    let created = s
        .client
        .repo(7, &widgets())
        .create_issue_once(&issue)
        .await
        .unwrap();
    let again = s
        .client
        .repo(7, &widgets())
        .create_issue_once(&issue)
        .await
        .unwrap();
    assert_eq!(
        created.number, again.number,
        "found again by its marker, not created twice"
    );
    let issues = s.gh.inspect(|m| m.repo("acme/widgets").issues.len());
    assert_eq!(issues, 1);
}

#[tokio::test]
async fn pages_after_the_first_keep_the_token_on_another_host() {
    let s = setup().await;
    let issue = NewIssue {
        title: "t",
        body: "b",
        label: "lore",
        marker: "never",
    };
    for _ in 0..3 {
        // Each call looks up (nothing has the marker) and creates one.
        s.client
            .repo(7, &widgets())
            .create_issue_once(&issue)
            .await
            .unwrap();
    }
    s.gh.seed(|m| {
        for n in 0..230 {
            let author = m.actor("alice");
            let mut extra = m.new_issue(1000 + n, &format!("bulk {n}"), author);
            extra.labels.push("lore".into());
            m.insert_issue("acme/widgets", extra);
        }
    });
    s.gh.clear_log();
    let issues = s
        .client
        .repo(7, &widgets())
        .issues_with_label("lore")
        .await
        .unwrap();
    assert_eq!(issues.len(), 233);
    let pages: Vec<_> =
        s.gh.requests()
            .into_iter()
            .filter(|r| r.method == "GET")
            .collect();
    assert_eq!(pages.len(), 3, "100 per page");
    assert!(
        pages
            .iter()
            .all(|r| r.status == 200 && r.installation_id == Some(7)),
        "every page authenticated"
    );
}

#[tokio::test]
async fn a_missing_file_is_none_and_an_existing_one_is_its_text() {
    let s = setup().await;
    s.gh.seed(|m| {
        m.repo_mut("acme/widgets").files.insert(
            ".github/gitlore.toml".into(),
            "[schedule]\nmin-new-comments = 5\n".into(),
        );
    });
    let content = s
        .client
        .repo(7, &widgets())
        .file(".github/gitlore.toml", "main")
        .await
        .unwrap();
    let text = b"[schedule]\nmin-new-comments = 5\n".to_vec();
    assert_eq!(content, Some(FileContent::Bytes(text)));
    assert_eq!(
        s.client
            .repo(7, &widgets())
            .file("nope.toml", "main")
            .await
            .unwrap(),
        None
    );
}

#[tokio::test]
async fn repo_config_merges_org_defaults_and_reports_a_broken_file_with_its_line() {
    use gitlore::repo_config::{self, CONFIG_PATH};
    use gitlore::runner::fetch_config;
    let s = setup().await;
    s.gh.seed(|m| {
        m.add_installation(9, "acme", &["acme/widgets", "acme/.github"]);
        m.repo_mut("acme/.github").files.insert(
            CONFIG_PATH.into(),
            "[schedule]\nmin-new-comments = 5\ninterval-hours = 6\n".into(),
        );
        m.repo_mut("acme/widgets").files.insert(
            CONFIG_PATH.into(),
            "[schedule]\nmin-new-comments = 50\n".into(),
        );
    });
    let resolved = fetch_config::fetch(&s.client.repo(9, &widgets()))
        .await
        .unwrap();
    assert_eq!(resolved.problems, vec![]);
    assert_eq!(
        (
            resolved.config.schedule.interval_hours,
            resolved.config.schedule.min_new_comments
        ),
        (6, 50)
    );

    s.gh.seed(|m| {
        m.repo_mut("acme/widgets").files.insert(
            CONFIG_PATH.into(),
            "[schedule]\n\nmin-new-comment = 50\n".into(),
        );
    });
    let resolved = fetch_config::fetch(&s.client.repo(9, &widgets()))
        .await
        .unwrap();
    assert_eq!(
        resolved.config.schedule.min_new_comments, 5,
        "the org defaults stand"
    );
    let problem = &resolved.problems[0];
    assert_eq!(
        (problem.source.as_str(), problem.line),
        ("acme/widgets:.github/gitlore.toml", Some(3))
    );

    // Installation 7 cannot see acme/.github and the repo has no file: defaults, no problem.
    s.gh.seed(|m| {
        m.repo_mut("acme/widgets").files.remove(CONFIG_PATH);
    });
    let resolved = fetch_config::fetch(&s.client.repo(7, &widgets()))
        .await
        .unwrap();
    assert_eq!(
        (resolved.config, resolved.problems),
        (repo_config::RepoConfig::default(), vec![])
    );
}

#[tokio::test]
async fn only_content_creating_requests_count_towards_the_per_minute_cap() {
    let s = setup().await;
    let query = include_str!("../src/github/graphql/rate_limit.graphql");
    for _ in 0..120 {
        s.client
            .graphql_as(As::Installation(7), query, serde_json::json!({}))
            .await
            .unwrap();
    }
    assert!(
        s.pauses.waits().is_empty(),
        "GraphQL queries create nothing: no pause"
    );
    for n in 0..81 {
        let body = format!("<!-- gitlore:test {n} -->");
        let issue = NewIssue {
            title: "t",
            body: &body,
            label: "gitlore",
            marker: &body,
        };
        s.client
            .repo(7, &widgets())
            .create_issue_once(&issue)
            .await
            .unwrap();
    }
    let waits = s.pauses.waits();
    assert_eq!(
        waits.len(),
        1,
        "the 81st create of the minute waits: {waits:?}"
    );
    assert!(waits[0] <= Duration::from_secs(60) && waits[0] > Duration::from_secs(50));
}

#[tokio::test]
async fn a_spent_graphql_limit_is_waited_out_until_its_reset() {
    let s = setup().await;
    s.gh.inject(
        Target::graphql("RateLimit"),
        Fault::PrimaryExhausted { reset_in_s: 30 },
        1,
    );
    let query = include_str!("../src/github/graphql/rate_limit.graphql");
    let data = s
        .client
        .graphql_as(As::Installation(7), query, serde_json::json!({}))
        .await
        .unwrap();
    assert!(data["rateLimit"]["remaining"].is_number(), "{data}");
    let waits = s.pauses.waits();
    assert_eq!(waits.len(), 1, "{waits:?}");
    assert!(
        waits[0] >= Duration::from_secs(29) && waits[0] <= Duration::from_secs(31),
        "{waits:?}"
    );
}

#[tokio::test]
async fn a_page_linking_to_another_host_never_gets_the_token() {
    let s = setup().await;
    let foreign = FakeGitHub::start().await;
    // The configured host as user info in front of the foreign one.
    let disguised = foreign
        .base_url()
        .replace("http://", &format!("{}@", s.gh.origin()));
    for next in [
        format!("{}/repos/acme/widgets/issues?page=2", foreign.base_url()),
        format!("{disguised}/repos/acme/widgets/issues?page=3"),
    ] {
        s.gh.inject(
            Target::rest("GET", "/repos/acme/widgets/issues"),
            Fault::NextPageAt(next),
            1,
        );
        let listed = s.client.repo(7, &widgets()).issues_with_label("lore").await;
        let error = format!("{:#}", listed.unwrap_err());
        assert!(error.contains("another host"), "{error}");
    }
    assert_eq!(foreign.requests().len(), 0, "{:?}", foreign.requests());
}

#[tokio::test]
async fn an_outage_a_rate_limit_or_no_answer_is_transient() {
    let s = setup().await;
    let repo = s.client.repo(7, &widgets());
    let number =
        s.gh.seed(|m| m.add_issue("acme/widgets", "t", "b", "alice").number) as i64;
    let issues = Target::rest("GET", "/repos/acme/widgets/issues/");
    // A 502 on every attempt: GitHub is down for now.
    s.gh.inject(issues.clone(), Fault::ServerError(502), 4);
    let down = repo.get_issue(number).await.unwrap_err();
    assert!(down.is_transient() && !down.is_gone(), "{down}");
    assert_eq!(
        s.gh.count("GET", "/repos/acme/widgets/issues/"),
        4,
        "retried"
    );
    // A spent primary limit that resets in an hour: longer than a request waits.
    s.gh.inject(issues, Fault::PrimaryExhausted { reset_in_s: 3600 }, 1);
    let limited = repo.get_issue(number).await.unwrap_err();
    assert!(limited.is_transient() && !limited.is_gone(), "{limited}");
    // No answer at all: nobody listens where the API should be.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let nowhere = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let key = AppKey::new(APP_ID, &Secret::new(fake_github::test_private_key_pem())).unwrap();
    let offline = GitHub::new(&nowhere, key, s.clock.clone(), s.pauses.clone()).unwrap();
    let unreachable = offline
        .repo(7, &widgets())
        .default_branch()
        .await
        .unwrap_err();
    assert!(unreachable.is_transient(), "{unreachable}");
    assert!(
        unreachable.to_string().starts_with("cannot reach GitHub"),
        "{unreachable}"
    );
}

#[tokio::test]
async fn a_deleted_or_missing_issue_is_gone_and_not_transient() {
    let s = setup().await;
    let repo = s.client.repo(7, &widgets());
    let number =
        s.gh.seed(|m| m.add_issue("acme/widgets", "t", "b", "alice").number) as i64;
    s.gh.inject(
        Target::rest("GET", &format!("/repos/acme/widgets/issues/{number}")),
        Fault::Gone,
        1,
    );
    for error in [
        repo.get_issue(number).await.unwrap_err(),
        repo.get_issue(number + 100).await.unwrap_err(),
    ] {
        assert!(error.is_gone() && !error.is_transient(), "{error}");
    }
    assert_eq!(
        repo.get_issue(number).await.unwrap().number,
        number,
        "the 410 was injected once"
    );
}

#[tokio::test]
async fn an_unreadable_answer_or_a_refused_request_is_neither_transient_nor_gone() {
    let s = setup().await;
    let repo = s.client.repo(7, &widgets());
    // An answer gitlore cannot read is a bug to fix, not an outage to wait out.
    s.gh.inject(
        Target::rest("GET", "/repos/acme/widgets"),
        Fault::UnexpectedAnswer,
        1,
    );
    let unreadable = repo.default_branch().await.unwrap_err();
    assert!(
        unreadable
            .to_string()
            .contains("missing field `default_branch`"),
        "{unreadable}"
    );
    let refused = repo.collaborator_permission("../admin").await.unwrap_err();
    // A 422: GitHub refuses a summary over 65,535 characters, and would again.
    let summary = "x".repeat(70_000);
    let too_long = CheckRunFields {
        output: Some(CheckOutput {
            title: "t",
            summary: &summary,
            text: None,
            annotations: Vec::new(),
        }),
        ..CheckRunFields::default()
    };
    let invalid = repo
        .create_check_run(&"a".repeat(40), &too_long)
        .await
        .unwrap_err();
    assert!(invalid.to_string().contains("422"), "{invalid}");
    assert_eq!(
        s.gh.count("POST", "/repos/acme/widgets/check-runs"),
        1,
        "not sent again"
    );
    for error in [unreadable, refused, invalid] {
        assert!(!error.is_transient() && !error.is_gone(), "{error}");
    }
    // The repo config follows: an unreadable answer is not waited out as an outage.
    s.gh.inject(
        Target::rest("GET", "/repos/acme/widgets"),
        Fault::UnexpectedAnswer,
        1,
    );
    let config = gitlore::runner::fetch_config::fetch(&repo)
        .await
        .unwrap_err();
    assert!(!config.is_transient(), "{config}");
    s.gh.inject(
        Target::rest("GET", "/repos/acme/widgets"),
        Fault::ServerError(503),
        4,
    );
    let config = gitlore::runner::fetch_config::fetch(&repo)
        .await
        .unwrap_err();
    assert!(config.is_transient(), "{config}");
}
