//! The store: SQLite (embedded, the default) or PostgreSQL (several replicas on one database),
//! behind one API, and one module per table family.
//!
//! Store functions take a [`sql::Connection`] (or a [`sql::Transaction`] from [`Store::write`])
//! and run SQL both databases speak. Nothing holds a connection across an `.await`: async code
//! reaches the store through `spawn_blocking` or a dedicated thread. All SQL lives below this
//! module.

pub mod backfills;
pub mod comments;
pub mod copy;
pub mod deliveries;
pub mod effect;
pub mod findings;
pub mod history;
pub mod inputs;
pub mod jobs;
pub mod llm_cache;
pub mod llm_spend;
pub mod metrics;
pub mod pages;
pub mod postgres;
pub mod publications;
pub mod redeliveries;
pub mod report;
pub mod repos;
pub mod run_reports;
pub mod sql;
mod sqlite;
pub mod themes;
pub mod web_sessions;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Context, Result};

pub use sql::{Connection, Dialect, Transaction};

use postgres::PgStore;
use sqlite::SqliteStore;

/// The schema version a fully migrated database has (the same on both backends).
pub const SCHEMA_VERSION: usize = sqlite::SCHEMA_VERSION;
const _: () = assert!(sqlite::SCHEMA_VERSION == postgres::SCHEMA_VERSION);

/// The database file of a data dir.
pub fn database_path(data_dir: &Path) -> PathBuf {
    data_dir.join("gitlore.db")
}

/// Where the store lives.
#[derive(Clone, PartialEq, Eq)]
pub enum Database {
    /// A SQLite file: one process.
    Sqlite(PathBuf),
    /// A PostgreSQL URL (with its password, so never logged) and an optional CA file to trust.
    Postgres {
        url: String,
        ca_file: Option<PathBuf>,
    },
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Database::Sqlite(path) => f.debug_tuple("Sqlite").field(path).finish(),
            Database::Postgres { .. } => f.write_str("Postgres(..)"),
        }
    }
}

/// How a write transaction reaches the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Durability {
    /// Flushed at commit.
    Durable,
    /// As durable, but on SQLite the flush is left to [`Store::sync`], so that the writer
    /// connection is free while the disk works.
    SyncedLater,
    /// Not waited for at commit: safe for state that can be derived again.
    Derived,
}

/// The comment store. Cheap to share behind an `Arc`.
pub struct Store {
    backend: Backend,
}

enum Backend {
    Sqlite(SqliteStore),
    Postgres(PgStore),
}

impl Store {
    /// Opens (creating if needed) the SQLite database at `path` and applies every pending
    /// migration.
    pub fn open(path: &Path) -> Result<Store> {
        Ok(Store {
            backend: Backend::Sqlite(SqliteStore::open(path)?),
        })
    }

    /// Opens the configured database and applies every pending migration.
    pub fn open_database(database: &Database) -> Result<Store> {
        match database {
            Database::Sqlite(path) => Store::open(path),
            Database::Postgres { url, ca_file } => Ok(Store {
                backend: Backend::Postgres(PgStore::connect(url, ca_file.as_deref())?),
            }),
        }
    }

    /// Opens a SQLite database and migrates it to `version` only, for testing each migration
    /// against a database holding the rows of the version before it.
    pub fn connection_at_version(path: &Path, version: usize) -> Result<rusqlite::Connection> {
        SqliteStore::connection_at_version(path, version)
    }

    /// Which database this is.
    pub fn dialect(&self) -> Dialect {
        match self.backend {
            Backend::Sqlite(_) => Dialect::Sqlite,
            Backend::Postgres(_) => Dialect::Postgres,
        }
    }

    /// The database as logs and messages may name it (a path, or `user@host:port/db`).
    pub fn describe(&self) -> String {
        match &self.backend {
            Backend::Sqlite(store) => store.path.display().to_string(),
            Backend::Postgres(store) => format!("postgres://{}", store.description),
        }
    }

    /// Runs `f` in one write transaction and commits it durably: when this returns, the
    /// transaction survives a power cut. For what cannot be derived again (deliveries).
    pub fn write<T>(&self, f: impl FnOnce(&mut Transaction<'_>) -> Result<T>) -> Result<T> {
        self.write_with(Durability::Durable, f)
    }

    /// Runs `f` in one write transaction like [`Store::write`], but returns before the disk has
    /// it: the transaction is durable once a later [`Store::sync`] returns. For the ingress
    /// writer, which stores the next deliveries while the disk syncs the last ones.
    pub fn write_synced_later<T>(
        &self,
        f: impl FnOnce(&mut Transaction<'_>) -> Result<T>,
    ) -> Result<T> {
        self.write_with(Durability::SyncedLater, f)
    }

    /// Makes every transaction committed so far durable (on PostgreSQL they already are).
    pub fn sync(&self) -> Result<()> {
        match &self.backend {
            Backend::Sqlite(store) => store.sync_wal(),
            Backend::Postgres(_) => Ok(()),
        }
    }

    /// Runs `f` in one write transaction and commits it without waiting for the disk. For state
    /// derived from durable rows (a delivery's effects and its "processed" mark): a power cut
    /// may roll back the last such transactions, which then run again; a crash of the process
    /// loses nothing. The next durable commit makes everything before it durable too.
    pub fn write_derived<T>(&self, f: impl FnOnce(&mut Transaction<'_>) -> Result<T>) -> Result<T> {
        self.write_with(Durability::Derived, f)
    }

    fn write_with<T>(
        &self,
        durability: Durability,
        f: impl FnOnce(&mut Transaction<'_>) -> Result<T>,
    ) -> Result<T> {
        match &self.backend {
            Backend::Sqlite(store) => store.write_with(durability, f),
            Backend::Postgres(store) => store.write_with(durability, f),
        }
    }

    /// Whether a durable write is waiting for the writer connection: a long derived transaction
    /// should commit what it has and let it go first. (PostgreSQL writers never wait for each
    /// other's connection.)
    pub fn durable_write_waiting(&self) -> bool {
        match &self.backend {
            Backend::Sqlite(store) => store.durable_write_waiting(),
            Backend::Postgres(_) => false,
        }
    }

    /// For SQLite, moves WAL checkpoints off the writer: the writer stops checkpointing on
    /// commit, and a thread checkpoints (passively: it never blocks the writer) every `interval`
    /// until `stop` is set. For `serve`, where a commit must never pay for a checkpoint.
    /// PostgreSQL checkpoints on its own: nothing to start.
    pub fn start_checkpointer(
        self: &Arc<Self>,
        interval: Duration,
        stop: Arc<AtomicBool>,
    ) -> Result<Option<std::thread::JoinHandle<()>>> {
        match &self.backend {
            Backend::Sqlite(store) => store.start_checkpointer(interval, stop).map(Some),
            Backend::Postgres(_) => Ok(None),
        }
    }

    /// Whether the database answers a query; the error names the database (never a password).
    pub fn ping(&self) -> Result<()> {
        let answered: Result<i64> = self
            .reader()
            .and_then(|conn| Ok(conn.query_row("SELECT 1", [], |row| row.get(0))?));
        answered
            .map(drop)
            .with_context(|| format!("the database {} does not answer", self.describe()))
    }

    /// A connection for queries that must not block writers.
    pub fn reader(&self) -> Result<Connection<'static>> {
        match &self.backend {
            Backend::Sqlite(store) => Ok(Connection::sqlite(store.reader()?)),
            Backend::Postgres(store) => Ok(Connection::postgres(store.pool.get()?)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_that_does_not_answer_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gitlore.db");
        let store = Store::open(&path).unwrap();
        store.ping().unwrap();
        drop(dir);
        let error = format!("{:#}", store.ping().unwrap_err());
        assert!(error.contains(&path.display().to_string()), "{error}");
        assert!(error.contains("does not answer"), "{error}");
    }
}
