//! The benches' model as recorded answers: `--cassettes DIR [--misses DIR]` on `llm-quality` and
//! `findings --configured-models` start the stand-in endpoint of `gitlore::llm::cassettes` and
//! configure it as the LLM, and `cassettes add` stores a model's answers to the misses.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};

use gitlore::config::Settings;
use gitlore::knowledge::classify::llm::PROMPT as CLASSIFY_PROMPT;
use gitlore::knowledge::synthesize::check::PROMPT as CHECK_PROMPT;
use gitlore::knowledge::synthesize::{Limits, llm::system_prompt};
use gitlore::llm::cassettes::{self, Recorded, system_sha};

/// Where the model's answers come from.
#[derive(Debug, Clone, clap::Args)]
pub struct RecordedArgs {
    /// Replay a model's recorded answers from this folder (e.g. tests/fixtures/cassettes) instead
    /// of calling the configured model; a request without one is answered 404 (built-in fallback).
    #[arg(long)]
    pub cassettes: Option<PathBuf>,
    /// With --cassettes: write each request without a recorded answer to this folder, exactly as
    /// sent, for a model to answer (then `gitlore-bench cassettes add`).
    #[arg(long, requires = "cassettes")]
    pub misses: Option<PathBuf>,
}

/// The stand-in, while it serves.
pub struct Replaying {
    pub recorded: Arc<Recorded>,
    _runtime: tokio::runtime::Runtime,
}

impl RecordedArgs {
    /// The `GITLORE_*` settings; with `--cassettes`, the LLM is the stand-in (the App's other LLM
    /// settings, such as its context and answer size, as configured or by default) and no remote
    /// embedder is used.
    pub fn settings(&self) -> Result<(Settings, Option<Replaying>)> {
        let Some(dir) = &self.cassettes else {
            let settings = Settings::load(None).context("Cannot read the GITLORE_* settings")?;
            return Ok((settings, None));
        };
        let recorded = Arc::new(Recorded::load(dir, self.misses.as_deref())?);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .context("Cannot start the async runtime")?;
        let url = runtime.block_on(cassettes::serve(Arc::clone(&recorded)))?;
        let settings = Settings::from_sources(None, &|name| match name {
            "GITLORE_LLM_PROVIDER" => Some("openai".to_string()),
            "GITLORE_LLM_BASE_URL" => Some(url.clone()),
            "GITLORE_LLM_MODEL" => Some("recorded".to_string()),
            "GITLORE_LLM_API_KEY"
            | "GITLORE_EMBED_BASE_URL"
            | "GITLORE_EMBED_MODEL"
            | "GITLORE_EMBED_API_KEY" => None,
            _ => std::env::var(name).ok(),
        })
        .context("Cannot read the GITLORE_* settings")?;
        Ok((
            settings,
            Some(Replaying {
                recorded,
                _runtime: runtime,
            }),
        ))
    }
}

impl Replaying {
    /// One line: requests replayed, requests without an answer (and where they went), cassettes
    /// of a prompt that has changed since.
    pub fn summary(&self, misses: Option<&Path>) -> String {
        let current = [
            system_sha(CLASSIFY_PROMPT),
            system_sha(&system_prompt(&Limits::default())),
            system_sha(CHECK_PROMPT),
        ];
        let stale: Vec<String> = self
            .recorded
            .stale(&current)
            .into_iter()
            .map(|(prompt, n)| format!("{n} of prompt {prompt}"))
            .collect();
        format!(
            "recorded answers: {} read, {} requests replayed, {} without an answer{}; stale (recorded for another prompt): {}",
            self.recorded.len(),
            self.recorded.used(),
            self.recorded.missed(),
            misses
                .filter(|_| self.recorded.missed() > 0)
                .map(|dir| format!(" (written to {})", dir.display()))
                .unwrap_or_default(),
            if stale.is_empty() {
                "none".to_string()
            } else {
                stale.join(", ")
            }
        )
    }
}

#[derive(Debug, clap::Args)]
pub struct AddArgs {
    /// The folder of requests the stand-in wrote (`--misses`).
    #[arg(long)]
    misses: PathBuf,
    /// The folder of answers, one `KEY.txt` per request `KEY.json`, each the model's text unedited.
    #[arg(long)]
    answers: PathBuf,
    /// The cassettes folder to add them to.
    #[arg(long)]
    to: PathBuf,
    /// Who answered: the model, and how it was given the requests.
    #[arg(long)]
    by: String,
    /// The day the answers were written (YYYY-MM-DD); default today (UTC).
    #[arg(long)]
    day: Option<String>,
}

/// `cassettes add`: stores each answer with its request as a cassette.
pub fn add(args: AddArgs) -> Result<()> {
    let day = args
        .day
        .unwrap_or_else(|| chrono::Utc::now().format("%Y-%m-%d").to_string());
    let added = cassettes::add(&args.misses, &args.answers, &args.to, &args.by, &day)?;
    println!("{added} cassettes added to {}", args.to.display());
    Ok(())
}
