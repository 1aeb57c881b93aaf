//! Wires the parts into the running app: store, worker thread, ingress writer, job runner,
//! scheduler, redelivery sweep, HTTP server (with the web pages); a part that stops unexpectedly
//! fails `/healthz` and ends `serve` with an error.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result};
use tracing::info;

use crate::clock::{Clock, SystemClock};
use crate::config::Settings;
use crate::domain::github_web::web_url;
use crate::github::auth::AppKey;
use crate::github::client::{GitHub, TokioPause};
use crate::health::{Health, Vigil};
use crate::ingress::Ingress;
use crate::knowledge::embed::remote::RemoteEmbedder;
use crate::knowledge::filter::NoiseRules;
use crate::llm::LlmClient;
use crate::publish;
use crate::redelivery::{self, SweepSettings};
use crate::runner::{HistorySource, Models, Runner, RunnerSettings};
use crate::scheduler;
use crate::server::{self, AppState};
use crate::store::Store;
use crate::web;
use crate::worker::{Signal, Worker};

/// How often the WAL is checkpointed while serving: often enough that the WAL stays small
/// (a few MB at thousands of deliveries per second), rarely enough to cost nothing.
const CHECKPOINT_INTERVAL: Duration = Duration::from_millis(200);
/// How long a shutdown waits for running jobs (a long backfill is interrupted and resumes).
const JOBS_GRACE: Duration = Duration::from_secs(20);
/// How often the scheduler looks for repositories to analyse again.
const SCHEDULER_PERIOD: Duration = Duration::from_secs(60);

/// The noise rules the settings describe.
pub fn noise_rules(settings: &Settings) -> NoiseRules {
    NoiseRules::new(
        settings.app_id,
        settings.app_slug.as_deref(),
        &settings.bot_logins,
    )
    .with_switches(settings.noise_rules_off.clone())
}

/// A worker over `store` with the settings' rules, on the real clock.
pub fn worker(settings: &Settings, store: Arc<Store>) -> Worker {
    Worker::new(
        store,
        Arc::new(SystemClock),
        noise_rules(settings),
        settings.worker.clone(),
    )
}

/// The App's GitHub client.
pub fn github(settings: &Settings, clock: Arc<dyn Clock>) -> Result<GitHub> {
    let credentials = settings.app_credentials()?;
    let key = AppKey::new(credentials.app_id, &credentials.private_key)?;
    Ok(GitHub::new(
        &settings.github_api_url,
        key,
        clock,
        Arc::new(TokioPause),
    )?)
}

/// Asks GitHub whether it accepts the App's credentials (`GET /app`). Refused (a wrong App id or
/// key): one error line, and `/healthz` fails naming GitHub authentication. GitHub out of reach
/// is only a warning: the jobs' own calls say more later.
pub async fn check_credentials(github: &GitHub, health: &Health) {
    let app_id = github.app_id().unwrap_or_default();
    match github.app_slug().await {
        Ok(slug) => info!(app_id, "GitHub accepts the App credentials (App {slug})"),
        Err(error) if error.is_unauthorized() => {
            let said = match &error {
                crate::github::error::Error::Status { message, .. } => message.clone(),
                other => other.to_string(),
            };
            let reason = format!("GitHub refuses the App credentials (App id {app_id}): {said}");
            tracing::error!(
                "{reason}; check GITLORE_APP_ID and the private key: nothing reaches GitHub until they match the App's"
            );
            health.github_auth_failed(&reason);
        }
        Err(error) => {
            tracing::warn!(error = %error, "cannot check the App credentials with GitHub")
        }
    }
}

/// The job runner of `serve`: the App's client, the settings' links and models.
pub fn runner(
    settings: &Settings,
    store: Arc<Store>,
    clock: Arc<dyn Clock>,
    github: Arc<GitHub>,
) -> Result<Runner> {
    let models = Models {
        llm: settings.llm.clone().map(LlmClient::new).transpose()?,
        embedder: settings
            .embed
            .clone()
            .map(RemoteEmbedder::new)
            .transpose()?,
    };
    let links = publish::link_style(
        &settings.github_api_url,
        settings.link_redirect_url.as_deref(),
    );
    Ok(Runner::new(
        store,
        github,
        clock,
        Arc::new(noise_rules(settings)),
        links,
        models,
        RunnerSettings {
            history: Some(HistorySource {
                data_dir: settings.data_dir.clone(),
                remote_base: web_url(&settings.github_api_url),
            }),
            lease: settings.job_lease,
            public_url: settings.public_url.clone(),
            ..RunnerSettings::default()
        },
    ))
}

/// `gitlore serve`: runs until SIGINT or SIGTERM, then stops accepting, lets the writer finish
/// what it was given, the worker finish its batch and the job runner its jobs.
pub async fn serve(settings: Settings) -> Result<()> {
    let credentials = settings.app_credentials()?;
    let shutdown = shutdown_signal();
    let store = Arc::new(Store::open_database(&settings.database())?);
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let health = Arc::new(Health::default());
    let signal = Arc::new(Signal::default());
    let stop_checkpoints = Arc::new(AtomicBool::new(false));
    let checkpointer = store.start_checkpointer(CHECKPOINT_INTERVAL, stop_checkpoints.clone())?;
    let worker_thread = start_worker(
        worker(&settings, store.clone()),
        signal.clone(),
        health.watch("delivery worker"),
    )?;
    let (ingress, writer_thread) = Ingress::start(
        store.clone(),
        clock.clone(),
        signal.clone(),
        health.watch("ingress writer"),
    )?;
    let github = Arc::new(github(&settings, clock.clone())?);
    let runner = runner(&settings, store.clone(), clock.clone(), github.clone())?;
    let state = AppState {
        webhook_secret: Arc::new(credentials.webhook_secret),
        ingress,
        store: store.clone(),
        health: health.clone(),
    };
    let pages = web::WebState::new(&settings, store.clone(), clock.clone())?;
    let app = server::router(state, &settings.webhook_path).merge(web::router(pages));
    let listener = tokio::net::TcpListener::bind(settings.listen)
        .await
        .with_context(|| format!("Cannot listen on {}", settings.listen))?;
    tokio::spawn({
        let health = health.clone();
        let github = github.clone();
        async move { check_credentials(&github, &health).await }
    });
    let (stop_jobs, jobs_stopped) = tokio::sync::watch::channel(false);
    let runner_task = tokio::spawn({
        let stop = jobs_stopped.clone();
        let vigil = health.watch("job runner");
        async move {
            runner.run(stop).await;
            drop(vigil);
        }
    });
    let sweep_task = tokio::spawn({
        let vigil = health.watch("redelivery sweep");
        let sweeps = redelivery::run(
            store.clone(),
            github,
            clock.clone(),
            SweepSettings {
                period: settings.redelivery_sweep,
                ..SweepSettings::default()
            },
            jobs_stopped.clone(),
        );
        async move {
            sweeps.await;
            drop(vigil);
        }
    });
    let scheduler_task = tokio::spawn({
        let vigil = health.watch("scheduler");
        let scheduled = scheduler::run(
            store.clone(),
            clock,
            SCHEDULER_PERIOD,
            settings.data_dir.clone(),
            jobs_stopped,
        );
        async move {
            scheduled.await;
            drop(vigil);
        }
    });
    info!(
        listen = %settings.listen,
        webhook = format!("{}{}", settings.public_url.as_deref().unwrap_or(""), settings.webhook_path),
        app_id = credentials.app_id,
        database = %store.describe(),
        "gitlore is serving"
    );
    let stop_serving = {
        let health = health.clone();
        async move {
            tokio::select! {
                // Marked at once: the writer ends as soon as the server drops its sender.
                () = shutdown => health.stopping(),
                () = health.failure() => {}
            }
        }
    };
    server::serve(listener, app, server::MAX_CONNECTIONS, stop_serving).await;
    health.stopping();
    let dead = health.dead();
    if dead.is_empty() {
        info!("shutting down");
    } else {
        tracing::error!(
            stopped = dead.join(", "),
            "a part of gitlore stopped: shutting down"
        );
    }
    let _ = stop_jobs.send(true);
    let jobs_done = async { (runner_task.await, scheduler_task.await, sweep_task.await) };
    match tokio::time::timeout(JOBS_GRACE, jobs_done).await {
        Ok((Ok(()), Ok(()), Ok(()))) => {}
        Ok(_) => tracing::error!("the job runner, the scheduler or the redelivery sweep panicked"),
        Err(_) => tracing::warn!(
            "jobs still running were interrupted; they run again once their lease runs out"
        ),
    }
    // The router (and with it the last ingress handle) is gone: the writer drains and ends.
    join(writer_thread, "ingress writer");
    signal.stop();
    join(worker_thread, "worker");
    stop_checkpoints.store(true, Ordering::SeqCst);
    if let Some(checkpointer) = checkpointer {
        join(checkpointer, "checkpointer");
    }
    anyhow::ensure!(
        dead.is_empty(),
        "gitlore stopped because its {} stopped unexpectedly",
        dead.join(" and ")
    );
    Ok(())
}

fn start_worker(worker: Worker, signal: Arc<Signal>, vigil: Vigil) -> Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("delivery-worker".into())
        .spawn(move || {
            let _vigil = vigil;
            worker.run(&signal);
        })
        .context("Cannot start the delivery worker thread")
}

fn join(thread: JoinHandle<()>, name: &str) {
    if thread.join().is_err() {
        tracing::error!("the {name} thread panicked");
    }
}

/// Resolves on SIGINT or SIGTERM. The handlers are installed when this is called, not when the
/// future is first polled, so a signal that arrives while the server is still starting up is not
/// lost (nor does it kill the process with the default action).
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let mut terminate =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let ctrl_c = tokio::signal::ctrl_c();
    async move {
        #[cfg(unix)]
        let terminate = async {
            match terminate.as_mut() {
                Some(stream) => {
                    stream.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        #[cfg(not(unix))]
        let terminate = std::future::pending::<()>();
        tokio::select! {
            _ = ctrl_c => {},
            () = terminate => {},
        }
    }
}
