//! The `gitlore` command line.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Result;
use clap::{Parser, Subcommand};

use gitlore::clock::{Clock, SystemClock};
use gitlore::config::Settings;
use gitlore::log_sink::StderrSink;
use gitlore::store::{Database, Store, comments, deliveries};
use gitlore::{analyze, app, backfill_cli, replay, setup};

/// gitlore learns a team's tribal knowledge from pull-request reviews.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    /// A gitlore.toml with server settings (environment variables override it).
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the GitHub App: webhook receiver and worker.
    #[command(after_help = SERVE_ENVIRONMENT)]
    Serve,
    /// Feed saved webhook payloads (files or directories of `<event>.….json`) through ingestion.
    Replay {
        #[arg(required = true, value_name = "FILES|DIR")]
        paths: Vec<PathBuf>,
    },
    /// List failed deliveries, or put them back in the queue.
    Deliveries {
        #[command(subcommand)]
        action: Option<DeliveriesAction>,
    },
    /// Read a repository's review history of the window from GitHub into the store.
    Backfill {
        /// The repository, owner/name.
        #[arg(long, value_name = "OWNER/NAME")]
        repo: String,
        /// How many months back to read.
        #[arg(long, default_value_t = backfill_cli::DEFAULT_WINDOW_MONTHS)]
        window_months: u32,
        /// Read it again even if a backfill finished or is under way.
        #[arg(long)]
        force: bool,
    },
    /// Register the GitHub App from app-manifest.json and write its credentials to a config.
    Setup(setup::SetupArgs),
    /// Analyse a local git repository (and its review comments), or a bundled example (`--example`),
    /// and print the findings.
    Analyze(analyze::AnalyzeArgs),
    /// Write a repository's report from the store: for people, scripts or coding agents.
    Export(gitlore::export::ExportArgs),
    /// Print the lessons that apply to some paths, from the store or an export file.
    Lessons(gitlore::lessons::cli::LessonsArgs),
    /// Serve the lessons to coding agents: a Model Context Protocol server on stdio.
    Mcp(gitlore::lessons::cli::SourceArgs),
    /// Copy a store into another, empty one (SQLite to PostgreSQL, say), and check the counts.
    MigrateStore {
        /// The store to copy: `sqlite:PATH` (the `gitlore.db` of a data directory) or a
        /// `postgres://` URL.
        #[arg(long, value_name = "STORE")]
        from: String,
        /// The empty store to copy into: a `postgres://` URL or `sqlite:PATH`.
        #[arg(long, value_name = "STORE")]
        to: String,
    },
}

/// The settings `serve` reads from the environment (each overrides `--config`).
const SERVE_ENVIRONMENT: &str = "\
Environment (overrides --config):
  GITLORE_APP_ID              the GitHub App's id (Probot's APP_ID works too)
  GITLORE_PRIVATE_KEY         the App's PEM private key (or PRIVATE_KEY)
  GITLORE_PRIVATE_KEY_PATH    a file holding it instead (or PRIVATE_KEY_PATH)
  GITLORE_WEBHOOK_SECRET      the webhook secret (or WEBHOOK_SECRET)
  GITLORE_APP_SLUG            the App's slug, to tell its own comments
  GITLORE_LISTEN, PORT        where to listen (default 0.0.0.0:3000)
  GITLORE_WEBHOOK_PATH        the webhook's path (default /webhook)
  GITLORE_PUBLIC_URL          the public URL GitHub reaches gitlore at
  GITLORE_DATA_DIR            the store's directory (default ./gitlore-data)
  GITLORE_GITHUB_API_URL      GitHub's REST API (default https://api.github.com)
  GITLORE_LINK_REDIRECT_URL   a redirector for links on GitHub Enterprise Server
  GITLORE_BOT_LOGINS          more bot logins whose comments are noise, comma-separated
  GITLORE_WORKER_LEASE_SECS   how long a worker holds a delivery
  GITLORE_LOG                 the log filter (default info, e.g. warn,gitlore=debug)
  GITLORE_LOG_FORMAT          text or json
  GITLORE_LLM_PROVIDER        openai or anthropic, to use an LLM
  GITLORE_LLM_BASE_URL, GITLORE_LLM_MODEL, GITLORE_LLM_API_KEY
  GITLORE_LLM_TIMEOUT_SECS    how long one LLM request may take (default 120)
  GITLORE_LLM_MAX_TOKENS      most tokens of one LLM answer (default 4096)
  GITLORE_LLM_CONTEXT_TOKENS  the model's context window; prompts are cut to fit (default 128000)
  GITLORE_LLM_DAILY_TOKENS    LLM tokens per repository and day (default 1000000)
  GITLORE_EMBED_BASE_URL, GITLORE_EMBED_MODEL, GITLORE_EMBED_API_KEY
  GITLORE_OAUTH_CLIENT_ID, GITLORE_OAUTH_CLIENT_SECRET   the App's OAuth client, for signing in
  GITLORE_SESSION_SECRET      signs session cookies (default: derived from the private key)
  GITLORE_WEB_PUBLIC          false: public repositories' pages need signing in too";

#[derive(Debug, Subcommand)]
enum DeliveriesAction {
    /// Counts by state and the failed deliveries with their last error (the default).
    List,
    /// Re-queue failed deliveries: the ids given, or all with --all.
    Retry {
        #[arg(value_name = "DELIVERY_ID")]
        ids: Vec<String>,
        #[arg(long, conflicts_with = "ids")]
        all: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let settings = match Settings::load(cli.config.as_deref()) {
        Ok(settings) => settings,
        Err(error) => return fail(&error.into()),
    };
    // These commands print their own progress; the app's info logs would only bury it.
    let quiet = matches!(
        cli.command,
        Command::Analyze(_) | Command::Export(_) | Command::Lessons(_) | Command::Mcp(_)
    ) && std::env::var_os("GITLORE_LOG").is_none();
    let log = init_logging(&settings, if quiet { "warn" } else { &settings.log_filter });
    let code = match run(cli.command, settings) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            log.line(format!("error: {error:#}\n").as_bytes());
            ExitCode::FAILURE
        }
    };
    // Queued log lines (and the error) are written, unless stderr is not taking them.
    log.flush(LOG_FLUSH_TIME);
    code
}

/// How long an ending command waits for its last log lines to be written.
const LOG_FLUSH_TIME: std::time::Duration = std::time::Duration::from_secs(2);

fn run(command: Command, settings: Settings) -> Result<()> {
    match command {
        Command::Serve => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?
            .block_on(app::serve(settings)),
        Command::Replay { paths } => replay_files(&settings, &paths),
        Command::Deliveries { action } => deliveries_command(&settings, action),
        Command::Backfill {
            repo,
            window_months,
            force,
        } => backfill_cli::run(&settings, &repo, window_months, force),
        Command::Setup(args) => setup::run(&settings, args),
        Command::Analyze(args) => analyze::run(&settings, &args),
        Command::Export(args) => gitlore::export::run(&settings, &args),
        Command::Lessons(args) => gitlore::lessons::cli::run(&settings, &args),
        Command::Mcp(args) => gitlore::mcp::run(&settings, &args),
        Command::MigrateStore { from, to } => migrate_store(&settings, &from, &to),
    }
}

fn migrate_store(settings: &Settings, from: &str, to: &str) -> Result<()> {
    let from = store_argument(settings, "--from", from)?;
    if let Database::Sqlite(path) = &from {
        anyhow::ensure!(
            path.is_file(),
            "--from: there is no database at {}",
            path.display()
        );
    }
    let to = store_argument(settings, "--to", to)?;
    anyhow::ensure!(from != to, "--from and --to name the same store");
    let source = Store::open_database(&from)?;
    let target = Store::open_database(&to)?;
    let copied = gitlore::store::copy::copy(&source, &target)?;
    for (table, rows) in &copied {
        println!("{table:<22} {rows:>9}");
    }
    let total: i64 = copied.iter().map(|(_, rows)| rows).sum();
    println!(
        "Copied {total} rows from {} to {}; every table's count matches.",
        source.describe(),
        target.describe()
    );
    Ok(())
}

/// `sqlite:PATH` or a `postgres://` URL, as `migrate-store` takes them.
fn store_argument(settings: &Settings, flag: &str, value: &str) -> Result<Database> {
    if let Some(path) = value.strip_prefix("sqlite:") {
        return Ok(Database::Sqlite(PathBuf::from(path)));
    }
    if value.starts_with("postgres://") || value.starts_with("postgresql://") {
        return Ok(Database::Postgres {
            url: value.to_owned(),
            ca_file: settings.database_ca_file.clone(),
        });
    }
    anyhow::bail!("{flag} takes sqlite:PATH or a postgres:// URL")
}

fn replay_files(settings: &Settings, paths: &[PathBuf]) -> Result<()> {
    let store = Arc::new(Store::open_database(&settings.database())?);
    let worker = app::worker(settings, store.clone());
    let summary = replay::replay(&store, &worker, paths, SystemClock.now())?;
    let processed = summary.processed;
    println!(
        "replayed {} files: {} new deliveries, {} seen before",
        summary.files, summary.new, summary.duplicates
    );
    println!(
        "processed: {} applied, {} ignored, {} to retry, {} failed",
        processed.done, processed.ignored, processed.retried, processed.failed
    );
    let (all, live, analysable) = comments::counts(&store.reader()?)?;
    println!(
        "store {}: {all} comments ({live} live, {analysable} not noise)",
        store.describe()
    );
    let unapplied = processed.failed + processed.retried;
    anyhow::ensure!(
        unapplied == 0,
        "{} not applied; `gitlore deliveries` lists {} with the error",
        if unapplied == 1 {
            "1 delivery failed and was".to_string()
        } else {
            format!("{unapplied} deliveries failed and were")
        },
        if unapplied == 1 { "it" } else { "them" }
    );
    Ok(())
}

fn deliveries_command(settings: &Settings, action: Option<DeliveriesAction>) -> Result<()> {
    let store = Store::open_database(&settings.database())?;
    match action.unwrap_or(DeliveriesAction::List) {
        DeliveriesAction::List => {
            let reader = store.reader()?;
            let counts = deliveries::count_by_state(&reader)?;
            let summary: Vec<String> = counts.iter().map(|(s, n)| format!("{n} {s}")).collect();
            let mut listing = format!("deliveries: {}\n", summary.join(", "));
            for row in deliveries::list_failed(&reader)? {
                listing.push_str(&format!(
                    "{}  {}  attempts={}  error: {}\n",
                    row.id,
                    row.event,
                    row.attempts,
                    row.last_error.as_deref().unwrap_or("-")
                ));
            }
            // The list of failed deliveries can be long: `| head` is no error.
            gitlore::lessons::cli::print(&listing)?;
        }
        DeliveriesAction::Retry { ids, all } => {
            anyhow::ensure!(
                all || !ids.is_empty(),
                "name the deliveries to retry, or pass --all"
            );
            let reader = store.reader()?;
            for id in &ids {
                match deliveries::state_of(&reader, id)?.as_deref() {
                    Some("failed") => {}
                    Some(state) => {
                        anyhow::bail!("delivery {id} is {state}, not failed: nothing to retry")
                    }
                    None => anyhow::bail!(
                        "no delivery {id} in {}; `gitlore deliveries` lists the failed ones",
                        store.describe()
                    ),
                }
            }
            let now = SystemClock.now();
            let count = store.write(|tx| deliveries::retry_failed(tx, &ids, now))?;
            println!("{count} deliveries queued again; a running `gitlore serve` picks them up");
        }
    }
    Ok(())
}

/// Logs to standard error through the sink that never blocks; returns the sink.
fn init_logging(settings: &Settings, filter: &str) -> StderrSink {
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let sink = StderrSink::start(settings.log_json);
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(sink.clone())
        .log_internal_errors(false)
        .with_ansi(std::io::stderr().is_terminal());
    if settings.log_json {
        builder.json().init();
    } else {
        builder.init();
    }
    sink
}

/// Prints an error met before logging starts as one readable message (with its causes), never a
/// backtrace; the exit code says it failed even when stderr cannot be written.
fn fail(error: &anyhow::Error) -> ExitCode {
    let _ = writeln!(std::io::stderr(), "error: {error:#}");
    ExitCode::FAILURE
}
