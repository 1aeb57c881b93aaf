//! The façade's operations against the fake GitHub over HTTP: issues, comments created once,
//! reactions, PR files over several pages, collaborator permissions, check runs created once,
//! pinning with GitHub's 3-pin limit, and the App's installation look-up.

mod common;
mod fake_github;

use std::sync::Arc;

use common::pause::Recorder;
use fake_github::{FakeGitHub, Fault, Role, Target};
use gitlore::clock::ManualClock;
use gitlore::domain::{InstallationId, PrNumber, RepoName, Secret, UnixMs};
use gitlore::github::auth::AppKey;
use gitlore::github::client::GitHub;
use gitlore::github::ops::checks::{CheckOutput, CheckRunFields};
use gitlore::github::ops::comments::{Reaction, ReactionTarget};
use gitlore::github::ops::issues::{IssueState, IssueUpdate, PinOutcome};
use gitlore::github::ops::permission::Permission;

const APP_ID: i64 = 4242;
const INSTALLATION: i64 = 7;
const REPO: &str = "acme/widgets";

async fn setup() -> (FakeGitHub, GitHub) {
    let gh = FakeGitHub::start().await;
    gh.with_test_app(APP_ID, "gitlore");
    gh.seed(|m| m.add_installation(INSTALLATION, "acme", &[REPO]));
    let clock = Arc::new(ManualClock::new(UnixMs(gh.now_ms())));
    let pause = Arc::new(Recorder::new(clock.clone()));
    let key = AppKey::new(APP_ID, &Secret::new(fake_github::test_private_key_pem())).unwrap();
    let client = GitHub::new(&gh.base_url(), key, clock, pause).unwrap();
    (gh, client)
}

fn widgets() -> RepoName {
    RepoName::parse(REPO).unwrap()
}

#[tokio::test]
async fn an_issue_is_read_and_edited_in_place() {
    let (gh, client) = setup().await;
    let number = gh.seed(|m| m.add_issue(REPO, "Old title", "old body", "alice").number) as i64;
    let issue = client
        .repo(InstallationId(INSTALLATION), &widgets())
        .get_issue(number)
        .await
        .unwrap();
    assert_eq!(
        (issue.title.as_str(), issue.body.as_str()),
        ("Old title", "old body")
    );

    gh.inject(
        Target::rest("PATCH", &format!("/repos/{REPO}/issues/{number}")),
        Fault::ServerError(502),
        1,
    );
    let update = IssueUpdate {
        body: Some("new body"),
        state: Some(IssueState::Closed),
        ..IssueUpdate::default()
    };
    let updated = client
        .repo(InstallationId(INSTALLATION), &widgets())
        .update_issue(number, &update)
        .await
        .unwrap();
    assert_eq!(
        (
            updated.title.as_str(),
            updated.body.as_str(),
            updated.state.as_str()
        ),
        ("Old title", "new body", "closed"),
        "the title is left alone; the 502 was retried"
    );
    assert_eq!(gh.count("PATCH", "/repos/acme/widgets/issues/"), 2);
    assert!(gh.inspect(|m| !m.repo(REPO).issues[&(number as u64)].open));
}

#[tokio::test]
async fn a_comment_is_created_once_despite_a_502_and_found_again_by_its_marker() {
    let (gh, client) = setup().await;
    let number = gh.seed(|m| m.add_issue(REPO, "t", "b", "alice").number);
    let marker = "<!-- gitlore:reply:1 -->";
    // Someone quotes the marker: a person's comment is never taken for the bot's.
    gh.seed(|m| m.add_issue_comment(REPO, number, "mallory", &format!("{marker} ha")));
    let path = format!("/repos/{REPO}/issues/{number}/comments");
    gh.inject(Target::rest("POST", &path), Fault::ServerError(502), 1);
    let body = format!("{marker}\nThanks!");
    let created = client
        .repo(InstallationId(INSTALLATION), &widgets())
        .create_issue_comment(PrNumber(number as i64), &body, marker)
        .await
        .unwrap();
    let again = client
        .repo(InstallationId(INSTALLATION), &widgets())
        .create_issue_comment(PrNumber(number as i64), &body, marker)
        .await
        .unwrap();
    assert_eq!(created, again);
    assert_eq!(created.body, body);
    let bot_comments = gh.inspect(|m| {
        m.repo(REPO)
            .issue_comments
            .iter()
            .filter(|c| c.author.bot)
            .count()
    });
    assert_eq!(bot_comments, 1, "exactly one comment");
    assert_eq!(gh.count("POST", &path), 2, "the failed create and one more");
}

#[tokio::test]
async fn reactions_on_both_kinds_of_comment_are_idempotent() {
    let (gh, client) = setup().await;
    let (conversation, inline) = gh.seed(|m| {
        let number = m.add_open_pull(REPO, "PR", "alice").number;
        let conversation = m.add_issue_comment(REPO, number, "bob", "/gitlore refresh");
        m.add_thread(REPO, number, "src/lib.rs", 3, "bob", "nit");
        let inline = m.repo(REPO).pulls[&number].threads[0].comments[0].id;
        (conversation, inline)
    });
    for _ in 0..2 {
        for target in [
            ReactionTarget::IssueComment(conversation),
            ReactionTarget::ReviewComment(inline),
        ] {
            client
                .repo(InstallationId(INSTALLATION), &widgets())
                .create_reaction(target, Reaction::Eyes)
                .await
                .unwrap();
        }
    }
    let (on_conversation, on_inline) = gh.inspect(|m| {
        let repo = m.repo(REPO);
        let pull = repo.pulls.values().next().unwrap();
        (
            repo.issue_comments[0].reactions.clone(),
            pull.threads[0].comments[0].reactions.clone(),
        )
    });
    for reactions in [on_conversation, on_inline] {
        assert_eq!(reactions.len(), 1, "one reaction however often it is sent");
        assert_eq!(reactions[0].content, "eyes");
    }
}

#[tokio::test]
async fn the_files_of_a_pr_with_250_files_come_back_complete_over_3_pages() {
    let (gh, client) = setup().await;
    let number = gh.seed(|m| {
        let pull = m.add_open_pull(REPO, "big", "alice");
        for n in 0..250 {
            pull.changed_files.push(fake_github::model::ChangedFile {
                filename: format!("src/f{n:03}.rs"),
                status: "modified".into(),
                additions: n,
                deletions: 1,
                patch: None,
            });
        }
        pull.number
    });
    gh.clear_log();
    let files = client
        .repo(InstallationId(INSTALLATION), &widgets())
        .pull_request_files(PrNumber(number as i64))
        .await
        .unwrap();
    let names: Vec<String> = files.iter().map(|f| f.filename.clone()).collect();
    let expected: Vec<String> = (0..250).map(|n| format!("src/f{n:03}.rs")).collect();
    assert_eq!(names, expected);
    assert_eq!(files[249].additions, 249);
    let pages: Vec<_> = gh
        .requests()
        .into_iter()
        .filter(|r| r.method == "GET")
        .collect();
    assert_eq!(pages.len(), 3, "100 per page");
    assert!(
        pages
            .iter()
            .all(|r| r.status == 200 && r.installation_id == Some(INSTALLATION)),
        "the token on every page"
    );
}

#[tokio::test]
async fn permissions_come_from_the_collaborator_role() {
    let (gh, client) = setup().await;
    gh.seed(|m| {
        m.set_role(REPO, "maya", Role::Maintain);
        m.set_role(REPO, "tim", Role::Triage);
        m.actor("stranger");
    });
    let permission = |login: &'static str| {
        let client = &client;
        async move {
            client
                .repo(InstallationId(INSTALLATION), &widgets())
                .collaborator_permission(login)
                .await
                .unwrap()
        }
    };
    assert_eq!(permission("maya").await, Permission::Maintain);
    assert!(permission("maya").await.can_write());
    assert_eq!(permission("tim").await, Permission::Triage);
    assert!(!permission("tim").await.can_write());
    assert_eq!(permission("stranger").await, Permission::None);
    assert!(
        client
            .repo(InstallationId(INSTALLATION), &widgets())
            .collaborator_permission("../admin")
            .await
            .is_err(),
        "not a login: never sent"
    );
}

#[tokio::test]
async fn a_check_run_is_created_once_despite_a_502_then_updated() {
    let (gh, client) = setup().await;
    let sha = "a".repeat(40);
    // Another App's check run of the same name is not ours.
    gh.seed(|m| {
        let mut other = m.new_check_run(&sha, "gitlore");
        other.app_id = None;
        m.repo_mut(REPO).check_runs.push(other);
    });
    gh.inject(
        Target::rest("POST", "/repos/acme/widgets/check-runs"),
        Fault::ServerError(502),
        1,
    );
    let queued = CheckRunFields {
        status: Some("in_progress"),
        ..CheckRunFields::default()
    };
    let created = client
        .repo(InstallationId(INSTALLATION), &widgets())
        .create_check_run(&sha, &queued)
        .await
        .unwrap();
    let again = client
        .repo(InstallationId(INSTALLATION), &widgets())
        .create_check_run(&sha, &queued)
        .await
        .unwrap();
    assert_eq!(created.id, again.id, "found again, not created twice");
    let done = CheckRunFields {
        conclusion: Some("neutral"),
        output: Some(CheckOutput {
            title: "2 findings",
            summary: "Touches src/db.",
            text: None,
            annotations: Vec::new(),
        }),
        ..CheckRunFields::default()
    };
    let updated = client
        .repo(InstallationId(INSTALLATION), &widgets())
        .update_check_run(created.id, &done)
        .await
        .unwrap();
    assert_eq!(
        (updated.status.as_str(), updated.conclusion.as_deref()),
        ("completed", Some("neutral"))
    );
    let ours = gh.inspect(|m| {
        m.repo(REPO)
            .check_runs
            .iter()
            .filter(|r| r.app_id == Some(APP_ID))
            .count()
    });
    assert_eq!(ours, 1, "exactly one check run");
}

#[tokio::test]
async fn pinning_reports_the_three_pin_limit_as_an_outcome() {
    let (gh, client) = setup().await;
    let nodes: Vec<String> = gh.seed(|m| {
        (0..4)
            .map(|n| {
                m.add_issue(REPO, &format!("i{n}"), "", "alice")
                    .node_id
                    .clone()
            })
            .collect()
    });
    for node in &nodes[..3] {
        assert_eq!(
            client
                .repo(InstallationId(INSTALLATION), &widgets())
                .pin_issue(node)
                .await
                .unwrap(),
            PinOutcome::Pinned
        );
    }
    assert_eq!(
        client
            .repo(InstallationId(INSTALLATION), &widgets())
            .pin_issue(&nodes[0])
            .await
            .unwrap(),
        PinOutcome::Pinned,
        "pinning a pinned issue is fine"
    );
    assert_eq!(
        client
            .repo(InstallationId(INSTALLATION), &widgets())
            .pin_issue(&nodes[3])
            .await
            .unwrap(),
        PinOutcome::LimitReached
    );
    assert!(
        client
            .repo(InstallationId(INSTALLATION), &widgets())
            .pin_issue("I_nope")
            .await
            .is_err(),
        "other GraphQL errors stay errors"
    );
    assert_eq!(gh.inspect(|m| m.pinned_count("acme/widgets")), 3);
}

#[tokio::test]
async fn the_installation_of_a_repo_is_found_as_the_app() {
    let (_gh, client) = setup().await;
    assert_eq!(
        client.repo_installation(&widgets()).await.unwrap(),
        Some(InstallationId(INSTALLATION))
    );
    let elsewhere = RepoName::parse("someone/else").unwrap();
    assert_eq!(client.repo_installation(&elsewhere).await.unwrap(), None);
}
