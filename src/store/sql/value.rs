//! Values crossing the store boundary: what a parameter binds ([`ToSql`]) and what a column reads
//! as ([`FromSql`]), in SQLite's five storage classes. Both backends map onto them, so a store
//! function binds and reads the same Rust types whichever database is behind it.

use std::borrow::Cow;

use super::Error;
use crate::domain::{InstallationId, PrNumber, RepoId, UnixMs};

/// A bound parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum Param<'a> {
    Null,
    Integer(i64),
    Real(f64),
    Text(Cow<'a, str>),
    Blob(Cow<'a, [u8]>),
}

/// A column's value as read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ValueRef<'a> {
    Null,
    Integer(i64),
    Real(f64),
    Text(&'a str),
    Blob(&'a [u8]),
}

impl ValueRef<'_> {
    fn kind(&self) -> &'static str {
        match self {
            ValueRef::Null => "NULL",
            ValueRef::Integer(_) => "an integer",
            ValueRef::Real(_) => "a real",
            ValueRef::Text(_) => "text",
            ValueRef::Blob(_) => "a blob",
        }
    }
}

/// A column's value, owned: for code that reads rows whatever their columns (copying a table).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl FromSql for Value {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, Error> {
        Ok(match value {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(i) => Value::Integer(i),
            ValueRef::Real(r) => Value::Real(r),
            ValueRef::Text(t) => Value::Text(t.to_owned()),
            ValueRef::Blob(b) => Value::Blob(b.to_vec()),
        })
    }
}

impl ToSql for Value {
    fn to_sql(&self) -> Param<'_> {
        match self {
            Value::Null => Param::Null,
            Value::Integer(i) => Param::Integer(*i),
            Value::Real(r) => Param::Real(*r),
            Value::Text(t) => Param::Text(Cow::Borrowed(t)),
            Value::Blob(b) => Param::Blob(Cow::Borrowed(b)),
        }
    }
}

/// A Rust value that binds as a parameter.
pub trait ToSql {
    fn to_sql(&self) -> Param<'_>;
}

/// A Rust value a column reads as.
pub trait FromSql: Sized {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, Error>;
}

fn mismatch<T>(value: ValueRef<'_>, wanted: &'static str) -> Result<T, Error> {
    Err(Error::Conversion(format!(
        "a column holds {} where {wanted} was expected",
        value.kind()
    )))
}

impl<T: ToSql + ?Sized> ToSql for &T {
    fn to_sql(&self) -> Param<'_> {
        (**self).to_sql()
    }
}

impl<T: ToSql> ToSql for Option<T> {
    fn to_sql(&self) -> Param<'_> {
        self.as_ref().map_or(Param::Null, ToSql::to_sql)
    }
}

impl ToSql for str {
    fn to_sql(&self) -> Param<'_> {
        Param::Text(Cow::Borrowed(self))
    }
}

impl ToSql for String {
    fn to_sql(&self) -> Param<'_> {
        Param::Text(Cow::Borrowed(self))
    }
}

impl ToSql for [u8] {
    fn to_sql(&self) -> Param<'_> {
        Param::Blob(Cow::Borrowed(self))
    }
}

impl ToSql for Vec<u8> {
    fn to_sql(&self) -> Param<'_> {
        Param::Blob(Cow::Borrowed(self))
    }
}

impl ToSql for f64 {
    fn to_sql(&self) -> Param<'_> {
        Param::Real(*self)
    }
}

impl ToSql for f32 {
    fn to_sql(&self) -> Param<'_> {
        Param::Real(f64::from(*self))
    }
}

impl ToSql for bool {
    fn to_sql(&self) -> Param<'_> {
        Param::Integer(i64::from(*self))
    }
}

/// Integers that always fit an `i64`.
macro_rules! small_integer {
    ($($t:ty),*) => {$(
        impl ToSql for $t {
            fn to_sql(&self) -> Param<'_> {
                Param::Integer(i64::from(*self))
            }
        }
    )*};
}

small_integer!(i64, i32, i16, u32, u16, u8);

/// Integers that may not fit an `i64`: bound as the largest `i64` when they do not (counts and
/// limits, where that means "no limit").
macro_rules! wide_integer {
    ($($t:ty),*) => {$(
        impl ToSql for $t {
            fn to_sql(&self) -> Param<'_> {
                Param::Integer(i64::try_from(*self).unwrap_or(i64::MAX))
            }
        }
    )*};
}

wide_integer!(u64, usize);

impl<T: FromSql> FromSql for Option<T> {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, Error> {
        match value {
            ValueRef::Null => Ok(None),
            value => T::from_sql(value).map(Some),
        }
    }
}

impl FromSql for i64 {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, Error> {
        match value {
            ValueRef::Integer(i) => Ok(i),
            value => mismatch(value, "an integer"),
        }
    }
}

/// Integers narrower than `i64`, read with a range check.
macro_rules! narrow_integer {
    ($($t:ty),*) => {$(
        impl FromSql for $t {
            fn from_sql(value: ValueRef<'_>) -> Result<Self, Error> {
                let wide = i64::from_sql(value)?;
                <$t>::try_from(wide).map_err(|_| {
                    Error::Conversion(format!("{wide} is out of range for {}", stringify!($t)))
                })
            }
        }
    )*};
}

narrow_integer!(i32, u32, u64, usize);

impl FromSql for bool {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, Error> {
        i64::from_sql(value).map(|i| i != 0)
    }
}

impl FromSql for f64 {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, Error> {
        match value {
            ValueRef::Real(r) => Ok(r),
            // Both databases may hand back a whole real as an integer.
            ValueRef::Integer(i) => Ok(i as f64),
            value => mismatch(value, "a real"),
        }
    }
}

impl FromSql for f32 {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, Error> {
        f64::from_sql(value).map(|r| r as f32)
    }
}

impl FromSql for String {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, Error> {
        match value {
            ValueRef::Text(t) => Ok(t.to_owned()),
            value => mismatch(value, "text"),
        }
    }
}

impl FromSql for Vec<u8> {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, Error> {
        match value {
            ValueRef::Blob(b) => Ok(b.to_vec()),
            value => mismatch(value, "a blob"),
        }
    }
}

/// Stores each listed `i64` newtype as its integer.
macro_rules! integer_column {
    ($($name:ident),*) => {$(
        impl ToSql for $name {
            fn to_sql(&self) -> Param<'_> {
                Param::Integer(self.0)
            }
        }

        impl FromSql for $name {
            fn from_sql(value: ValueRef<'_>) -> Result<Self, Error> {
                i64::from_sql(value).map($name)
            }
        }
    )*};
}

integer_column!(RepoId, InstallationId, PrNumber, UnixMs);

impl rusqlite::ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef as Sqlite};
        Ok(ToSqlOutput::Borrowed(match self {
            Param::Null => Sqlite::Null,
            Param::Integer(i) => Sqlite::Integer(*i),
            Param::Real(r) => Sqlite::Real(*r),
            Param::Text(t) => Sqlite::Text(t.as_bytes()),
            Param::Blob(b) => Sqlite::Blob(b),
        }))
    }
}

/// A SQLite column's value.
pub(super) fn from_sqlite(value: rusqlite::types::ValueRef<'_>) -> Result<ValueRef<'_>, Error> {
    use rusqlite::types::ValueRef as Sqlite;
    Ok(match value {
        Sqlite::Null => ValueRef::Null,
        Sqlite::Integer(i) => ValueRef::Integer(i),
        Sqlite::Real(r) => ValueRef::Real(r),
        Sqlite::Text(t) => ValueRef::Text(
            std::str::from_utf8(t)
                .map_err(|e| Error::Conversion(format!("text is not UTF-8: {e}")))?,
        ),
        Sqlite::Blob(b) => ValueRef::Blob(b),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_times_are_stored_as_their_integers() {
        assert_eq!(RepoId(7).to_sql(), Param::Integer(7));
        assert_eq!(
            UnixMs::from_sql(ValueRef::Integer(1_500)).unwrap(),
            UnixMs(1_500)
        );
        assert!(
            InstallationId::from_sql(ValueRef::Text("x")).is_err(),
            "text is not an id"
        );
    }

    #[test]
    fn narrow_integers_are_range_checked() {
        assert_eq!(i32::from_sql(ValueRef::Integer(12)).unwrap(), 12);
        assert!(i32::from_sql(ValueRef::Integer(i64::MAX)).is_err());
        assert!(usize::from_sql(ValueRef::Integer(-1)).is_err());
        assert_eq!(usize::MAX.to_sql(), Param::Integer(i64::MAX));
    }

    #[test]
    fn null_reads_as_none_and_only_as_none() {
        assert_eq!(Option::<String>::from_sql(ValueRef::Null).unwrap(), None);
        assert!(String::from_sql(ValueRef::Null).is_err());
    }
}
