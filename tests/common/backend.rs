//! Which database a test's store lives in: a SQLite file by default; with
//! `GITLORE_TEST_BACKEND=postgres`, a fresh schema of the PostgreSQL database named by
//! `GITLORE_TEST_DATABASE_URL`, dropped when the test ends. `.ci/run` runs the store's tests both
//! ways.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use gitlore::store::{Database, Store};

/// A store and, on PostgreSQL, the schema to drop after it.
pub struct TestDatabase {
    pub store: Arc<Store>,
    pub database: Database,
    _schema: Option<Schema>,
}

impl TestDatabase {
    /// The store of `database` (migrated), keeping `schema` until this is dropped.
    pub fn open(database: Database, schema: Schema) -> TestDatabase {
        TestDatabase {
            store: Arc::new(Store::open_database(&database).unwrap()),
            database,
            _schema: Some(schema),
        }
    }
}

/// Whether this run's stores are on PostgreSQL.
pub fn on_postgres() -> bool {
    std::env::var("GITLORE_TEST_BACKEND").is_ok_and(|b| b == "postgres")
}

/// A fresh, migrated store: `gitlore.db` in `dir`, or a new PostgreSQL schema.
pub fn fresh_store(dir: &Path) -> TestDatabase {
    if on_postgres() {
        return postgres_store()
            .expect("GITLORE_TEST_BACKEND=postgres needs GITLORE_TEST_DATABASE_URL");
    }
    let database = Database::Sqlite(dir.join("gitlore.db"));
    TestDatabase {
        store: Arc::new(Store::open_database(&database).unwrap()),
        database,
        _schema: None,
    }
}

/// A fresh, migrated store in a new schema of the test database; `None` without one, which
/// fails under CI (where `.ci/run` provides it) and is said on stderr elsewhere.
pub fn postgres_store() -> Option<TestDatabase> {
    let (database, schema) = empty_postgres()?;
    Some(TestDatabase::open(database, schema))
}

/// A new, empty schema of the test database (no tables yet), and the guard that drops it.
pub fn empty_postgres() -> Option<(Database, Schema)> {
    if std::env::var_os("GITLORE_TEST_DATABASE_URL").is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs the PostgreSQL tests: set GITLORE_TEST_DATABASE_URL"
        );
        eprintln!("skipped: GITLORE_TEST_DATABASE_URL is not set (no PostgreSQL to test on)");
        return None;
    }
    let schema = Schema::create();
    let database = Database::Postgres {
        url: schema.url(),
        ca_file: None,
    };
    Some((database, schema))
}

/// A schema of its own on the test database, dropped with this.
pub struct Schema {
    admin_url: String,
    name: String,
}

impl Schema {
    fn create() -> Schema {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let admin_url = std::env::var("GITLORE_TEST_DATABASE_URL")
            .expect("GITLORE_TEST_BACKEND=postgres needs GITLORE_TEST_DATABASE_URL");
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        let name = format!(
            "test_{}_{}_{nanos}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        );
        admin(&admin_url, format!("CREATE SCHEMA {name}")).unwrap();
        Schema { admin_url, name }
    }

    /// The test database's URL with this schema first on the search path.
    fn url(&self) -> String {
        let separator = if self.admin_url.contains('?') {
            '&'
        } else {
            '?'
        };
        format!(
            "{}{separator}options=-c%20search_path%3D{}",
            self.admin_url, self.name
        )
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        let _ = admin(
            &self.admin_url,
            format!("DROP SCHEMA {} CASCADE", self.name),
        );
    }
}

/// Runs `sql` on the test database, on a thread of its own: the blocking client cannot run
/// inside an async test.
fn admin(url: &str, sql: String) -> Result<(), postgres::Error> {
    let url = url.to_owned();
    std::thread::spawn(move || {
        postgres::Client::connect(&url, postgres::NoTls)?.batch_execute(&sql)
    })
    .join()
    .expect("the admin thread does not panic")
}
