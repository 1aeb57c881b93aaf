//! PostgreSQL under the [`super::Connection`] API: pooled connections with their prepared
//! statements, `?N` placeholders as `$N`, and values bound and read in SQLite's storage classes.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::mpsc;

use bytes::BytesMut;
use postgres::types::{IsNull, ToSql as PgToSql, Type, to_sql_checked};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::value::{Param, ValueRef};
use super::{Error, Result};

/// Prepared statements kept per connection before the cache starts over (SQL built at run time,
/// such as an `IN` list, is never cached, so this bound is never reached in practice).
const STATEMENT_CACHE_CAPACITY: usize = 256;

/// A pooled PostgreSQL connection and the statements prepared on it.
///
/// The `postgres` client blocks on a runtime of its own, which tokio forbids on a thread that is
/// already running async code; so each connection lives on a thread of its own, and a call hands
/// it the work and waits for the answer. Store functions can then be called from anywhere.
pub struct PgConn {
    work: mpsc::Sender<Work>,
    statements: HashMap<String, postgres::Statement>,
    closed: bool,
}

type Work = Box<dyn FnOnce(&mut postgres::Client) + Send>;

impl PgConn {
    fn open(config: postgres::Config, tls: MakeRustlsConnect) -> Result<PgConn> {
        let (work, inbox) = mpsc::channel::<Work>();
        let (opened, open_result) = mpsc::sync_channel(1);
        std::thread::Builder::new()
            .name("postgres-connection".into())
            .spawn(move || {
                let mut client = match config.connect(tls) {
                    Ok(client) => {
                        let _ = opened.send(Ok(()));
                        client
                    }
                    Err(error) => {
                        let _ = opened.send(Err(error));
                        return;
                    }
                };
                // Ends when the connection is dropped (its sender with it).
                for work in inbox {
                    work(&mut client);
                }
            })
            .map_err(|error| {
                Error::Conversion(format!("cannot start a connection thread: {error}"))
            })?;
        match open_result.recv() {
            Ok(Ok(())) => Ok(PgConn {
                work,
                statements: HashMap::new(),
                closed: false,
            }),
            Ok(Err(error)) => Err(error.into()),
            Err(_) => Err(Error::Conversion("the connection thread ended".into())),
        }
    }

    /// Runs `f` on the connection's client and waits for its answer.
    pub fn with_client<R: Send + 'static>(
        &mut self,
        f: impl FnOnce(&mut postgres::Client) -> R + Send + 'static,
    ) -> Result<R> {
        let (answer, answered) = mpsc::sync_channel(1);
        let sent = self.work.send(Box::new(move |client| {
            let _ = answer.send(f(client));
        }));
        match sent.ok().and_then(|()| answered.recv().ok()) {
            Some(value) => Ok(value),
            None => {
                self.closed = true;
                Err(Error::Conversion("the database connection is gone".into()))
            }
        }
    }

    fn statement(&mut self, sql: &str) -> Result<postgres::Statement> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let translated = placeholders(sql).into_owned();
        let statement = self
            .with_client(move |client| client.prepare(&translated))?
            .map_err(|source| in_statement(sql, source))?;
        if self.statements.len() >= STATEMENT_CACHE_CAPACITY {
            self.statements.clear();
        }
        self.statements.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }

    pub(super) fn column_names(&mut self, sql: &str) -> Result<Vec<String>> {
        let statement = self.statement(sql)?;
        Ok(statement
            .columns()
            .iter()
            .map(|c| c.name().to_owned())
            .collect())
    }

    pub(super) fn query(
        &mut self,
        sql: &str,
        cached: bool,
        params: &[Param<'_>],
    ) -> Result<Vec<postgres::Row>> {
        let params = owned(params);
        let rows = if cached {
            let statement = self.statement(sql)?;
            self.with_client(move |client| client.query(&statement, &refs(&params)))?
        } else {
            let translated = placeholders(sql).into_owned();
            self.with_client(move |client| client.query(translated.as_str(), &refs(&params)))?
        };
        rows.map_err(|source| in_statement(sql, source))
    }

    pub(super) fn execute(
        &mut self,
        sql: &str,
        cached: bool,
        params: &[Param<'_>],
    ) -> Result<usize> {
        let params = owned(params);
        let changed = if cached {
            let statement = self.statement(sql)?;
            self.with_client(move |client| client.execute(&statement, &refs(&params)))?
        } else {
            let translated = placeholders(sql).into_owned();
            self.with_client(move |client| client.execute(translated.as_str(), &refs(&params)))?
        }
        .map_err(|source| in_statement(sql, source))?;
        Ok(usize::try_from(changed).unwrap_or(usize::MAX))
    }

    /// Runs statements without parameters (`BEGIN`, `COMMIT`, DDL).
    pub fn batch(&mut self, sql: &str) -> Result<()> {
        let owned_sql = sql.to_owned();
        self.with_client(move |client| client.batch_execute(&owned_sql))?
            .map_err(|source| in_statement(sql, source))
    }
}

/// Parameters the connection thread can own.
fn owned(params: &[Param<'_>]) -> Vec<Param<'static>> {
    params
        .iter()
        .map(|param| match param {
            Param::Null => Param::Null,
            Param::Integer(i) => Param::Integer(*i),
            Param::Real(r) => Param::Real(*r),
            Param::Text(t) => Param::Text(Cow::Owned(t.to_string())),
            Param::Blob(b) => Param::Blob(Cow::Owned(b.to_vec())),
        })
        .collect()
}

fn refs<'a>(params: &'a [Param<'_>]) -> Vec<&'a (dyn PgToSql + Sync)> {
    params.iter().map(|p| p as _).collect()
}

/// A refused statement, named by its first line or so (the store's own SQL).
fn in_statement(sql: &str, source: postgres::Error) -> Error {
    let sql: String = sql.split_whitespace().collect::<Vec<_>>().join(" ");
    let sql = match sql.char_indices().nth(160) {
        Some((cut, _)) => format!("{}…", &sql[..cut]),
        None => sql,
    };
    Error::PostgresStatement { sql, source }
}

/// Opens pooled connections (r2d2's side of the pool).
#[derive(Clone)]
pub struct Manager {
    config: postgres::Config,
    tls: MakeRustlsConnect,
}

impl Manager {
    pub fn new(config: postgres::Config, tls: MakeRustlsConnect) -> Manager {
        Manager { config, tls }
    }

    /// One connection, outside the pool: to report why the database cannot be reached.
    pub fn connect(&self) -> Result<PgConn> {
        PgConn::open(self.config.clone(), self.tls.clone())
    }
}

impl r2d2::ManageConnection for Manager {
    type Connection = PgConn;
    type Error = Error;

    fn connect(&self) -> Result<PgConn> {
        Manager::connect(self)
    }

    fn is_valid(&self, conn: &mut PgConn) -> Result<()> {
        conn.batch("")
    }

    fn has_broken(&self, conn: &mut PgConn) -> bool {
        conn.closed
            || conn
                .with_client(|client| client.is_closed())
                .unwrap_or(true)
    }
}

/// `?N` and `?` placeholders as PostgreSQL's `$N`, outside quotes and comments.
pub(super) fn placeholders(sql: &str) -> Cow<'_, str> {
    if !sql.contains('?') {
        return Cow::Borrowed(sql);
    }
    let mut out = String::with_capacity(sql.len() + 8);
    let mut chars = sql.chars().peekable();
    let mut next_bare = 1;
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                out.push(c);
                if c == q {
                    quote = None;
                }
            }
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                out.push(c);
            }
            None if c == '-' && chars.peek() == Some(&'-') => {
                out.push(c);
                for c in chars.by_ref() {
                    out.push(c);
                    if c == '\n' {
                        break;
                    }
                }
            }
            None if c == '?' => {
                out.push('$');
                let mut digits = false;
                while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
                    out.push(d);
                    chars.next();
                    digits = true;
                }
                if !digits {
                    out.push_str(&next_bare.to_string());
                    next_bare += 1;
                }
            }
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Column `idx` of a PostgreSQL row in SQLite's storage classes.
pub(super) fn value(row: &postgres::Row, idx: usize) -> Result<ValueRef<'_>> {
    let column = row
        .columns()
        .get(idx)
        .ok_or_else(|| Error::Conversion(format!("there is no column {idx}")))?;
    let ty = column.type_();
    macro_rules! read {
        ($t:ty, $to:expr) => {
            row.try_get::<_, Option<$t>>(idx)?
                .map_or(ValueRef::Null, $to)
        };
    }
    Ok(match *ty {
        Type::INT8 => read!(i64, ValueRef::Integer),
        Type::INT4 => read!(i32, |i| ValueRef::Integer(i64::from(i))),
        Type::INT2 => read!(i16, |i| ValueRef::Integer(i64::from(i))),
        Type::BOOL => read!(bool, |b| ValueRef::Integer(i64::from(b))),
        Type::FLOAT8 => read!(f64, ValueRef::Real),
        Type::FLOAT4 => read!(f32, |r| ValueRef::Real(f64::from(r))),
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => {
            read!(&str, ValueRef::Text)
        }
        Type::BYTEA => read!(&[u8], ValueRef::Blob),
        _ => {
            return Err(Error::Conversion(format!(
                "column {} has type {ty}, which the store does not read (cast it)",
                column.name()
            )));
        }
    })
}

impl PgToSql for Param<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> std::result::Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Param::Null => Ok(IsNull::Yes),
            Param::Integer(i) => match *ty {
                Type::INT8 => i.to_sql(ty, out),
                Type::INT4 => i32::try_from(*i)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(*i)?.to_sql(ty, out),
                Type::BOOL => (*i != 0).to_sql(ty, out),
                Type::FLOAT8 => (*i as f64).to_sql(ty, out),
                Type::TEXT | Type::VARCHAR | Type::UNKNOWN => {
                    i.to_string().as_str().to_sql(ty, out)
                }
                _ => Err(format!("an integer cannot bind to a {ty} parameter").into()),
            },
            Param::Real(r) => match *ty {
                Type::FLOAT8 => r.to_sql(ty, out),
                Type::FLOAT4 => (*r as f32).to_sql(ty, out),
                _ => Err(format!("a real cannot bind to a {ty} parameter").into()),
            },
            Param::Text(t) => t.as_ref().to_sql(ty, out),
            Param::Blob(b) => b.as_ref().to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

#[cfg(test)]
mod tests {
    use super::placeholders;

    #[test]
    fn placeholders_become_dollar_numbers_outside_quotes_and_comments() {
        assert_eq!(
            placeholders("SELECT ?1, ?12 FROM t WHERE a = '?' AND b = ? -- why?\n AND c = ?"),
            "SELECT $1, $12 FROM t WHERE a = '?' AND b = $1 -- why?\n AND c = $2"
        );
        assert_eq!(placeholders("SELECT 1"), "SELECT 1");
        assert_eq!(
            placeholders(r#"SELECT "a?" FROM t"#),
            r#"SELECT "a?" FROM t"#
        );
    }
}
