//! One way to run SQL on either database: SQLite (the embedded default) or PostgreSQL (several
//! replicas on one database). The API mirrors rusqlite's (`prepare_cached(..).execute`,
//! `query_row`, `query_map`, `params!`, `.optional()`), so a store function reads the same on both;
//! statements are written in the SQL both databases speak, with `?N` placeholders (translated to
//! `$N` for PostgreSQL) and, where the dialects differ, a branch on [`Connection::dialect`].

mod pg;
mod value;

use std::cell::RefCell;
use std::ops::Deref;

pub use pg::{Manager as PgManager, PgConn};
pub use value::{FromSql, Param, ToSql, Value, ValueRef};

/// Which database a connection speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// A failed statement, or a value that does not fit the Rust type asked for.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Sqlite(rusqlite::Error),
    #[error(transparent)]
    Postgres(#[from] postgres::Error),
    /// A statement PostgreSQL refused, with the statement (the store's own SQL, never a value).
    #[error("{source} in the statement: {sql}")]
    PostgresStatement {
        sql: String,
        source: postgres::Error,
    },
    #[error("{0}")]
    Conversion(String),
    /// `query_row` found nothing; [`OptionalExtension::optional`] turns it into `None`.
    #[error("the query returned no rows")]
    NoRows,
}

impl From<rusqlite::Error> for Error {
    fn from(error: rusqlite::Error) -> Error {
        match error {
            rusqlite::Error::QueryReturnedNoRows => Error::NoRows,
            error => Error::Sqlite(error),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// `.optional()` on a `query_row` result, as in rusqlite.
pub trait OptionalExtension<T> {
    fn optional(self) -> Result<Option<T>>;
}

impl<T> OptionalExtension<T> for Result<T> {
    fn optional(self) -> Result<Option<T>> {
        match self {
            Ok(value) => Ok(Some(value)),
            Err(Error::NoRows) => Ok(None),
            Err(error) => Err(error),
        }
    }
}

/// A statement's parameters: `params![a, b]`, `[a]`, `[a, b]` or `[]`.
pub trait Params {
    fn bind(&self) -> Vec<Param<'_>>;
}

impl Params for &[&dyn ToSql] {
    fn bind(&self) -> Vec<Param<'_>> {
        self.iter().map(|p| p.to_sql()).collect()
    }
}

impl Params for [&dyn ToSql; 0] {
    fn bind(&self) -> Vec<Param<'_>> {
        Vec::new()
    }
}

macro_rules! array_params {
    ($($n:literal),*) => {$(
        impl<T: ToSql> Params for [T; $n] {
            fn bind(&self) -> Vec<Param<'_>> {
                self.iter().map(ToSql::to_sql).collect()
            }
        }
    )*};
}

array_params!(1, 2, 3, 4, 5, 6, 7, 8);

/// Parameters of mixed types, as rusqlite's `params!`.
macro_rules! params {
    () => {
        &[] as &[&dyn $crate::store::sql::ToSql]
    };
    ($($param:expr),+ $(,)?) => {
        &[$(&$param as &dyn $crate::store::sql::ToSql),+] as &[&dyn $crate::store::sql::ToSql]
    };
}
pub(crate) use params;

/// A column index; only `usize`, so that `row.get(0)` needs no annotation.
pub trait RowIndex {
    fn index(self) -> usize;
}

impl RowIndex for usize {
    fn index(self) -> usize {
        self
    }
}

/// One row of a result.
pub struct Row<'r> {
    inner: RowInner<'r>,
}

enum RowInner<'r> {
    Sqlite(&'r rusqlite::Row<'r>),
    Postgres(&'r postgres::Row),
}

impl Row<'_> {
    /// Column `idx` as `T`.
    pub fn get<I: RowIndex, T: FromSql>(&self, idx: I) -> Result<T> {
        let idx = idx.index();
        match self.inner {
            RowInner::Sqlite(row) => T::from_sql(value::from_sqlite(row.get_ref(idx)?)?),
            RowInner::Postgres(row) => T::from_sql(pg::value(row, idx)?),
        }
    }
}

/// An open connection: a SQLite connection, or a PostgreSQL one from the pool.
pub struct Connection<'a> {
    inner: Inner<'a>,
}

enum Inner<'a> {
    SqliteOwned(rusqlite::Connection),
    SqliteBorrowed(&'a rusqlite::Connection),
    Postgres(RefCell<r2d2::PooledConnection<PgManager>>),
}

impl<'a> Connection<'a> {
    /// A SQLite connection opened elsewhere (say, read-only on a running server's file).
    pub fn sqlite(conn: rusqlite::Connection) -> Connection<'static> {
        Connection {
            inner: Inner::SqliteOwned(conn),
        }
    }

    /// A SQLite connection (or transaction) opened elsewhere, borrowed.
    pub fn sqlite_borrowed(conn: &'a rusqlite::Connection) -> Connection<'a> {
        Connection {
            inner: Inner::SqliteBorrowed(conn),
        }
    }

    pub(super) fn postgres(conn: r2d2::PooledConnection<PgManager>) -> Connection<'static> {
        Connection {
            inner: Inner::Postgres(RefCell::new(conn)),
        }
    }

    /// Which database this is.
    pub fn dialect(&self) -> Dialect {
        match self.inner {
            Inner::SqliteOwned(_) | Inner::SqliteBorrowed(_) => Dialect::Sqlite,
            Inner::Postgres(_) => Dialect::Postgres,
        }
    }

    fn as_sqlite(&self) -> Option<&rusqlite::Connection> {
        match &self.inner {
            Inner::SqliteOwned(conn) => Some(conn),
            Inner::SqliteBorrowed(conn) => Some(conn),
            Inner::Postgres(_) => None,
        }
    }

    /// A statement kept prepared on this connection across calls.
    pub fn prepare_cached(&self, sql: &str) -> Result<Statement<'_>> {
        Ok(Statement {
            conn: self,
            sql: sql.to_owned(),
            cached: true,
        })
    }

    /// A statement prepared for its calls here only (for SQL built at run time).
    pub fn prepare(&self, sql: &str) -> Result<Statement<'_>> {
        Ok(Statement {
            conn: self,
            sql: sql.to_owned(),
            cached: false,
        })
    }

    /// Runs one statement; returns how many rows it changed.
    pub fn execute(&self, sql: &str, params: impl Params) -> Result<usize> {
        self.prepare(sql)?.execute(params)
    }

    /// The first row of a query, mapped; [`Error::NoRows`] when there is none.
    pub fn query_row<T>(
        &self,
        sql: &str,
        params: impl Params,
        f: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<T> {
        self.prepare(sql)?.query_row(params, f)
    }

    /// A read transaction: every query through it sees the database as of its first one.
    pub fn snapshot(&self) -> Result<Snapshot<'_, 'a>> {
        self.execute_batch(match self.dialect() {
            Dialect::Sqlite => "BEGIN DEFERRED",
            Dialect::Postgres => "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
        })?;
        Ok(Snapshot { conn: self })
    }

    /// A savepoint: its effects roll back when it is dropped uncommitted.
    pub fn savepoint(&self) -> Result<Savepoint<'_, 'a>> {
        self.execute_batch("SAVEPOINT gitlore")?;
        Ok(Savepoint {
            conn: self,
            released: false,
        })
    }

    /// Runs statements without parameters, separated by semicolons.
    pub fn execute_batch(&self, sql: &str) -> Result<()> {
        match &self.inner {
            Inner::Postgres(conn) => conn.borrow_mut().batch(sql),
            _ => Ok(self
                .as_sqlite()
                .expect("a SQLite connection")
                .execute_batch(sql)?),
        }
    }

    fn run<T, E: From<Error>>(
        &self,
        sql: &str,
        cached: bool,
        params: &[Param<'_>],
        mut f: impl FnMut(&Row<'_>) -> Result<T, E>,
        limit: Option<usize>,
    ) -> Result<Vec<T>, E> {
        let mut out = Vec::new();
        match &self.inner {
            Inner::Postgres(conn) => {
                let rows = conn.borrow_mut().query(sql, cached, params)?;
                for row in rows.iter().take(limit.unwrap_or(usize::MAX)) {
                    out.push(f(&Row {
                        inner: RowInner::Postgres(row),
                    })?);
                }
            }
            _ => {
                let conn = self.as_sqlite().expect("a SQLite connection");
                let (mut kept, mut once);
                let stmt: &mut rusqlite::Statement<'_> = if cached {
                    kept = conn.prepare_cached(sql).map_err(Error::from)?;
                    &mut kept
                } else {
                    once = conn.prepare(sql).map_err(Error::from)?;
                    &mut once
                };
                let mut rows = stmt
                    .query(rusqlite::params_from_iter(params.iter()))
                    .map_err(Error::from)?;
                while let Some(row) = rows.next().map_err(Error::from)? {
                    out.push(f(&Row {
                        inner: RowInner::Sqlite(row),
                    })?);
                    if limit.is_some_and(|limit| out.len() >= limit) {
                        break;
                    }
                }
            }
        }
        Ok(out)
    }

    fn run_execute(&self, sql: &str, cached: bool, params: &[Param<'_>]) -> Result<usize> {
        match &self.inner {
            Inner::Postgres(conn) => conn.borrow_mut().execute(sql, cached, params),
            _ => {
                let conn = self.as_sqlite().expect("a SQLite connection");
                let params = rusqlite::params_from_iter(params.iter());
                Ok(if cached {
                    conn.prepare_cached(sql)?.execute(params)?
                } else {
                    conn.execute(sql, params)?
                })
            }
        }
    }
}

/// A write transaction: [`super::Store::write`] commits it when its closure returns `Ok`.
pub struct Transaction<'a> {
    conn: Connection<'a>,
}

impl<'a> Transaction<'a> {
    pub(super) fn new(conn: Connection<'a>) -> Transaction<'a> {
        Transaction { conn }
    }

    pub(super) fn into_connection(self) -> Connection<'a> {
        self.conn
    }
}

impl<'a> Deref for Transaction<'a> {
    type Target = Connection<'a>;

    fn deref(&self) -> &Connection<'a> {
        &self.conn
    }
}

/// A read transaction on a connection, ended when dropped.
pub struct Snapshot<'c, 'a> {
    conn: &'c Connection<'a>,
}

impl<'a> Deref for Snapshot<'_, 'a> {
    type Target = Connection<'a>;

    fn deref(&self) -> &Connection<'a> {
        self.conn
    }
}

impl Drop for Snapshot<'_, '_> {
    fn drop(&mut self) {
        if let Err(error) = self.conn.execute_batch("ROLLBACK") {
            tracing::warn!(%error, "Cannot end a read transaction");
        }
    }
}

/// A savepoint in a transaction: [`Savepoint::commit`] keeps its effects, dropping it rolls
/// them back.
pub struct Savepoint<'c, 'a> {
    conn: &'c Connection<'a>,
    released: bool,
}

impl Savepoint<'_, '_> {
    pub fn commit(mut self) -> Result<()> {
        self.released = true;
        self.conn.execute_batch("RELEASE gitlore")
    }
}

impl<'a> Deref for Savepoint<'_, 'a> {
    type Target = Connection<'a>;

    fn deref(&self) -> &Connection<'a> {
        self.conn
    }
}

impl Drop for Savepoint<'_, '_> {
    fn drop(&mut self) {
        if !self.released
            && let Err(error) = self
                .conn
                .execute_batch("ROLLBACK TO gitlore; RELEASE gitlore")
        {
            tracing::warn!(%error, "Cannot roll back to a savepoint");
        }
    }
}

/// A statement bound to its connection.
pub struct Statement<'c> {
    conn: &'c Connection<'c>,
    sql: String,
    cached: bool,
}

impl Statement<'_> {
    /// Runs it; returns how many rows it changed.
    pub fn execute(&mut self, params: impl Params) -> Result<usize> {
        self.conn
            .run_execute(&self.sql, self.cached, &params.bind())
    }

    /// The first row, mapped; [`Error::NoRows`] when there is none.
    pub fn query_row<T>(
        &mut self,
        params: impl Params,
        f: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<T> {
        let mut f = Some(f);
        let mut rows = self.conn.run(
            &self.sql,
            self.cached,
            &params.bind(),
            |row| (f.take().expect("called once"))(row),
            Some(1),
        )?;
        rows.pop().ok_or(Error::NoRows)
    }

    /// The names of the columns it returns.
    pub fn column_names(&self) -> Result<Vec<String>> {
        match &self.conn.inner {
            Inner::Postgres(conn) => Ok(conn.borrow_mut().column_names(&self.sql)?),
            _ => {
                let conn = self.conn.as_sqlite().expect("a SQLite connection");
                let stmt = conn.prepare_cached(&self.sql)?;
                Ok(stmt.column_names().iter().map(|c| c.to_string()).collect())
            }
        }
    }

    /// Calls `f` on every row, in order, stopping at its first error.
    pub fn for_each<E: From<Error>>(
        &mut self,
        params: impl Params,
        mut f: impl FnMut(&Row<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.conn
            .run(&self.sql, self.cached, &params.bind(), |row| f(row), None)
            .map(drop)
    }

    /// Every row, mapped, in order.
    pub fn query_map<T>(
        &mut self,
        params: impl Params,
        mut f: impl FnMut(&Row<'_>) -> Result<T>,
    ) -> Result<std::vec::IntoIter<Result<T>>> {
        let rows = self.conn.run(
            &self.sql,
            self.cached,
            &params.bind(),
            |row| Ok::<_, Error>(f(row)),
            None,
        )?;
        Ok(rows.into_iter())
    }
}
