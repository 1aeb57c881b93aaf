//! A repository's lessons as readers outside GitHub see them: its current findings, themes and
//! evidence read from the store (or from a `gitlore export --format json` file) into plain
//! structs (`report`), the JSON shape both write (`json`), and the lessons that apply to given
//! paths or match a text, within a size budget (`select`); `cli` is `gitlore lessons` and the
//! source arguments it shares with `gitlore mcp`. `gitlore export`, `gitlore lessons` and
//! `gitlore mcp` read through [`open`]; dismissed findings never come out.

pub mod cli;
pub mod json;
pub mod report;
pub mod select;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::config::Settings;
use crate::domain::github_web::web_url;
use crate::store::{self, Store};
use report::RepoReport;

/// Where a report is read from.
#[derive(Debug, Clone)]
pub enum Source {
    /// The store of `data_dir` (the configured one when `None`), the repository named (or the
    /// only one analysed).
    Store {
        data_dir: Option<PathBuf>,
        repo: Option<String>,
    },
    /// A `gitlore export --format json` file.
    File(PathBuf),
}

/// Reads the report `source` names. A store is only read: a data directory without one is an
/// error, not a new empty store.
pub fn open(settings: &Settings, source: &Source) -> Result<RepoReport> {
    match source {
        Source::File(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("Cannot read {}", path.display()))?;
            report::from_json(&text).with_context(|| format!("Cannot read {}", path.display()))
        }
        Source::Store { data_dir, repo } => {
            let store = open_store(settings, data_dir.as_deref())?;
            let conn = store.reader()?;
            let found = report::find_repo(&conn, repo.as_deref())?;
            report::load(&conn, &found, Some(&web_url(&settings.github_api_url)))
        }
    }
}

/// The names of the repositories `source` holds: a file's one, or every one a store analysed
/// (whichever repository it names).
pub fn repositories(settings: &Settings, source: &Source) -> Result<Vec<String>> {
    match source {
        Source::File(_) => Ok(vec![open(settings, source)?.repo]),
        Source::Store { data_dir, .. } => {
            let store = open_store(settings, data_dir.as_deref())?;
            let repos = store::report::analysed_repos(&store.reader()?)?;
            Ok(repos.into_iter().map(|r| r.full_name).collect())
        }
    }
}

fn open_store(settings: &Settings, data_dir: Option<&Path>) -> Result<Store> {
    if let (None, store::Database::Postgres { .. }) = (data_dir, settings.database()) {
        return Store::open_database(&settings.database());
    }
    let database = data_dir.map_or_else(|| settings.database_path(), store::database_path);
    ensure_exists(&database)?;
    Store::open(&database)
}

fn ensure_exists(database: &Path) -> Result<()> {
    if !database.is_file() {
        bail!(
            "No gitlore store at {}: pass --data-dir (the directory `gitlore serve` or \
             `gitlore analyze --data-dir` writes) or --from an export file",
            database.display()
        );
    }
    Ok(())
}
