//! The PostgreSQL backend: a pool of connections to one database shared by every replica, its
//! migrations (applied by one replica at a time under an advisory lock), and TLS to the database.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::Durability;
use super::sql::{Connection, PgManager, Transaction};

/// The setting that names the database, for error messages.
pub const URL_SETTING: &str = "GITLORE_DATABASE_URL";
/// A PEM file of extra certificate authorities to trust for the database's TLS (a managed
/// database's own CA); the web's public roots are always trusted.
pub const CA_SETTING: &str = "GITLORE_DATABASE_CA_FILE";

/// Ordered, append-only migrations, one per SQLite migration of the same number.
const MIGRATIONS: &[&str] = &[
    include_str!("migrations/postgres/0001_initial.sql"),
    include_str!("migrations/postgres/0002_model_caches.sql"),
    include_str!("migrations/postgres/0003_themes.sql"),
    include_str!("migrations/postgres/0004_backfill.sql"),
    include_str!("migrations/postgres/0005_findings.sql"),
    include_str!("migrations/postgres/0006_history.sql"),
    include_str!("migrations/postgres/0007_publications.sql"),
    include_str!("migrations/postgres/0008_pr_author.sql"),
    include_str!("migrations/postgres/0009_delivery_installation.sql"),
    include_str!("migrations/postgres/0010_default_branch_push.sql"),
    include_str!("migrations/postgres/0011_llm_spend.sql"),
    include_str!("migrations/postgres/0012_history_first_parent.sql"),
    include_str!("migrations/postgres/0013_run_reports.sql"),
    include_str!("migrations/postgres/0014_redeliveries.sql"),
    include_str!("migrations/postgres/0015_web_sessions.sql"),
];

/// The advisory lock key under which one replica migrates while the others wait.
const MIGRATION_LOCK: i64 = 0x0067_6974_6c6f_7265; // "gitlore"

/// Connections per replica: the ingress writer, the worker, the job runners and the web pages'
/// readers, with room to spare.
const POOL_SIZE: u32 = 12;
/// How long a replica waits for a free connection, or for the database to answer a connect.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A pool of connections to one PostgreSQL database, migrated to this build's schema.
pub struct PgStore {
    pub(super) pool: r2d2::Pool<PgManager>,
    /// The database as logs may name it: no password.
    pub(super) description: String,
}

impl PgStore {
    /// Connects to `url` (a `postgres://` URL or key=value string), reporting an unreachable
    /// database or a schema newer than this build by the setting's name, and migrates it.
    pub fn connect(url: &str, ca_file: Option<&Path>) -> Result<PgStore> {
        let mut config: postgres::Config = url
            .parse()
            .with_context(|| format!("{URL_SETTING} is not a PostgreSQL URL"))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        config.application_name("gitlore");
        let description = describe(&config);
        let manager = PgManager::new(config, tls(ca_file)?);
        let mut first = manager.connect().with_context(|| {
            format!("Cannot connect to the PostgreSQL database {description} ({URL_SETTING})")
        })?;
        let migrating = description.clone();
        first.with_client(move |client| migrate(client, &migrating))??;
        drop(first);
        let pool = r2d2::Pool::builder()
            .max_size(POOL_SIZE)
            .min_idle(Some(1))
            .connection_timeout(CONNECT_TIMEOUT)
            // A connection the server closed is found when it comes back (`has_broken`), not by
            // a round trip each time one is taken.
            .test_on_check_out(false)
            .build_unchecked(manager);
        Ok(PgStore { pool, description })
    }

    /// Runs `f` in one transaction on a pooled connection (READ COMMITTED; what must not race
    /// across replicas locks its rows). A derived write does not wait for the WAL flush.
    pub(super) fn write_with<T>(
        &self,
        durability: Durability,
        f: impl FnOnce(&mut Transaction<'_>) -> Result<T>,
    ) -> Result<T> {
        let conn = Connection::postgres(self.pool.get()?);
        conn.execute_batch(match durability {
            Durability::Durable | Durability::SyncedLater => "BEGIN",
            Durability::Derived => "BEGIN; SET LOCAL synchronous_commit TO OFF",
        })?;
        let mut open = RollbackOnDrop(Some(Transaction::new(conn)));
        let value = f(open.0.as_mut().expect("open until committed"))?;
        let conn = open
            .0
            .take()
            .expect("open until committed")
            .into_connection();
        conn.execute_batch("COMMIT")
            .context("Cannot commit to the database")?;
        Ok(value)
    }
}

/// Rolls back a transaction its closure failed (or panicked) in, so that its connection goes
/// back to the pool clean.
struct RollbackOnDrop<'a>(Option<Transaction<'a>>);

impl Drop for RollbackOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(tx) = self.0.take()
            && let Err(error) = tx.execute_batch("ROLLBACK")
        {
            tracing::warn!(%error, "Cannot roll back a failed transaction");
        }
    }
}

/// The schema version a fully migrated PostgreSQL database has.
pub const SCHEMA_VERSION: usize = MIGRATIONS.len();

/// Applies every pending migration in one transaction, under a lock that makes other replicas
/// starting at the same time wait and then find nothing to do.
fn migrate(client: &mut postgres::Client, description: &str) -> Result<()> {
    let mut tx = client.transaction()?;
    tx.batch_execute(&format!("SELECT pg_advisory_xact_lock({MIGRATION_LOCK})"))?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS gitlore_schema (
             id INTEGER PRIMARY KEY CHECK (id = 1), version BIGINT NOT NULL);
         INSERT INTO gitlore_schema (id, version) VALUES (1, 0) ON CONFLICT (id) DO NOTHING;",
    )?;
    let version: i64 = tx
        .query_one("SELECT version FROM gitlore_schema WHERE id = 1", &[])?
        .get(0);
    let version = usize::try_from(version).unwrap_or(usize::MAX);
    if version > SCHEMA_VERSION {
        bail!(
            "The PostgreSQL database {description} ({URL_SETTING}) has schema version {version}, \
             newer than this gitlore's {SCHEMA_VERSION}: run the gitlore release that migrated it, \
             or a newer one"
        );
    }
    for (number, migration) in MIGRATIONS.iter().enumerate().skip(version) {
        tx.batch_execute(migration).with_context(|| {
            format!(
                "Cannot apply migration {} to the PostgreSQL database {description}",
                number + 1
            )
        })?;
    }
    tx.execute(
        "UPDATE gitlore_schema SET version = $1 WHERE id = 1",
        &[&(SCHEMA_VERSION as i64)],
    )?;
    tx.commit()?;
    Ok(())
}

/// `user@host:port/dbname`, never the password.
fn describe(config: &postgres::Config) -> String {
    let host = config
        .get_hosts()
        .first()
        .map(|host| match host {
            postgres::config::Host::Tcp(name) => name.clone(),
            postgres::config::Host::Unix(path) => path.display().to_string(),
        })
        .unwrap_or_else(|| "localhost".into());
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config.get_user().unwrap_or("");
    let dbname = config.get_dbname().unwrap_or(user);
    let at = if user.is_empty() { "" } else { "@" };
    format!("{user}{at}{host}:{port}/{dbname}")
}

/// TLS with the web's public roots, plus the CAs of `ca_file`. Whether TLS is used is the URL's
/// `sslmode` (`prefer` by default: TLS when the server offers it).
fn tls(ca_file: Option<&Path>) -> Result<MakeRustlsConnect> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(path) = ca_file {
        let certs = CertificateDer::pem_file_iter(path)
            .with_context(|| format!("Cannot read {CA_SETTING} {}", path.display()))?;
        for cert in certs {
            let cert =
                cert.with_context(|| format!("{CA_SETTING} {} is not PEM", path.display()))?;
            roots.add(cert).with_context(|| {
                format!("{CA_SETTING} {} holds a bad certificate", path.display())
            })?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("TLS for the database")?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(MakeRustlsConnect::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_is_described_without_its_password() {
        let config: postgres::Config = "postgres://gitlore:s3cret@db.internal:6543/lore"
            .parse()
            .unwrap();
        assert_eq!(describe(&config), "gitlore@db.internal:6543/lore");
    }

    #[test]
    fn an_unreachable_database_is_reported_by_its_setting() {
        // Port 1 on loopback refuses at once.
        let error = PgStore::connect("postgres://u:pw@127.0.0.1:1/db?sslmode=disable", None)
            .err()
            .expect("nothing listens on port 1");
        let message = format!("{error:#}");
        assert!(message.contains(URL_SETTING), "{message}");
        assert!(message.contains("u@127.0.0.1:1/db"), "{message}");
        assert!(!message.contains("pw"), "{message}");
    }
}
