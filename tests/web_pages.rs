//! The web pages in a real browser: `gitlore serve`'s pages (in-process, over a real store)
//! against the fake GitHub, driven through headless Chromium and chromedriver. A private
//! repository's page is refused to an anonymous visitor and to a signed-in non-member and shown
//! to a member; a public one is shown to anyone; hostile review text stays inert; sessions are
//! HttpOnly, Secure, SameSite cookies; sign-in checks its `state` and sign-out its CSRF token.
//! What a reader sees: code spans as code and no other markup from review text, every piece of
//! evidence linked to GitHub (`rel="nofollow noopener"`), dates said from today. The HTML export
//! of the same store is opened in the browser too. Screenshots of `/`, a repository page, the
//! sign-in page and the export go to `target/test-artifacts/web/`.

mod fake_github;
mod webdriver;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use fake_github::{FakeGitHub, Role};
use gitlore::clock::SystemClock;
use gitlore::config::Settings;
use gitlore::domain::findings::{Category, Evidence, EvidenceKind, Finding, Severity, Status};
use gitlore::domain::history::{Commit, Coupling, FileChange};
use gitlore::domain::themes::ModelLabels;
use gitlore::domain::{
    Author, Comment, CommentKind, InstallationId, PrNumber, Repo, RepoId, RepoName,
};
use gitlore::events::Installation;
use gitlore::export;
use gitlore::lessons::report;
use gitlore::render::links::LinkStyle;
use gitlore::store::comments::{self, Upserted, Version};
use gitlore::store::run_reports::{self, RunReport};
use gitlore::store::themes::{self, SavedTheme};
use gitlore::store::{Store, findings, history, publications, repos};
use gitlore::web::{self, WebState};
use webdriver::Browser;

const CLIENT_ID: &str = "Iv1.webtest";
const CLIENT_SECRET: &str = "oauth-client-secret";
const PRIVATE_REPO: &str = "acme/vault";
const PUBLIC_REPO: &str = "acme/lantern";
const PRIVATE_FINDING: &str = "Vault keys are rotated only through KeyRing::rotate";
const PUBLIC_FINDING: &str = "Lantern renders must go through the frame scheduler";
/// Review text that would run script, show an image or link somewhere if it were markup.
const HOSTILE: &str = "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script> [click](javascript:alert(1)) see https://evil.example/steal";
const NOW: i64 = 1_795_381_200;
/// What a finding's insight quotes as code.
const CODE: &str = "FrameScheduler::submit";

/// Unix seconds now: the pages say dates from the real clock.
fn today() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// A store with two installed repositories, their findings, a theme with comments, history and
/// a run report with a config problem.
fn seeded_store(dir: &Path) -> Arc<Store> {
    let store = Arc::new(Store::open(&gitlore::store::database_path(dir)).unwrap());
    store
        .write(|tx| {
            let installation = Installation {
                id: InstallationId(77),
                account_login: Some("acme".into()),
                account_type: Some("Organization".into()),
            };
            repos::upsert_installation(tx, &installation, false)?;
            for (id, name, private) in [(501, PRIVATE_REPO, true), (502, PUBLIC_REPO, false)] {
                let repo = Repo {
                    id: RepoId(id),
                    name: RepoName::parse(name).unwrap(),
                    default_branch: Some("main".into()),
                    private,
                };
                repos::upsert_repo(tx, &repo, Some(InstallationId(77)), true)?;
            }
            let mut member_ids = Vec::new();
            for (n, body) in [
                (1, "Rotate through KeyRing::rotate, never by hand"),
                (2, HOSTILE),
            ] {
                let comment = Comment {
                    kind: CommentKind::Inline,
                    github_id: 9000 + n,
                    node_id: None,
                    author: Author {
                        login: format!("reviewer{n}"),
                        ..Author::default()
                    },
                    body: body.into(),
                    path: Some("src/keys.rs".into()),
                    line: Some(3),
                    diff_hunk: None,
                    in_reply_to: None,
                    review_id: None,
                    review_state: None,
                    created_at: Some(NOW - 1000 * n),
                    updated_at: NOW - 1000 * n,
                    html_url: Some(format!("https://evil.example/{n}")),
                };
                let version = Version {
                    body_hash: "h",
                    noise: None,
                    wins_tie: false,
                };
                for repo_id in [501, 502] {
                    let comment = Comment {
                        github_id: comment.github_id + repo_id * 10,
                        ..comment.clone()
                    };
                    if let Upserted::Inserted { id } =
                        comments::upsert(tx, RepoId(repo_id), PrNumber(4), &comment, &version)?
                    {
                        member_ids.push((repo_id, id));
                    }
                }
            }
            for (repo_id, title, theme_id) in [
                (501, PRIVATE_FINDING, "t-00000000a1"),
                (502, PUBLIC_FINDING, "t-00000000b2"),
            ] {
                let members: Vec<i64> = member_ids
                    .iter()
                    .filter(|(r, _)| *r == repo_id)
                    .map(|(_, id)| *id)
                    .collect();
                let terms = vec!["rotate".to_string(), "keyring".to_string()];
                themes::save_run(
                    tx,
                    RepoId(repo_id),
                    NOW,
                    &[SavedTheme {
                        id: theme_id,
                        label: HOSTILE,
                        terms: &terms,
                        // The public theme was first seen today, the private one on 21 Nov 2026.
                        first_seen: if repo_id == 502 {
                            today()
                        } else {
                            NOW - 86_400
                        },
                        members: &members,
                    }],
                )?;
                let finding = Finding {
                    id: format!("f-{theme_id}"),
                    category: Category::Landmine,
                    severity: Severity::High,
                    title: title.into(),
                    insight: format!("Reviewers asked for it twice: use `{CODE}`. {HOSTILE}"),
                    evidence: vec![
                        Evidence {
                            kind: EvidenceKind::Comment,
                            id: members[0].to_string(),
                            text: HOSTILE.into(),
                        },
                        Evidence {
                            kind: EvidenceKind::Commit,
                            id: "0123456789abcdef0123456789abcdef01234567".into(),
                            text: "Fix key rotation".into(),
                        },
                        Evidence {
                            kind: EvidenceKind::File,
                            id: "src/keys.rs".into(),
                            text: String::new(),
                        },
                    ],
                    files: vec!["src/keys.rs".into()],
                    first_seen: NOW - 86_400,
                    last_seen: NOW,
                    status: Status::Active,
                };
                findings::save_run(tx, RepoId(repo_id), NOW, &[finding])?;
                let commits: Vec<Commit> = (0..3)
                    .map(|n| Commit {
                        sha: format!("{n:040x}"),
                        author_name: format!("dev{n}"),
                        author_email: format!("dev{}@acme.example", n % 2),
                        author_time: NOW - 3600 * (3 - n),
                        committer_time: NOW - 3600 * (3 - n),
                        subject: "change".into(),
                        files: vec![
                            FileChange {
                                path: "src/keys.rs".into(),
                                old_path: None,
                            },
                            FileChange {
                                path: "src/ring.rs".into(),
                                old_path: None,
                            },
                        ],
                        complete: true,
                        ..Commit::default()
                    })
                    .collect();
                history::append(tx, RepoId(repo_id), &commits, &commits[2].sha, true)?;
                publications::save_couplings(
                    tx,
                    RepoId(repo_id),
                    &[Coupling {
                        a: "src/keys.rs".into(),
                        b: "src/ring.rs".into(),
                        support: 3.0,
                        confidence: 1.0,
                        lift: 1.0,
                        commits: 3,
                    }],
                )?;
                run_reports::save(
                    tx,
                    RepoId(repo_id),
                    &RunReport {
                        run_at: NOW,
                        comments: 2,
                        reviewers: 2,
                        pull_requests: 1,
                        window_months: 12,
                        head: Some(commits[2].sha.clone()),
                        config_problems: vec![format!(
                            "{PRIVATE_REPO}:.github/gitlore.toml line 2: unknown key `widnow`"
                        )],
                        notes: Vec::new(),
                        config: None,
                        model_labels: Some(ModelLabels {
                            model: "openai/gpt-x/965d1488bfb2".into(),
                            asked: 2,
                            judged: 2,
                        }),
                        ..RunReport::default()
                    },
                )?;
            }
            Ok(())
        })
        .unwrap();
    store
}

/// The fake GitHub with the App's OAuth client: alice may read the private repository, bob
/// may not; the public one is public.
async fn fake() -> FakeGitHub {
    let gh = FakeGitHub::start().await;
    gh.with_test_app(4242, "gitlore");
    gh.seed(|m| {
        m.set_oauth_client(CLIENT_ID, CLIENT_SECRET);
        m.add_installation(77, "acme", &[PRIVATE_REPO, PUBLIC_REPO]);
        m.add_repo(PUBLIC_REPO).private = false;
        m.set_role(PRIVATE_REPO, "alice", Role::Read);
        m.actor("bob");
    });
    gh
}

/// The pages served in-process on a free port, configured through the settings `serve` reads.
async fn serve_pages(gh: &FakeGitHub, store: Arc<Store>, extra: &[(&str, &str)]) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    // Chromium keeps `Secure` cookies on http://localhost (a secure context), as on https.
    let public_url = format!("http://localhost:{port}");
    let key = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/",
        "tests/fixtures/test-app-key.pem"
    );
    let mut vars: HashMap<String, String> = [
        ("GITLORE_APP_ID", "4242"),
        ("GITLORE_PRIVATE_KEY_PATH", key),
        ("GITLORE_WEBHOOK_SECRET", "whsec"),
        ("GITLORE_OAUTH_CLIENT_ID", CLIENT_ID),
        ("GITLORE_OAUTH_CLIENT_SECRET", CLIENT_SECRET),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    vars.insert("GITLORE_GITHUB_API_URL".into(), gh.base_url());
    vars.insert("GITLORE_PUBLIC_URL".into(), public_url.clone());
    for (k, v) in extra {
        vars.insert(k.to_string(), v.to_string());
    }
    let settings = Settings::from_sources(None, &|name| vars.get(name).cloned()).unwrap();
    let state = WebState::new(&settings, store, Arc::new(SystemClock)).unwrap();
    let router = web::router(state);
    tokio::spawn(async move {
        axum::serve(listener, router).await.unwrap();
    });
    public_url
}

fn artifacts() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-artifacts/web");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Signs in through the fake's authorize page as `login`, starting from `/signin?next=…`.
async fn sign_in(browser: &Browser, base: &str, login: &str, next: &str) {
    browser.goto(&format!("{base}/signin?next={next}")).await;
    let button = browser.find("a.button").await;
    browser.click(&button).await;
    browser
        .wait_for_url(|url| url.contains("/login/oauth/authorize"))
        .await;
    assert!(
        browser.title().await.contains("Authorize"),
        "the fake's authorize page: {}",
        browser.url().await
    );
    let field = browser.find("#login_field").await;
    browser.type_into(&field, login).await;
    browser.click(&browser.find("#authorize").await).await;
    browser
        .wait_for_url(|url| url.starts_with(base) && !url.contains("/auth/"))
        .await;
}

async fn sign_out(browser: &Browser, base: &str) {
    browser.click(&browser.find("nav form button").await).await;
    browser.wait_for_url(|url| url == format!("{base}/")).await;
}

/// The page shows no element hostile text could have made, and the text itself as text.
async fn assert_inert(browser: &Browser) {
    assert_ne!(browser.title().await, "pwned", "no script ran");
    assert!(
        browser.find_all("main img, main script").await.is_empty(),
        "no image, no script"
    );
    for link in browser.find_all("a").await {
        let href = browser.attribute(&link, "href").await.unwrap_or_default();
        assert!(
            !href.contains("evil.example") && !href.starts_with("javascript"),
            "no link from review text: {href}"
        );
    }
    let text = browser.text().await;
    assert!(text.contains("<img src=x onerror="), "shown as text");
}

/// Unfolds every `<details>`, for a screenshot that shows the evidence.
async fn open_details(browser: &Browser) {
    for summary in browser.find_all("details > summary").await {
        browser.click(&summary).await;
    }
}

/// Code spans show as code, with no backtick left; every piece of evidence links to where it
/// lives on GitHub (`web`), and every link off the page is to GitHub, `rel="nofollow noopener"`.
async fn assert_reads_well(browser: &Browser, web: &str) {
    let mut code = Vec::new();
    for element in browser.find_all("main p code").await {
        code.push(browser.element_text(&element).await);
    }
    assert!(code.contains(&CODE.to_string()), "{code:?}");
    let text = browser.text().await;
    assert!(
        !text.contains(&format!("`{CODE}`")),
        "no raw backticks: {text}"
    );
    assert!(
        browser
            .find_all("main ul.evidence > li:not(:has(a)), main ul.comments > li:not(:has(a))")
            .await
            .is_empty(),
        "every piece of evidence links: {}",
        browser.source().await
    );
    let mut evidence = Vec::new();
    for link in browser.find_all("main ul li a").await {
        evidence.push(browser.attribute(&link, "href").await.unwrap());
    }
    let head = format!("{:040x}", 2);
    for expected in [
        format!("{web}/{PUBLIC_REPO}/pull/4"),
        format!("{web}/{PUBLIC_REPO}/commit/0123456789abcdef0123456789abcdef01234567"),
        format!("{web}/{PUBLIC_REPO}/blob/{head}/src/keys.rs"),
    ] {
        assert!(evidence.contains(&expected), "{expected} in {evidence:?}");
    }
    for link in browser.find_all("main a").await {
        let href = browser.attribute(&link, "href").await.unwrap();
        if href.starts_with('/') || href.starts_with('#') {
            continue;
        }
        assert!(href.starts_with(&format!("{web}/")), "{href}");
        assert_eq!(
            browser.attribute(&link, "rel").await.as_deref(),
            Some("nofollow noopener"),
            "{href}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_show_each_reader_what_github_lets_them_read() {
    let gh = fake().await;
    let dir = tempfile::tempdir().unwrap();
    let base = serve_pages(&gh, seeded_store(dir.path()), &[]).await;
    let browser = Browser::start().await;
    let shots = artifacts();

    // Anonymous: the public repository and its findings; the private one is not found.
    browser.goto(&format!("{base}/")).await;
    let listed = browser.text().await;
    assert!(
        listed.contains(PUBLIC_REPO) && !listed.contains(PRIVATE_REPO),
        "{listed}"
    );
    browser.goto(&format!("{base}/repos/{PRIVATE_REPO}")).await;
    assert!(browser.title().await.starts_with("Not found"));
    assert!(!browser.source().await.contains(PRIVATE_FINDING));
    browser.goto(&format!("{base}/repos/{PUBLIC_REPO}")).await;
    let page = browser.text().await;
    assert!(page.contains(PUBLIC_FINDING), "{page}");
    assert!(
        page.contains("Files that change together") && page.contains("Commits\n3"),
        "history figures: {page}"
    );
    assert!(
        page.contains("unknown key widnow"),
        "the config problem, its key as code: {page}"
    );
    assert!(
        page.contains("The model openai/gpt-x/965d1488bfb2 judged 2 of the 2 review comments"),
        "who judged the comments: {page}"
    );
    assert!(
        page.contains("Rotate through KeyRing::rotate"),
        "the theme's comments: {page}"
    );
    assert_inert(&browser).await;
    assert_reads_well(&browser, &gh.origin()).await;
    assert!(
        page.contains("2 comments · first seen today"),
        "a theme first seen today says so: {page}"
    );
    open_details(&browser).await;
    browser
        .screenshot(&shots.join("repository-public.png"))
        .await;

    // The sign-in page; a callback with a state this browser did not start is refused.
    browser.goto(&format!("{base}/signin")).await;
    browser.screenshot(&shots.join("signin.png")).await;
    browser
        .goto(&format!("{base}/auth/callback?code=forged&state=forged"))
        .await;
    assert!(browser.title().await.starts_with("Sign-in failed"));

    // bob signs in: GitHub does not let him read the private repository.
    sign_in(&browser, &base, "bob", "/").await;
    assert!(browser.text().await.contains("Signed in as bob"));
    let session = browser
        .cookies()
        .await
        .into_iter()
        .find(|c| c["name"] == "gitlore_session")
        .expect("a session cookie");
    assert_eq!(
        (
            &session["httpOnly"],
            &session["secure"],
            &session["sameSite"]
        ),
        (&true.into(), &true.into(), &"Lax".into()),
        "{session}"
    );
    browser.goto(&format!("{base}/repos/{PRIVATE_REPO}")).await;
    assert!(browser.title().await.starts_with("Not found"));
    assert!(!browser.source().await.contains(PRIVATE_FINDING));

    // Sign-out needs the session's CSRF token.
    let cookie = format!("gitlore_session={}", session["value"].as_str().unwrap());
    let forged = reqwest::Client::new()
        .post(format!("{base}/signout"))
        .header("cookie", &cookie)
        .form(&[("csrf", "forged")])
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), 403);
    browser.goto(&format!("{base}/")).await;
    assert!(
        browser.text().await.contains("Signed in as bob"),
        "a forged sign-out changes nothing"
    );
    browser.goto(&format!("{base}/signin")).await;
    sign_out(&browser, &base).await;
    assert!(!browser.text().await.contains("Signed in as"));

    // alice signs in and is sent back to the private repository's page.
    sign_in(&browser, &base, "alice", &format!("/repos/{PRIVATE_REPO}")).await;
    assert_eq!(browser.url().await, format!("{base}/repos/{PRIVATE_REPO}"));
    let page = browser.text().await;
    assert!(page.contains(PRIVATE_FINDING), "{page}");
    assert!(
        page.contains("2 comments · first seen 21 Nov 2026"),
        "{page}"
    );
    assert_inert(&browser).await;
    browser.screenshot(&shots.join("repository.png")).await;
    browser.goto(&format!("{base}/")).await;
    let listed = browser.text().await;
    assert!(
        listed.contains(PUBLIC_REPO) && listed.contains(PRIVATE_REPO),
        "{listed}"
    );
    browser.screenshot(&shots.join("index.png")).await;

    // Nothing private went through a URL: GitHub saw no token or code in a query but the
    // redirect's own.
    let queries: Vec<String> = gh.requests().into_iter().map(|r| r.query).collect();
    assert!(
        queries
            .iter()
            .all(|q| !q.contains("ghu_") && !q.contains(CLIENT_SECRET)),
        "{queries:?}"
    );
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_html_export_reads_like_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let store = seeded_store(dir.path());
    let conn = store.reader().unwrap();
    let repo = report::find_repo(&conn, Some(PUBLIC_REPO)).unwrap();
    let web = "https://github.com";
    let report = report::load(&conn, &repo, Some(web)).unwrap();
    let file = dir.path().join("lantern.html");
    export::write(
        &report,
        export::Format::Html,
        Some(&file),
        &LinkStyle::github_com(),
    )
    .unwrap();
    let browser = Browser::start().await;
    browser.goto(&format!("file://{}", file.display())).await;
    let page = browser.text().await;
    assert!(page.contains(PUBLIC_FINDING), "{page}");
    assert_inert(&browser).await;
    assert_reads_well(&browser, web).await;
    for figure in [
        "Commits\n3",
        "Authors\n2",
        "Files changed\n2",
        "Files that change together",
    ] {
        assert!(page.contains(figure), "{figure} in {page}");
    }
    open_details(&browser).await;
    browser.screenshot(&artifacts().join("export.png")).await;
    browser.quit().await;
}

#[tokio::test]
async fn public_pages_can_require_signing_in() {
    let gh = fake().await;
    let dir = tempfile::tempdir().unwrap();
    let base = serve_pages(
        &gh,
        seeded_store(dir.path()),
        &[("GITLORE_WEB_PUBLIC", "false")],
    )
    .await;
    let http = reqwest::Client::new();
    let page = http
        .get(format!("{base}/repos/{PUBLIC_REPO}"))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 404);
    assert!(!page.text().await.unwrap().contains(PUBLIC_FINDING));
    let index = http.get(format!("{base}/")).send().await.unwrap();
    assert!(!index.text().await.unwrap().contains(PUBLIC_REPO));
    let start = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(format!("{base}/auth/github?next=/repos/{PUBLIC_REPO}"))
        .send()
        .await
        .unwrap();
    assert_eq!(start.status(), 303);
    let location = start.headers()["location"].to_str().unwrap();
    assert!(
        location.starts_with(&format!(
            "{}/login/oauth/authorize?client_id={CLIENT_ID}",
            gh.origin()
        )),
        "{location}"
    );
    assert!(location.contains("state="), "{location}");
    let cookie = start.headers()["set-cookie"].to_str().unwrap();
    for flag in ["HttpOnly", "Secure", "SameSite=Lax"] {
        assert!(cookie.contains(flag), "{cookie}");
    }
}
