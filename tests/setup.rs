//! `gitlore setup` against the fake GitHub's manifest conversion: the local page posts the
//! manifest with this run's callback and webhook URL, a callback with a wrong state writes
//! nothing, the right one writes a 0600 config that `Settings` reads and whose key works.

mod fake_github;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;

use fake_github::{FakeGitHub, ManifestConversion};
use gitlore::clock::SystemClock;
use gitlore::config::Settings;
use gitlore::domain::InstallationId;
use gitlore::github::auth::AppKey;
use gitlore::github::client::{GitHub, TokioPause};
use gitlore::setup::{self, SetupOptions};
use serde_json::Value;

const CODE: &str = "a180b1a3d263c81bc6441d7b990bae27d4c10679";
const NEW_APP_ID: i64 = 9001;
const WEBHOOK_URL: &str = "https://gitlore.acme.example/webhook";

async fn fake_with_code() -> FakeGitHub {
    let gh = FakeGitHub::start().await;
    gh.seed(|m| {
        m.add_manifest_code(
            CODE,
            ManifestConversion {
                app_id: NEW_APP_ID,
                slug: "gitlore-acme".to_string(),
                name: "gitlore (acme)".to_string(),
                owner: "acme".to_string(),
                pem: fake_github::test_private_key_pem(),
                public_key_pem: fake_github::test_public_key_pem(),
                webhook_secret: "whsec-from-github".to_string(),
                client_id: "Iv1.abc".to_string(),
                client_secret: "client-secret".to_string(),
            },
        );
        m.add_installation(31, "acme", &["acme/widgets"]);
    });
    gh
}

fn options(gh: &FakeGitHub, out: &Path, org: Option<&str>) -> SetupOptions {
    SetupOptions {
        org: org.map(str::to_string),
        api_url: gh.base_url(),
        port: 0,
        webhook_url: WEBHOOK_URL.to_string(),
        out: out.to_path_buf(),
        force: false,
    }
}

fn client(gh: &FakeGitHub) -> GitHub {
    GitHub::without_credentials(&gh.base_url(), Arc::new(SystemClock), Arc::new(TokioPause))
        .unwrap()
}

/// The value of the first `name="…"` attribute of the page, HTML entities decoded.
fn attribute(html: &str, name: &str) -> String {
    let start = html.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
    let end = start + html[start..].find('"').unwrap();
    html[start..end]
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

fn repo_manifest() -> Value {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/app-manifest.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[tokio::test]
async fn setup_registers_the_app_and_writes_a_private_config() {
    let gh = fake_with_code().await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gitlore.toml");
    let running = setup::start(options(&gh, &out, None), client(&gh))
        .await
        .unwrap();
    let base = running.url().to_string();
    let http = reqwest::Client::new();

    let html = http
        .get(format!("{base}/"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let action = attribute(&html, "action");
    let prefix = format!("{}/settings/apps/new?state=", gh.origin());
    assert!(action.starts_with(&prefix), "{action}");
    let state = action[prefix.len()..].to_string();
    assert_eq!(state.len(), 64, "32 random bytes in hex");
    let manifest: Value = serde_json::from_str(&attribute(&html, "value")).unwrap();
    let expected = repo_manifest();
    assert_eq!(manifest["default_events"], expected["default_events"]);
    assert_eq!(
        manifest["default_permissions"],
        expected["default_permissions"]
    );
    assert_eq!(manifest["redirect_url"], format!("{base}/callback"));
    assert_eq!(manifest["hook_attributes"]["url"], WEBHOOK_URL);

    let wrong = http
        .get(format!("{base}/callback?code={CODE}&state=not-{state}"))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 400);
    assert!(!out.exists(), "nothing written on a wrong state");
    assert_eq!(
        gh.count("POST", "/app-manifests/"),
        0,
        "the code is not even exchanged"
    );

    let right = http
        .get(format!("{base}/callback?code={CODE}&state={state}"))
        .send()
        .await
        .unwrap();
    assert_eq!(right.status(), 200);
    let page = right.text().await.unwrap();
    let registered = running.finished().await.unwrap();
    let install_url = format!("{}/apps/gitlore-acme/installations/new", gh.origin());
    assert_eq!(registered.install_url, install_url);
    assert!(page.contains(&install_url), "the page says what to do next");
    assert!(!page.contains("whsec-from-github") && !page.contains("PRIVATE KEY"));

    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let settings = Settings::from_sources(Some(&out), &|_| None).unwrap();
    let credentials = settings.app_credentials().unwrap();
    assert_eq!(credentials.app_id, NEW_APP_ID);
    assert_eq!(credentials.webhook_secret.expose(), "whsec-from-github");
    assert_eq!(settings.github_api_url, gh.base_url());
    let oauth = settings
        .web
        .oauth
        .clone()
        .expect("the OAuth client is written");
    assert_eq!(
        (oauth.client_id.as_str(), oauth.client_secret.expose()),
        ("Iv1.abc", "client-secret")
    );
    assert!(!page.contains("client-secret"));
    assert_eq!(
        manifest["callback_urls"][0],
        format!("{}/auth/callback", WEBHOOK_URL.rsplit_once('/').unwrap().0)
    );

    // The written key signs JWTs GitHub accepts: an installation token comes back.
    let key = AppKey::new(credentials.app_id, &credentials.private_key).unwrap();
    let app = GitHub::new(
        &settings.github_api_url,
        key,
        Arc::new(SystemClock),
        Arc::new(TokioPause),
    )
    .unwrap();
    assert!(
        !app.installation_token(InstallationId(31))
            .await
            .unwrap()
            .expose()
            .is_empty()
    );
}

#[tokio::test]
async fn an_organisation_gets_its_form_and_an_existing_config_is_kept() {
    let gh = fake_with_code().await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gitlore.toml");
    let running = setup::start(options(&gh, &out, Some("acme")), client(&gh))
        .await
        .unwrap();
    let html = reqwest::get(format!("{}/", running.url()))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let action = attribute(&html, "action");
    assert!(
        action.starts_with(&format!(
            "{}/organizations/acme/settings/apps/new?state=",
            gh.origin()
        )),
        "{action}"
    );

    std::fs::write(&out, "app_id = 1\n").unwrap();
    let refused = setup::start(options(&gh, &out, None), client(&gh)).await;
    assert!(refused.is_err(), "an existing config is not replaced");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "app_id = 1\n");
    let forced = SetupOptions {
        force: true,
        ..options(&gh, &out, None)
    };
    assert!(setup::start(forced, client(&gh)).await.is_ok());
}

#[tokio::test]
async fn a_failed_exchange_never_shows_the_one_time_code() {
    let gh = fake_with_code().await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gitlore.toml");
    let running = setup::start(options(&gh, &out, None), client(&gh))
        .await
        .unwrap();
    let base = running.url().to_string();
    let html = reqwest::get(format!("{base}/"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let action = attribute(&html, "action");
    let state = action.rsplit("state=").next().unwrap().to_string();
    let unknown = "b290c2b4e374d92cd7552e8c0a1cbf38e5d21780";
    let answer = reqwest::get(format!("{base}/callback?code={unknown}&state={state}"))
        .await
        .unwrap();
    assert_eq!(answer.status(), 502);
    let page = answer.text().await.unwrap();
    assert!(page.contains("Setup failed"), "{page}");
    assert!(!page.contains(unknown), "{page}");
    assert!(!out.exists());
}

#[tokio::test]
async fn a_webhook_url_that_is_not_an_absolute_web_url_is_refused() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gitlore.toml");
    for bad in [
        "gitlore.acme.example/webhook",
        "ftp://gitlore.acme.example/webhook",
        "https://",
        "https://gitlore.acme.example/web hook",
    ] {
        let options = SetupOptions {
            webhook_url: bad.to_string(),
            ..options(&gh, &out, None)
        };
        let refused = setup::start(options, client(&gh)).await;
        let error = format!("{:#}", refused.err().expect(bad));
        assert!(error.contains("--webhook-url"), "{error}");
    }
}
