//! PostgreSQL under the [`super::Connection`] API: pooled connections with their prepared
//! statements, `?N` placeholders as `$N`, and values bound and read in SQLite's storage classes.

use std::borrow::Cow;
use std::collections::HashMap;

use bytes::BytesMut;
use postgres::types::{IsNull, ToSql as PgToSql, Type, to_sql_checked};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::value::{Param, ValueRef};
use super::{Error, Result};

/// Prepared statements kept per connection before the cache starts over (SQL built at run time,
/// such as an `IN` list, is never cached, so this bound is never reached in practice).
const STATEMENT_CACHE_CAPACITY: usize = 256;

/// A pooled PostgreSQL connection and the statements prepared on it.
pub struct PgConn {
    pub(super) client: postgres::Client,
    statements: HashMap<String, postgres::Statement>,
}

impl PgConn {
    fn statement(&mut self, sql: &str) -> Result<postgres::Statement> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(&placeholders(sql))?;
        if self.statements.len() >= STATEMENT_CACHE_CAPACITY {
            self.statements.clear();
        }
        self.statements.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }

    pub(super) fn column_names(&mut self, sql: &str) -> Result<Vec<String>> {
        let statement = self.statement(sql)?;
        Ok(statement.columns().iter().map(|c| c.name().to_owned()).collect())
    }

    pub(super) fn query(
        &mut self,
        sql: &str,
        cached: bool,
        params: &[Param<'_>],
    ) -> Result<Vec<postgres::Row>> {
        let params: Vec<&(dyn PgToSql + Sync)> = params.iter().map(|p| p as _).collect();
        Ok(if cached {
            let statement = self.statement(sql)?;
            self.client.query(&statement, &params)?
        } else {
            self.client.query(placeholders(sql).as_ref(), &params)?
        })
    }

    pub(super) fn execute(
        &mut self,
        sql: &str,
        cached: bool,
        params: &[Param<'_>],
    ) -> Result<usize> {
        let params: Vec<&(dyn PgToSql + Sync)> = params.iter().map(|p| p as _).collect();
        let changed = if cached {
            let statement = self.statement(sql)?;
            self.client.execute(&statement, &params)?
        } else {
            self.client.execute(placeholders(sql).as_ref(), &params)?
        };
        Ok(usize::try_from(changed).unwrap_or(usize::MAX))
    }

    /// The client itself, for what the store does outside its API (migrations).
    pub fn client_mut(&mut self) -> &mut postgres::Client {
        &mut self.client
    }

    /// Runs statements without parameters (`BEGIN`, `COMMIT`, DDL).
    pub fn batch(&mut self, sql: &str) -> Result<()> {
        Ok(self.client.batch_execute(sql)?)
    }
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
        Ok(PgConn {
            client: self.config.connect(self.tls.clone())?,
            statements: HashMap::new(),
        })
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
        conn.client.is_closed()
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
                Type::TEXT | Type::VARCHAR | Type::UNKNOWN => i.to_string().as_str().to_sql(ty, out),
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
        assert_eq!(placeholders(r#"SELECT "a?" FROM t"#), r#"SELECT "a?" FROM t"#);
    }
}
