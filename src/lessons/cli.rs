//! `gitlore lessons PATH…` and the arguments it shares with `gitlore mcp`: where the report is
//! read from.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::select::{self, DEFAULT_BUDGET};
use super::{Source, open};
use crate::config::Settings;

/// Where `lessons` and `mcp` read the report.
#[derive(Debug, Clone, clap::Args)]
pub struct SourceArgs {
    /// The repository, owner/name (optional when the store holds only one).
    #[arg(long, value_name = "OWNER/NAME", conflicts_with = "from")]
    pub repo: Option<String>,
    /// The store's directory (default: the configured data directory).
    #[arg(long, value_name = "DIR", conflicts_with = "from")]
    pub data_dir: Option<PathBuf>,
    /// A `gitlore export --format json` file instead of a store.
    #[arg(long, value_name = "FILE")]
    pub from: Option<PathBuf>,
}

impl SourceArgs {
    pub fn source(&self) -> Source {
        match &self.from {
            Some(file) => Source::File(file.clone()),
            None => Source::Store {
                data_dir: self.data_dir.clone(),
                repo: self.repo.clone(),
            },
        }
    }
}

/// The arguments of `gitlore lessons`.
#[derive(Debug, clap::Args)]
pub struct LessonsArgs {
    /// Paths relative to the repository's root; a directory ends with `/`.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<String>,
    #[command(flatten)]
    pub source: SourceArgs,
    /// Most characters to print.
    #[arg(long, value_name = "CHARS", default_value_t = DEFAULT_BUDGET)]
    pub budget: usize,
}

/// Prints the lessons for the paths.
pub fn run(settings: &Settings, args: &LessonsArgs) -> Result<()> {
    let report = open(settings, &args.source.source())?;
    let chosen = select::for_paths(&report, &under_cwd(&args.paths));
    print(&select::render(&report, &chosen, args.budget))
}

/// `paths` with absolute ones under the current directory (the repository's root, where agents
/// start `gitlore mcp`) made relative to it; a directory keeps its final `/`.
pub fn under_cwd(paths: &[String]) -> Vec<String> {
    let cwd = std::env::current_dir().ok();
    paths
        .iter()
        .map(|path| {
            let relative = cwd
                .as_deref()
                .filter(|_| Path::new(path).is_absolute())
                .and_then(|cwd| Path::new(path).strip_prefix(cwd).ok())
                .and_then(Path::to_str);
            match relative {
                Some(relative) if path.ends_with('/') => format!("{relative}/"),
                Some(relative) => relative.to_string(),
                None => path.clone(),
            }
        })
        .collect()
}

/// Writes `text` on stdout; a reader that stopped reading (`| head`) is no error.
pub fn print(text: &str) -> Result<()> {
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        written => written.context("Cannot write to stdout"),
    }
}
