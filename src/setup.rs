//! `gitlore setup` (behaviour §8): registers the GitHub App through GitHub's manifest flow. A local
//! page (127.0.0.1 only) posts `app-manifest.json` to GitHub's new-App page with a random
//! `state`; GitHub redirects the browser back to `/callback` with a one-time code and that
//! state; the code is exchanged (`POST /app-manifests/{code}/conversions`) for the App's id,
//! private key and webhook secret, which are written to the config file with mode 0600. A
//! callback with another state is refused and writes nothing. Secrets are never printed or
//! logged.

mod config_file;
pub mod manifest;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Html;
use axum::routing::get;
use serde::Deserialize;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::clock::SystemClock;
use crate::config::Settings;
use crate::domain::github_web::web_url;
use crate::github::client::{GitHub, TokioPause};

/// Bytes of randomness in the `state` that ties GitHub's redirect to this run.
const STATE_BYTES: usize = 32;
/// How long the server may take to finish its last answers after the App is registered.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// `gitlore setup`'s command line.
#[derive(Debug, Clone, clap::Args)]
pub struct SetupArgs {
    /// Register the App for this organisation instead of your own account.
    #[arg(long, value_name = "ORG")]
    pub org: Option<String>,
    /// The GitHub REST API URL (GitHub Enterprise Server: https://HOST/api/v3); default: the
    /// configured one, else https://api.github.com.
    #[arg(long, value_name = "URL")]
    pub github_url: Option<String>,
    /// The local port of the setup page (default: any free port).
    #[arg(long, value_name = "N")]
    pub port: Option<u16>,
    /// Where GitHub sends webhooks (default: the configured public URL + webhook path).
    #[arg(long, value_name = "URL")]
    pub webhook_url: Option<String>,
    /// The config file to write.
    #[arg(long, value_name = "FILE", default_value = "gitlore.toml")]
    pub out: PathBuf,
    /// Replace the config file if it exists.
    #[arg(long)]
    pub force: bool,
}

/// What `gitlore setup` was asked to do.
#[derive(Debug, Clone)]
pub struct SetupOptions {
    /// Register the App for this organisation instead of the signed-in user.
    pub org: Option<String>,
    /// The REST API base URL; GitHub's web address is derived from it.
    pub api_url: String,
    /// The local port of the page; 0 picks a free one.
    pub port: u16,
    /// Where GitHub will send webhooks.
    pub webhook_url: String,
    /// The config file to write.
    pub out: PathBuf,
    /// Replace `out` if it exists.
    pub force: bool,
}

/// The registered App, once its credentials are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registered {
    pub app_id: i64,
    pub slug: String,
    /// Where the App is installed on accounts and repositories.
    pub install_url: String,
    pub config: PathBuf,
}

/// The local page, serving until the App is registered.
pub struct RunningSetup {
    url: String,
    registered: oneshot::Receiver<Registered>,
    shutdown: Option<oneshot::Sender<()>>,
    server: JoinHandle<()>,
}

struct Flow {
    github: GitHub,
    /// The page's own address.
    url: String,
    options: SetupOptions,
    state: String,
    page: String,
    /// Taken by the one callback that registers the App; one exchange runs at a time.
    done: tokio::sync::Mutex<Option<oneshot::Sender<Registered>>>,
}

#[derive(Deserialize)]
struct Callback {
    code: Option<String>,
    state: Option<String>,
}

/// Starts the local page. Fails at once if `options.out` exists (without `force`) or the
/// options are unusable, before anything is registered.
pub async fn start(options: SetupOptions, github: GitHub) -> Result<RunningSetup> {
    check_webhook_url(&options.webhook_url)?;
    config_file::check_writable(&options.out, options.force)?;
    let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, options.port))
        .await
        .with_context(|| format!("Cannot listen on 127.0.0.1:{}", options.port))?;
    let address: SocketAddr = listener
        .local_addr()
        .context("Cannot read the local page's address")?;
    let url = format!("http://{address}");
    let state = random_state()?;
    let manifest = manifest::manifest(&format!("{url}/callback"), &options.webhook_url)?;
    let target = manifest::form_target(&web_url(&options.api_url), options.org.as_deref(), &state)?;
    let (registered_tx, registered) = oneshot::channel();
    let flow = Arc::new(Flow {
        github,
        page: manifest::page(&target, &manifest),
        url: url.clone(),
        options,
        state,
        done: tokio::sync::Mutex::new(Some(registered_tx)),
    });
    let router = axum::Router::new()
        .route("/", get(page))
        .route("/callback", get(callback))
        .with_state(flow);
    let (shutdown_tx, shutdown_rx) = oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        let served = axum::serve(listener, router)
            .with_graceful_shutdown(async {
                let _ = shutdown_rx.await;
            })
            .await;
        if let Err(error) = served {
            tracing::error!(%error, "the setup page stopped");
        }
    });
    Ok(RunningSetup {
        url,
        registered,
        shutdown: Some(shutdown_tx),
        server,
    })
}

impl RunningSetup {
    /// The page to open in a browser.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Waits until the App is registered and its config written, then stops the page.
    pub async fn finished(mut self) -> Result<Registered> {
        let registered = (&mut self.registered)
            .await
            .context("The setup page stopped before the App was registered")?;
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if tokio::time::timeout(SHUTDOWN_GRACE, &mut self.server)
            .await
            .is_err()
        {
            self.server.abort();
        }
        Ok(registered)
    }
}

/// `gitlore setup`: serves the page, waits for GitHub's redirect, writes the config and says
/// what to do next.
pub fn run(settings: &Settings, args: SetupArgs) -> Result<()> {
    let webhook_url = match (args.webhook_url, &settings.public_url) {
        (Some(url), _) => url,
        (None, Some(public)) => {
            format!("{}{}", public.trim_end_matches('/'), settings.webhook_path)
        }
        (None, None) => anyhow::bail!(
            "Where should GitHub send webhooks? Pass --webhook-url https://your-host/webhook (or set GITLORE_PUBLIC_URL)"
        ),
    };
    let options = SetupOptions {
        org: args.org,
        api_url: args
            .github_url
            .unwrap_or_else(|| settings.github_api_url.clone()),
        port: args.port.unwrap_or(0),
        webhook_url,
        out: args.out,
        force: args.force,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("Cannot start the async runtime")?;
    runtime.block_on(async {
        let github = GitHub::without_credentials(
            &options.api_url,
            Arc::new(SystemClock),
            Arc::new(TokioPause),
        )?;
        let running = start(options, github).await?;
        println!(
            "Open {} in a browser signed in to GitHub and press \"Create the App on GitHub\".",
            running.url()
        );
        let registered = running.finished().await?;
        println!(
            "Registered the GitHub App {} (id {}); its id, private key and webhook secret are in {} (mode 0600).",
            registered.slug,
            registered.app_id,
            registered.config.display()
        );
        println!(
            "Next: install it on your repositories at {}, then run `gitlore serve --config {}`.",
            registered.install_url,
            registered.config.display()
        );
        Ok(())
    })
}

async fn page(State(flow): State<Arc<Flow>>) -> Html<String> {
    Html(flow.page.clone())
}

async fn callback(
    State(flow): State<Arc<Flow>>,
    Query(answer): Query<Callback>,
) -> (StatusCode, Html<String>) {
    let reply =
        |status, title: &str, message: &str| (status, Html(manifest::message_page(title, message)));
    if answer.state.as_deref() != Some(flow.state.as_str()) {
        return reply(
            StatusCode::BAD_REQUEST,
            "Not this setup's answer",
            "The state does not match the one this page sent to GitHub; nothing was written.",
        );
    }
    let Some(code) = answer.code else {
        return reply(
            StatusCode::BAD_REQUEST,
            "No code",
            "GitHub's answer carries no code; nothing was written.",
        );
    };
    let mut done = flow.done.lock().await;
    if done.is_none() {
        return reply(
            StatusCode::GONE,
            "Already registered",
            "This setup has registered its App already.",
        );
    }
    match register(&flow, &code).await {
        Ok(registered) => {
            let message = format!(
                "Its credentials are in {}. Next, install the App: {}",
                registered.config.display(),
                registered.install_url
            );
            let title = format!("Registered {}", registered.slug);
            if let Some(sender) = done.take() {
                let _ = sender.send(registered);
            }
            reply(StatusCode::OK, &title, &message)
        }
        Err(error) => {
            tracing::error!(error = format!("{error:#}"), "gitlore setup failed");
            reply(
                StatusCode::BAD_GATEWAY,
                "Setup failed",
                &format!("{error:#}. Start again from {}/.", flow.url),
            )
        }
    }
}

/// Exchanges the code and writes the config. The code is a one-time credential: no error
/// shown or logged repeats it.
async fn register(flow: &Flow, code: &str) -> Result<Registered> {
    let app = flow
        .github
        .convert_manifest(code)
        .await
        .map_err(|error| anyhow::anyhow!("{}", format!("{error:#}").replace(code, "…")))?;
    let options = &flow.options;
    config_file::write(&options.out, &app, &options.api_url, options.force).with_context(|| {
        format!(
            "GitHub created the App {} but its credentials could not be saved; delete it at {}/advanced and run setup again",
            app.slug, app.html_url
        )
    })?;
    Ok(Registered {
        app_id: app.id,
        install_url: format!("{}/installations/new", app.html_url),
        slug: app.slug,
        config: options.out.clone(),
    })
}

/// Refuses a webhook URL GitHub could not deliver to: it must be an absolute `https://` or
/// `http://` URL with a host, and no spaces.
fn check_webhook_url(url: &str) -> Result<()> {
    let host = ["https://", "http://"]
        .into_iter()
        .find_map(|scheme| url.strip_prefix(scheme))
        .map(|rest| rest.split(['/', '?', '#']).next().unwrap_or_default());
    let usable = host.is_some_and(|host| !host.is_empty() && !host.starts_with(':'))
        && !url.chars().any(|c| c.is_whitespace() || c.is_control());
    anyhow::ensure!(
        usable,
        "--webhook-url {url:?} is not a URL GitHub can deliver to; pass an absolute one such as https://your-host/webhook"
    );
    Ok(())
}

/// A random hex string from the operating system's generator.
fn random_state() -> Result<String> {
    let mut bytes = [0u8; STATE_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("Cannot draw random bytes: {e}"))?;
    Ok(hex::encode(bytes))
}
