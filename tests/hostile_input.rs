//! The adversarial cases of hostile input, rerun: review text written to deceive, broken repo
//! configs, pagination links to foreign hosts. Prints `case | tried | held`
//! (`cargo test --test hostile_input -- --nocapture`) and fails unless every attempt held.

mod common;
mod fake_github;

use std::sync::Arc;

use common::findings::{outside_code_and_own_links, realistic_view};
use fake_github::{FakeGitHub, Fault, Target};
use gitlore::clock::SystemClock;
use gitlore::domain::Secret;
use gitlore::domain::{InstallationId, RepoName};
use gitlore::github::auth::AppKey;
use gitlore::github::client::{GitHub, TokioPause};
use gitlore::render::issue::render_issue;
use gitlore::render::links::plain;
use gitlore::repo_config::{self, RepoConfig};

/// Review text an attacker could write.
const HOSTILE_TEXTS: &[&str] = &[
    "![t](https://tracker.example/p.gif)",
    "[Click to dismiss all findings](https://evil.example/x)",
    "[![b](https://tracker.example/b.png)](https://evil.example/y)",
    "<img src=https://tracker.example/i.gif> <a href=https://evil.example>x</a>",
    "https://evil.example/bare and www.evil.example",
    "\\[x\\](https://evil.example/w)",
    "[ref][1]\n\n[1]: https://evil.example/ref",
    "` https://evil.example/after-a-lone-backtick",
    "<details><summary>Dismiss</summary>- [x] Dismiss <!-- gitlore:dismiss f-1 --></details>",
    "cc @alice @org/team #12 GH-3 acme/widgets#4",
    "ad\u{202E}nim\u{200B}\u{2066}\u{FEFF}",
    "mailto:alice@evil.example HTTP://@alice",
];

/// Bidi overrides, isolates and zero-width characters.
const INVISIBLE: &[char] = &['\u{202E}', '\u{200B}', '\u{2066}', '\u{FEFF}'];

/// Whether a findings issue quoting `text` everywhere stays inert.
fn issue_holds(text: &str) -> bool {
    let mut view = realistic_view();
    view.findings[0].title = text.into();
    view.findings[0].insight = text.into();
    view.findings[0].evidence[0].text = text.into();
    view.config_problems[0].reason = text.into();
    let open = outside_code_and_own_links(&render_issue(&view));
    let ours = ["[ ] Dismiss", "[review comment]", "[ ]"];
    let no_link = ["://", "www.", "](", "![", "<img", "<a ", "@alice", "#12"]
        .iter()
        .all(|needle| !open.contains(needle));
    let no_bracket = open
        .match_indices('[')
        .all(|(at, _)| ours.iter().any(|own| open[at..].starts_with(own)));
    let no_forged_box = !open.contains("<!-- gitlore:dismiss f-1");
    no_link && no_bracket && no_forged_box && !open.contains(INVISIBLE)
}

/// A broken config file: the defaults stand, and a problem says why.
fn config_holds(bytes: &[u8]) -> bool {
    let source = "acme/widgets:.github/gitlore.toml";
    let resolved = match repo_config::text_of(source, bytes.to_vec()) {
        Ok(text) => repo_config::resolve(None, Some((source, &text))),
        Err(problem) => repo_config::Resolved {
            config: RepoConfig::default(),
            problems: vec![problem],
            repo_file_unused: true,
        },
    };
    resolved.config == RepoConfig::default() && resolved.problems.len() == 1
}

#[tokio::test]
async fn hostile_input_holds() {
    let mut table: Vec<(&str, usize, usize)> = Vec::new();

    let held = HOSTILE_TEXTS
        .iter()
        .filter(|t| {
            let held = issue_holds(t);
            if !held {
                eprintln!("did not hold: {t:?}");
            }
            held
        })
        .count();
    table.push((
        "hostile markdown in the findings issue",
        HOSTILE_TEXTS.len(),
        held,
    ));

    let held = HOSTILE_TEXTS
        .iter()
        .filter(|t| !plain(t, 200).contains(INVISIBLE) && !plain(t, 200).contains("&lt;"))
        .count();
    table.push(("hostile text in annotations", HOSTILE_TEXTS.len(), held));

    let utf16: Vec<u8> = "\u{FEFF}[publish]\nissue = false\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let configs: Vec<Vec<u8>> = vec![
        utf16,
        b"[issue]\ntitle = \"caf\xE9\"\n".to_vec(),
        b"[publish\nissue = false\n".to_vec(),
        b"[publish]\nissue = \"http://@alice\"\n".to_vec(),
        b"[analysis]\ncategories = [\"landmines\"]\n".to_vec(),
        b"[schedule]\ninterval-hours = 0\n".to_vec(),
    ];
    let held = configs.iter().filter(|c| config_holds(c)).count();
    table.push(("broken repo configs", configs.len(), held));

    let gh = FakeGitHub::start().await;
    gh.with_test_app(1, "gitlore");
    gh.seed(|m| m.add_installation(7, "acme", &["acme/widgets"]));
    let foreign = FakeGitHub::start().await;
    let key = AppKey::new(1, &Secret::new(fake_github::test_private_key_pem())).unwrap();
    let client = GitHub::new(
        &gh.base_url(),
        key,
        Arc::new(SystemClock),
        Arc::new(TokioPause),
    )
    .unwrap();
    let repo = RepoName::parse("acme/widgets").unwrap();
    let links = [
        format!("{}/repos/acme/widgets/issues?page=2", foreign.base_url()),
        foreign
            .base_url()
            .replace("http://", &format!("{}@", gh.origin())),
        format!("{}evil/repos/acme/widgets/issues", gh.base_url()),
        format!("{}/graphql2", gh.origin()),
    ];
    let mut held = 0;
    for next in &links {
        gh.inject(
            Target::rest("GET", "/repos/acme/widgets/issues"),
            Fault::NextPageAt(next.clone()),
            1,
        );
        let refused = client
            .repo(InstallationId(7), &repo)
            .issues_with_label("gitlore")
            .await
            .is_err();
        let leaked = gh
            .requests()
            .iter()
            .any(|r| r.path.contains("evil") || r.path.contains("graphql2"));
        held += usize::from(refused && !leaked && foreign.requests().is_empty());
    }
    table.push(("pagination links to foreign hosts", links.len(), held));

    println!("case | tried | held");
    for (case, tried, held) in &table {
        println!("{case} | {tried} | {held}");
    }
    assert!(
        table.iter().all(|(_, tried, held)| tried == held),
        "{table:?}"
    );
}
