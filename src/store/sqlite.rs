//! The SQLite backend (the embedded default): one writer connection behind a mutex, shared by the
//! ingress writer thread and the worker, so writes never wait on SQLite's sleeping busy handler;
//! readers open short-lived connections of their own (WAL lets them read while the writer
//! writes).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use anyhow::{Context, Result};
use rusqlite::{Connection, OpenFlags};
use rusqlite_migration::{M, Migrations};

use super::Durability;
use super::sql;

/// Ordered, append-only migrations; `PRAGMA user_version` records how many ran.
const MIGRATION_LIST: &[M<'static>] = &[
    M::up(include_str!("migrations/0001_initial.sql")),
    M::up(include_str!("migrations/0002_model_caches.sql")),
    M::up(include_str!("migrations/0003_themes.sql")),
    M::up(include_str!("migrations/0004_backfill.sql")),
    M::up(include_str!("migrations/0005_findings.sql")),
    M::up(include_str!("migrations/0006_history.sql")),
    M::up(include_str!("migrations/0007_publications.sql")),
    M::up(include_str!("migrations/0008_pr_author.sql")),
    M::up(include_str!("migrations/0009_delivery_installation.sql")),
    M::up(include_str!("migrations/0010_default_branch_push.sql")),
    M::up(include_str!("migrations/0011_llm_spend.sql")),
    M::up(include_str!("migrations/0012_history_first_parent.sql")),
    M::up(include_str!("migrations/0013_run_reports.sql")),
    M::up(include_str!("migrations/0014_redeliveries.sql")),
    M::up(include_str!("migrations/0015_web_sessions.sql")),
];

/// The schema version a fully migrated database has.
pub const SCHEMA_VERSION: usize = MIGRATION_LIST.len();
const MIGRATIONS: Migrations<'static> = Migrations::from_slice(MIGRATION_LIST);

/// How long a connection waits for another process's write lock before giving up. Five seconds
/// covers a CLI command (`gitlore deliveries retry`) writing while `serve` runs.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Prepared statements kept per connection: more than the store has, so the hot path never
/// prepares a statement twice (rusqlite's default of 16 is fewer than the worker uses).
const STATEMENT_CACHE_CAPACITY: usize = 128;

pub struct SqliteStore {
    pub(super) path: PathBuf,
    writer: Mutex<Connection>,
    /// Durable writers (the ingress) waiting for the writer connection: derived writers (the
    /// worker) commit early when one waits, so a webhook's answer never waits behind a batch.
    durable_waiting: AtomicUsize,
}

impl SqliteStore {
    pub fn open(path: &Path) -> Result<SqliteStore> {
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("Cannot create the data directory {}", dir.display()))?;
        }
        let mut conn = Connection::open(path)
            .with_context(|| format!("Cannot open the database {}", path.display()))?;
        configure(&conn)?;
        MIGRATIONS
            .to_latest(&mut conn)
            .with_context(|| format!("Cannot migrate the database {}", path.display()))?;
        Ok(SqliteStore {
            path: path.to_path_buf(),
            writer: Mutex::new(conn),
            durable_waiting: AtomicUsize::new(0),
        })
    }

    pub fn connection_at_version(path: &Path, version: usize) -> Result<Connection> {
        let mut conn = Connection::open(path)?;
        configure(&conn)?;
        MIGRATIONS.to_version(&mut conn, version)?;
        Ok(conn)
    }

    pub fn write_with<T>(
        &self,
        durability: Durability,
        f: impl FnOnce(&mut sql::Transaction<'_>) -> Result<T>,
    ) -> Result<T> {
        let conn = match durability {
            Durability::Durable | Durability::SyncedLater => {
                self.durable_waiting.fetch_add(1, Ordering::SeqCst);
                let conn = self.lock_writer();
                self.durable_waiting.fetch_sub(1, Ordering::SeqCst);
                conn
            }
            Durability::Derived => self.lock_writer(),
        };
        let tx =
            rusqlite::Transaction::new_unchecked(&conn, rusqlite::TransactionBehavior::Immediate)?;
        let mut wrapped = sql::Transaction::new(sql::Connection::sqlite_borrowed(&tx));
        let value = f(&mut wrapped)?;
        drop(wrapped);
        tx.commit().context("Cannot commit to the database")?;
        drop(conn);
        if durability == Durability::Durable {
            self.sync_wal()?;
        }
        Ok(value)
    }

    /// Puts what the WAL holds on disk. A durable write calls it after its commit, once it has
    /// let go of the writer connection, so the next transaction need not wait for the disk.
    /// Frames checkpointed meanwhile were synced into the database file by the checkpoint.
    pub(super) fn sync_wal(&self) -> Result<()> {
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        match File::open(&wal) {
            Ok(file) => file.sync_data(),
            // No WAL: every frame is in the synced database file.
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(error) => Err(error),
        }
        .context("Cannot put the database's write-ahead log on disk")
    }

    pub fn durable_write_waiting(&self) -> bool {
        self.durable_waiting.load(Ordering::SeqCst) > 0
    }

    pub fn start_checkpointer(
        &self,
        interval: Duration,
        stop: Arc<std::sync::atomic::AtomicBool>,
    ) -> Result<std::thread::JoinHandle<()>> {
        self.lock_writer()
            .pragma_update(None, "wal_autocheckpoint", 0)?;
        let conn = Connection::open(&self.path)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        std::thread::Builder::new()
            .name("wal-checkpointer".into())
            .spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    std::thread::sleep(interval);
                    if let Err(error) =
                        conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
                    {
                        tracing::warn!(%error, "WAL checkpoint failed");
                    }
                }
            })
            .context("Cannot start the checkpointer thread")
    }

    pub fn reader(&self) -> Result<Connection> {
        let conn = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .with_context(|| format!("Cannot open the database {}", self.path.display()))?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        Ok(conn)
    }

    pub(super) fn lock_writer(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock leaves SQLite consistent (the transaction rolls back on
        // drop), so a poisoned lock is safe to reuse.
        self.writer
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// WAL for concurrent readers, foreign keys on. `synchronous = NORMAL`: a commit leaves its WAL
/// frames to the operating system, and a durable write then syncs the WAL itself outside the
/// writer lock ([`SqliteStore::sync_wal`]), so a committed delivery survives a power cut while
/// the worker's derived writes never wait for the disk (group commit in the ingress writer
/// amortises the sync).
fn configure(conn: &Connection) -> Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE_CAPACITY);
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // Statement journals and temporary b-trees in memory: they never need to survive anything.
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_valid() {
        MIGRATIONS.validate().expect("migrations apply cleanly");
    }

    #[test]
    fn open_sets_wal_and_foreign_keys() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("g.db")).unwrap();
        let conn = store.lock_writer();
        let mode: String = conn
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .unwrap();
        let fk: i64 = conn
            .pragma_query_value(None, "foreign_keys", |r| r.get(0))
            .unwrap();
        assert_eq!((mode.as_str(), fk), ("wal", 1));
    }
}
