//! How the domain's ids and times are stored: each as the bare SQLite integer it wraps, so that
//! store functions bind and read them without unwrapping, and the rows read as before.

use rusqlite::ToSql;
use rusqlite::types::{FromSql, FromSqlResult, ToSqlOutput, ValueRef};

use crate::domain::{InstallationId, PrNumber, RepoId, UnixMs};

/// Stores each listed `i64` newtype as its integer.
macro_rules! integer_column {
    ($($name:ident),*) => {$(
        impl ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                self.0.to_sql()
            }
        }

        impl FromSql for $name {
            fn column_result(value: ValueRef<'_>) -> FromSqlResult<$name> {
                i64::column_result(value).map($name)
            }
        }
    )*};
}

integer_column!(RepoId, InstallationId, PrNumber, UnixMs);

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;

    #[test]
    fn ids_and_times_are_stored_as_their_integers() {
        let conn = Connection::open_in_memory().unwrap();
        let (stored, typed): (i64, UnixMs) = conn
            .query_row("SELECT ?1, ?2", (RepoId(7), UnixMs(1_500)), |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .unwrap();
        assert_eq!((stored, typed), (7, UnixMs(1_500)));
        let pr: PrNumber = conn.query_row("SELECT 12", [], |row| row.get(0)).unwrap();
        assert_eq!(pr, PrNumber(12));
        let text: rusqlite::Result<InstallationId> =
            conn.query_row("SELECT 'x'", [], |row| row.get(0));
        assert!(text.is_err(), "text is not an id");
    }
}
