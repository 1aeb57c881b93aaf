//! `gitlore analyze [PATH]`: the whole analysis on a local repository, without a GitHub App.
//!
//! A store (in a temporary directory unless `--data-dir` is given) receives the review comments
//! — a `--reviews` file through `ingest` (noise filter and classification, as webhooks), or a
//! repository's pull requests through the backfill with `GITHUB_TOKEN` — and the git history of
//! PATH; `analysis::run` then finds themes and findings in the window that ends at the input's
//! newest commit or comment, and the findings are printed as markdown, JSON or XML on stdout.
//! Progress goes to stderr. `--example NAME` analyses a bundled project's comments instead
//! ([`example`]), without a repository.

pub mod example;
pub mod github;
pub mod history_notes;
mod history_progress;
pub mod json;
pub mod markdown;
pub mod report;
pub mod repository;
pub mod reviews;
pub mod xml;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::analysis::theme_run::Models;
use crate::analysis::{self, Request};
use crate::app;
use crate::clock::{Clock, SystemClock};
use crate::config::Settings;
use crate::domain::Secret;
use crate::domain::{Repo, RepoId, RepoName, UnixMs};
use crate::export::{self, Format};
use crate::ingest::{self, Memo};
use crate::knowledge::embed::remote::RemoteEmbedder;
use crate::knowledge::exclude::Exclusions;
use crate::knowledge::history::HistoryReport;
use crate::lessons;
use crate::llm::LlmClient;
use crate::render::links::LinkStyle;
use crate::render::wording::{count, utc_day};
use crate::repo_config::{self, Resolved};
use crate::store::inputs::{self, InputComment};
use crate::store::report::{self as store_report, AnalysedRepo};
use crate::store::{self, Store, repos};
use example::Example;
use markdown::WebHome;
use report::Report;
use reviews::Reviews;

/// The repository's own configuration file, read from PATH's working tree when present.
const CONFIG_FILE: &str = ".github/gitlore.toml";

/// The arguments of `gitlore analyze`.
#[derive(Debug, clap::Args)]
pub struct AnalyzeArgs {
    /// The git repository to analyse.
    #[arg(default_value = ".", value_name = "PATH")]
    pub path: PathBuf,
    /// Review comments to analyse with the history: JSON Lines, one comment per line.
    #[arg(long, value_name = "FILE", conflicts_with = "github")]
    pub reviews: Option<PathBuf>,
    /// Read the review comments of this GitHub repository, with the token in GITHUB_TOKEN.
    #[arg(long, value_name = "OWNER/NAME")]
    pub github: Option<String>,
    /// Analyse a bundled example instead of PATH: real review comments of a public project,
    /// offline, with the built-in components.
    #[arg(long, value_enum, value_name = "NAME", conflicts_with_all = ["path", "reviews", "github"])]
    pub example: Option<Example>,
    /// With --example: a capable model's recorded answers to gitlore's requests, replayed from
    /// this folder (`tests/fixtures/cassettes`), to show what the LLM path finds; the output says
    /// they are recorded, not live.
    #[arg(long, value_name = "DIR", requires = "example")]
    pub recorded: Option<PathBuf>,
    /// How many months of review comments count, back from the newest commit or comment
    /// (default: the repository's .github/gitlore.toml, else 12; 0 = everything).
    #[arg(long, value_name = "N")]
    pub window_months: Option<u32>,
    /// How the findings are printed: `md` is the findings issue's body, `json` and `xml` cite
    /// comments by the input's ids; the other formats are `gitlore export`'s.
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,
    /// The file to write (for `copilot` and `cursor`: the repository's root, see
    /// `gitlore export --help`); stdout by default.
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Keep the store in this directory (a temporary one, removed at exit, by default).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
}

/// Where the review comments come from, checked before any work starts.
enum Input {
    /// The history alone.
    HistoryOnly,
    /// A `--reviews` file and its bytes.
    Reviews { file: PathBuf, text: Vec<u8> },
    /// `--github`, with the token.
    GitHub { repo: RepoName, token: Secret },
    /// `--example`: a bundled project's comments, no repository.
    Example(Example),
}

/// The comments as loaded into the store, and how to name them in the output.
enum Loaded {
    HistoryOnly,
    Reviews(Box<Reviews>),
    GitHub,
}

impl Loaded {
    /// The input's id of a stored comment: the file's for `--reviews`, else GitHub's.
    fn input_id(&self, comment: &InputComment) -> String {
        let from_file = match self {
            Loaded::Reviews(reviews) => reviews.input_id(comment.kind, comment.github_id),
            Loaded::HistoryOnly | Loaded::GitHub => None,
        };
        from_file.map_or_else(|| comment.github_id.to_string(), str::to_string)
    }
}

/// Runs the command: prints the findings on stdout, progress on stderr.
pub fn run(settings: &Settings, args: &AnalyzeArgs) -> Result<()> {
    let started = Instant::now();
    let path = args.path.as_path();
    let input = read_input(args)?;
    let example = match input {
        Input::Example(example) => Some(example),
        _ => None,
    };
    if example.is_none() {
        repository::check(path)?;
    }
    let (_temporary, data_dir) = data_dir(args.data_dir.as_deref())?;
    let store = Arc::new(Store::open(&store::database_path(&data_dir))?);
    let local = match example {
        Some(_) => repo_config::resolve(None, None),
        None => local_config(path),
    };
    if example.is_none()
        && path.join(CONFIG_FILE).exists()
        && repository::has_uncommitted_changes(path, CONFIG_FILE)
    {
        eprintln!(
            "analyze: {CONFIG_FILE} differs from the last commit: this run applies the working \
             tree's version (the App reads the one on the default branch)"
        );
    }
    let mut config = local.config;
    if example.is_some() {
        // The example's comments span years: all of them count.
        config.analysis.window_months = 0;
    }
    if let Some(months) = args.window_months {
        config.analysis.window_months = months;
    }
    let now = SystemClock.now().as_secs();
    let newest_commit = match example {
        Some(_) => None,
        None => repository::newest_commit_at(path)?,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("Cannot start the async runtime")?;
    // HTTP clients are built inside the runtime: they start tasks of their own.
    let _runtime = runtime.enter();

    let (directory_repo, origin) = match example {
        Some(example) => (example.local_repo(), Some(example.local_repo().name)),
        None => (
            reviews::local_repo(&repository::directory_name(path)),
            repository::github_origin(path),
        ),
    };
    let (web, display_name) = match &input {
        Input::GitHub { repo, .. } => (
            Some(WebHome::for_api(&settings.github_api_url)),
            repo.clone(),
        ),
        _ => match origin {
            Some(name) => (Some(WebHome::github_com()), name),
            None => (None, directory_repo.name.clone()),
        },
    };
    if let Some(dir) = &args.data_dir {
        check_store_holds_only(&store, dir, &display_name, &directory_repo.name)?;
    }
    let local_repo = reviews::repo_named(display_name.clone());
    let (repo_id, loaded) = match input {
        Input::GitHub { repo, token } => {
            let months = github::backfill_months(config.analysis.window_months, newest_commit, now);
            let id = runtime.block_on(github::backfill(
                settings,
                store.clone(),
                &repo,
                token,
                months,
            ))?;
            (id, Loaded::GitHub)
        }
        Input::Reviews { file, text } => {
            let reviews = reviews::parse(&text, &local_repo)
                .with_context(|| format!("{} is not a reviews file", file.display()))?;
            let reviews =
                store_reviews(settings, &store, &local_repo, reviews, newest_commit, now)?;
            eprintln!(
                "analyze: {} review comments read from {}",
                reviews.events.len(),
                file.display()
            );
            (local_repo.id, Loaded::Reviews(Box::new(reviews)))
        }
        Input::Example(example) => {
            let reviews = reviews::parse(example.reviews().as_bytes(), &local_repo)?;
            let reviews = store_reviews(settings, &store, &local_repo, reviews, None, now)?;
            eprintln!(
                "analyze: the bundled example, {} review comments of {}",
                reviews.events.len(),
                example.repo()
            );
            (local_repo.id, Loaded::Reviews(Box::new(reviews)))
        }
        Input::HistoryOnly => {
            store.write_derived(|tx| repos::upsert_repo(tx, &local_repo, None, false))?;
            (local_repo.id, Loaded::HistoryOnly)
        }
    };

    let history = match example {
        Some(_) => HistoryReport::default(),
        None => read_history(&store, repo_id, path)?,
    };

    let newest_comment = inputs::newest_comment_at(&store.reader()?, repo_id)?;
    // The example runs the built-in components alone, or a model's recorded answers: the same
    // findings on every machine.
    let (llm, embedder) = match example {
        Some(_) => match &args.recorded {
            Some(dir) => (Some(runtime.block_on(example::recorded_model(dir))?), None),
            None => (None, None),
        },
        None => (
            settings.llm.clone().map(LlmClient::new).transpose()?,
            settings
                .embed
                .clone()
                .map(RemoteEmbedder::new)
                .transpose()?,
        ),
    };
    let rules = app::noise_rules(settings);
    let request = Request {
        repo_id,
        repo: display_name.as_str(),
        config: &config,
        history: &history,
        repo_path: example.is_none().then_some(path),
        now: UnixMs::from_secs(now),
        window_end: newest_comment.max(newest_commit).unwrap_or(now),
        models: Models {
            llm: llm.as_ref(),
            embedder: embedder.as_ref(),
        },
        rules: &rules,
    };
    eprintln!("analyze: finding themes and writing findings");
    let analysed_at = Instant::now();
    let outcome = runtime.block_on(analysis::run(&store, &request))?;
    let comments = inputs::list(&store.reader()?, repo_id)?;
    let noise = comments.iter().filter(|c| c.noise.is_some()).count();
    eprintln!(
        "analyze: {}, {} from {}{} of {} in {:.1} s ({:.1} s in all)",
        count(outcome.themes.themes.len(), "theme", "themes"),
        count(outcome.listing.active.len(), "finding", "findings"),
        count(outcome.comments.len(), "review comment", "review comments"),
        match noise {
            0 => String::new(),
            n => format!(" ({n} more set aside as noise)"),
        },
        window_words(&outcome.window),
        analysed_at.elapsed().as_secs_f64(),
        started.elapsed().as_secs_f64()
    );

    let input_ids: HashMap<i64, String> = comments
        .iter()
        .map(|c| (c.id, loaded.input_id(c)))
        .collect();
    let report = Report {
        outcome: &outcome,
        comments: &comments,
        input_ids: &input_ids,
    };
    let output = match args.format {
        Format::Md => markdown::render(
            &report,
            &markdown::Context {
                repo: &display_name,
                web: web.as_ref(),
                window_months: config.analysis.window_months,
                now,
                head: history.head.as_deref(),
                config_problems: &local.problems,
                notes: match example {
                    Some(example) => vec![example.note(comments.len(), args.recorded.as_deref())],
                    None if outcome.comments.is_empty() => {
                        let exclusions = Exclusions::from_config(&config.analysis);
                        history_notes::notes(&exclusions.filter_history(&history))
                    }
                    None => Vec::new(),
                },
            },
        ),
        Format::Json => json::render(&report)?,
        Format::Xml => xml::render(&report),
        other => {
            let conn = store.reader()?;
            let stored = AnalysedRepo {
                id: repo_id,
                full_name: display_name.to_string(),
                run_at: store_report::last_run_at(&conn, repo_id)?.unwrap_or(now),
            };
            let base = web.as_ref().map(|web| web.base.as_str());
            let mut report = lessons::report::load(&conn, &stored, base)?;
            report.head = history.head.clone();
            let links = web.map_or_else(LinkStyle::github_com, |web| web.links);
            return export::write(&report, other, args.out.as_deref(), &links);
        }
    };
    let output = match (example, args.format) {
        (Some(_), Format::Md) => format!("{}\n\n{}", output.trim_end(), example::NEXT),
        _ => output,
    };
    match &args.out {
        Some(path) => {
            std::fs::write(path, output).with_context(|| format!("Cannot write {}", path.display()))
        }
        None => lessons::cli::print(&format!("{}\n", output.trim_end())),
    }
}

/// Reads the history of the repository at `path` into the store, saying how long it took.
fn read_history(store: &Store, repo_id: RepoId, path: &Path) -> Result<HistoryReport> {
    eprintln!("analyze: reading the git history of {}", path.display());
    let read_at = Instant::now();
    let history = history_progress::read(store, repo_id, path)?;
    eprintln!(
        "analyze: {} analysed ({} read from git) in {:.1} s",
        count(history.commits, "commit", "commits"),
        history.commits_read,
        read_at.elapsed().as_secs_f64()
    );
    if repository::is_shallow(path) {
        eprintln!(
            "analyze: warning: {} is a shallow clone, so the history figures see only its {}; \
             `git fetch --unshallow` there reads the whole history",
            path.display(),
            count(history.commits, "commit", "commits")
        );
    }
    Ok(history)
}

/// The review window as `analyze` states it: its dates, and the comments it left out.
fn window_words(window: &analysis::Window) -> String {
    let dates = match window.start {
        0 => format!("the whole history (to {})", utc_day(window.end)),
        start => format!("{} to {}", utc_day(start), utc_day(window.end)),
    };
    match window.left_out {
        0 => dates,
        n => format!("{dates}; {n} older left out (--window-months 0 reads them)"),
    }
}

/// Fails with one sentence naming both when the store in `dir` holds a repository other than
/// `repo`: a kept store belongs to the repository it was made for. `local` is what earlier
/// versions named a clone (`local/<directory>`), taken as the same repository: it is renamed.
fn check_store_holds_only(
    store: &Store,
    dir: &Path,
    repo: &RepoName,
    local: &RepoName,
) -> Result<()> {
    let held = repos::names(&store.reader()?)?;
    let same = |name: &String| {
        [repo, local]
            .iter()
            .any(|ours| name.eq_ignore_ascii_case(ours.as_str()))
    };
    match held.iter().find(|name| !same(name)) {
        None => Ok(()),
        Some(other) => bail!(
            "The data directory {} holds the analysis of {other}, not of {repo}: give each \
             repository its own --data-dir",
            dir.display()
        ),
    }
}

/// Checks the input arguments and reads what they name, before any work starts.
fn read_input(args: &AnalyzeArgs) -> Result<Input> {
    if let Some(example) = args.example {
        return Ok(Input::Example(example));
    }
    if let Some(name) = &args.github {
        let repo = RepoName::parse(name)
            .with_context(|| format!("`{name}` is not a repository name: use owner/name"))?;
        let token = github::token_from_env()?;
        return Ok(Input::GitHub { repo, token });
    }
    match &args.reviews {
        Some(file) => {
            let text = std::fs::read(file)
                .with_context(|| format!("Cannot read the reviews file {}", file.display()))?;
            Ok(Input::Reviews {
                file: file.clone(),
                text,
            })
        }
        None => Ok(Input::HistoryOnly),
    }
}

/// The store's directory: the one given (created if needed), or a temporary one that is removed
/// when the returned guard is dropped.
fn data_dir(given: Option<&Path>) -> Result<(Option<tempfile::TempDir>, PathBuf)> {
    match given {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("Cannot create the data directory {}", dir.display()))?;
            Ok((None, dir.to_path_buf()))
        }
        None => {
            let temporary = tempfile::Builder::new()
                .prefix("gitlore-analyze-")
                .tempdir()
                .context("Cannot create a temporary directory for the store")?;
            let dir = temporary.path().to_path_buf();
            Ok((Some(temporary), dir))
        }
    }
}

/// `.github/gitlore.toml` of PATH's working tree, or the defaults when there is none (or it is
/// not UTF-8 text, which is then a problem the report shows).
fn local_config(path: &Path) -> Resolved {
    let text = std::fs::read(path.join(CONFIG_FILE))
        .ok()
        .map(|bytes| repo_config::text_of(CONFIG_FILE, bytes));
    match text {
        Some(Err(problem)) => Resolved {
            config: Default::default(),
            problems: vec![problem],
            repo_file_unused: true,
        },
        Some(Ok(text)) => repo_config::resolve(None, Some((CONFIG_FILE, &text))),
        None => repo_config::resolve(None, None),
    }
}

/// Stores the comments of a reviews file parsed for `repo`; undated comments are dated at the
/// newest comment or commit.
fn store_reviews(
    settings: &Settings,
    store: &Store,
    repo: &Repo,
    mut reviews: Reviews,
    newest_commit: Option<i64>,
    now: i64,
) -> Result<Reviews> {
    store.write_derived(|tx| repos::upsert_repo(tx, repo, None, false))?;
    reviews.date_undated(reviews.newest_at.max(newest_commit).unwrap_or(now));
    apply_reviews(settings, store, &reviews, now)?;
    Ok(reviews)
}

/// Writes the reviews' comments through the webhooks' ingest path, in one transaction.
fn apply_reviews(settings: &Settings, store: &Store, reviews: &Reviews, now: i64) -> Result<()> {
    let rules = app::noise_rules(settings);
    store
        .write_derived(|tx| {
            let mut memo = Memo::default();
            for event in &reviews.events {
                ingest::apply_with_memo(
                    tx,
                    &rules,
                    event,
                    "reviews",
                    UnixMs::from_secs(now),
                    &mut memo,
                )?;
            }
            Ok(())
        })
        .context("Cannot store the review comments")
}
