//! Sign-in sessions across replicas: two instances of the web pages, each with its own `Store` on
//! one database (a SQLite file, or PostgreSQL with `GITLORE_TEST_BACKEND=postgres`), behind one
//! public URL as replicas behind a load balancer are, signing in with the fake GitHub's OAuth
//! client over plain HTTP. A sign-in started on one replica finishes on the other; the session
//! it starts is read by the first, which shows the person what GitHub lets them read; signing
//! out on one ends it on both. The database holds neither the session id nor the token.

mod common;
mod fake_github;

use std::collections::HashMap;
use std::sync::Arc;

use common::backend::fresh_store;
use fake_github::{FakeGitHub, Role};
use gitlore::clock::SystemClock;
use gitlore::config::Settings;
use gitlore::domain::{InstallationId, Repo, RepoId, RepoName};
use gitlore::events::Installation;
use gitlore::store::{Store, repos};
use gitlore::web::{self, WebState};
use reqwest::header::{COOKIE, LOCATION, SET_COOKIE};
use tokio::net::TcpListener;

const CLIENT_ID: &str = "Iv1.sessions";
const CLIENT_SECRET: &str = "oauth-client-secret";
const PRIVATE_REPO: &str = "acme/vault";

/// The fake GitHub with the App's OAuth client; alice may read the private repository.
async fn fake() -> FakeGitHub {
    let gh = FakeGitHub::start().await;
    gh.with_test_app(4242, "gitlore");
    gh.seed(|m| {
        m.set_oauth_client(CLIENT_ID, CLIENT_SECRET);
        m.add_installation(77, "acme", &[PRIVATE_REPO]);
        m.set_role(PRIVATE_REPO, "alice", Role::Read);
    });
    gh
}

fn seed(store: &Store) {
    store
        .write(|tx| {
            let installation = Installation {
                id: InstallationId(77),
                account_login: Some("acme".into()),
                account_type: Some("Organization".into()),
            };
            repos::upsert_installation(tx, &installation, false)?;
            let repo = Repo {
                id: RepoId(501),
                name: RepoName::parse(PRIVATE_REPO).unwrap(),
                default_branch: Some("main".into()),
                private: true,
            };
            repos::upsert_repo(tx, &repo, Some(InstallationId(77)), true)
        })
        .unwrap();
}

/// The pages over `store` on `listener`, configured as every replica is: one public URL, one
/// App key (which signs the cookies).
fn serve(gh: &FakeGitHub, store: Arc<Store>, listener: TcpListener, public_url: &str) {
    let key = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/test-app-key.pem"
    );
    let vars: HashMap<&str, String> = [
        ("GITLORE_APP_ID", "4242".to_string()),
        ("GITLORE_PRIVATE_KEY_PATH", key.to_string()),
        ("GITLORE_WEBHOOK_SECRET", "whsec".to_string()),
        ("GITLORE_OAUTH_CLIENT_ID", CLIENT_ID.to_string()),
        ("GITLORE_OAUTH_CLIENT_SECRET", CLIENT_SECRET.to_string()),
        ("GITLORE_GITHUB_API_URL", gh.base_url()),
        ("GITLORE_PUBLIC_URL", public_url.to_string()),
    ]
    .into_iter()
    .collect();
    let settings = Settings::from_sources(None, &|name| vars.get(name).cloned()).unwrap();
    let state = WebState::new(&settings, store, Arc::new(SystemClock)).unwrap();
    tokio::spawn(async move {
        axum::serve(listener, web::router(state)).await.unwrap();
    });
}

async fn listen() -> (TcpListener, String) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    (listener, url)
}

/// The `name=value` of the cookie `name` a response sets.
fn set_cookie(response: &reqwest::Response, name: &str) -> String {
    response
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .find(|value| value.starts_with(&format!("{name}=")))
        .and_then(|value| value.split(';').next())
        .unwrap_or_else(|| panic!("no {name} cookie set: {:?}", response.headers()))
        .to_string()
}

fn location(response: &reqwest::Response) -> String {
    response.headers()[LOCATION].to_str().unwrap().to_string()
}

fn query_param(url: &str, name: &str) -> String {
    reqwest::Url::parse(url)
        .unwrap()
        .query_pairs()
        .find(|(key, _)| key == name)
        .unwrap_or_else(|| panic!("no {name} in {url}"))
        .1
        .into_owned()
}

fn count_sessions(store: &Store) -> i64 {
    store
        .reader()
        .unwrap()
        .query_row("SELECT count(*) FROM web_sessions", [], |row| row.get(0))
        .unwrap()
}

#[tokio::test]
async fn a_session_started_on_one_replica_is_served_and_ended_by_another() {
    let gh = fake().await;
    let dir = tempfile::tempdir().unwrap();
    let database = fresh_store(dir.path());
    seed(&database.store);
    let second_store = Arc::new(Store::open_database(&database.database).unwrap());
    let (listener_a, a) = listen().await;
    let (listener_b, b) = listen().await;
    // GitHub sends people back to the load balancer's address; here it is replica b.
    serve(&gh, database.store.clone(), listener_a, &b);
    serve(&gh, second_store.clone(), listener_b, &b);
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let index = |base: &str, cookie: Option<&str>| {
        let mut request = http.get(format!("{base}/"));
        if let Some(cookie) = cookie {
            request = request.header(COOKIE, cookie);
        }
        async move {
            let response = request.send().await.unwrap();
            assert_eq!(response.status(), 200);
            response.text().await.unwrap()
        }
    };
    assert!(!index(&a, None).await.contains(PRIVATE_REPO));

    // The sign-in starts on a, GitHub authorizes it, the callback lands on b.
    let start = http
        .get(format!("{a}/auth/github?next=/"))
        .send()
        .await
        .unwrap();
    assert_eq!(start.status(), 303);
    let authorize = location(&start);
    let sign_in_cookie = set_cookie(&start, "gitlore_signin");
    let authorized = http
        .post(format!("{}/login/oauth/authorize", gh.origin()))
        .form(&[
            ("client_id", CLIENT_ID.to_string()),
            ("redirect_uri", query_param(&authorize, "redirect_uri")),
            ("state", query_param(&authorize, "state")),
            ("login", "alice".to_string()),
        ])
        .send()
        .await
        .unwrap();
    let callback = location(&authorized);
    assert!(
        callback.starts_with(&format!("{b}/auth/callback?")),
        "{callback}"
    );
    let signed_in = http
        .get(&callback)
        .header(COOKIE, &sign_in_cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(
        signed_in.status(),
        303,
        "{}",
        signed_in.text().await.unwrap()
    );
    assert_eq!(location(&signed_in), "/");
    let session = set_cookie(&signed_in, "gitlore_session");

    // a reads the session b started, and asks GitHub with alice's token.
    let page = index(&a, Some(&session)).await;
    assert!(page.contains("Signed in as"), "{page}");
    assert!(
        page.contains("alice") && page.contains(PRIVATE_REPO),
        "{page}"
    );
    assert_eq!(count_sessions(&database.store), 1);
    let id = session
        .trim_start_matches("gitlore_session=")
        .split('.')
        .next()
        .unwrap();
    let (id_hash, login): (String, String) = second_store
        .reader()
        .unwrap()
        .query_row("SELECT id_hash, login FROM web_sessions", [], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .unwrap();
    assert_eq!(login, "alice");
    assert_eq!(id.len(), 64);
    assert_ne!(
        id_hash, id,
        "the database holds a hash of the id, not the id"
    );

    // Signing out on b, with the CSRF token a's page carries, ends the session on a too.
    let csrf = page
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a sign-out form with its CSRF token")
        .to_string();
    let signed_out = http
        .post(format!("{b}/signout"))
        .header(COOKIE, &session)
        .form(&[("csrf", csrf)])
        .send()
        .await
        .unwrap();
    assert_eq!(signed_out.status(), 303);
    assert_eq!(count_sessions(&database.store), 0);
    let page = index(&a, Some(&session)).await;
    assert!(
        !page.contains("Signed in as") && !page.contains(PRIVATE_REPO),
        "{page}"
    );
}
