//! Copies one store into another (`gitlore migrate-store`): every table but the sign-in sessions,
//! in an order that keeps foreign keys satisfied, in one transaction on the target, then checks the counts. For a team
//! moving its SQLite installation to PostgreSQL with its history, dismissals and pinned issue.

use anyhow::{Context, Result, bail, ensure};

use super::Store;
use super::sql::{Connection, Dialect, ToSql, Value};

/// Every table copied, parents before children. A migration that adds a table adds it here or to
/// [`NOT_COPIED`]: copying refuses a source with a table neither list names.
const TABLES: &[&str] = &[
    "installations",
    "repos",
    "deliveries",
    "delivery_bodies",
    "pull_requests",
    "comments",
    "review_threads",
    "classifications",
    "jobs",
    "llm_labels",
    "embeddings",
    "themes",
    "theme_members",
    "backfills",
    "findings",
    "finding_runs",
    "commits",
    "commit_files",
    "history_heads",
    "findings_issues",
    "check_runs",
    "analysis_runs",
    "couplings",
    "llm_spend",
    "redelivery_requests",
    "redelivery_sweep",
];

/// Tables left behind on purpose: sign-in sessions last 8 hours, and people sign in again on the
/// new store (their sealed tokens are not spread to another database).
const NOT_COPIED: &[&str] = &["web_sessions"];

/// Columns the database assigns (identity columns on PostgreSQL): after a copy, the next value
/// must come after the copied ones.
const ASSIGNED: &[(&str, &str)] = &[("deliveries", "seq"), ("jobs", "id"), ("comments", "id")];

/// Rows inserted per statement.
const ROWS_PER_INSERT: usize = 200;

/// Copies every row of `from` into `to`, which must hold no data yet; returns the rows copied
/// per table, checked against the source.
pub fn copy(from: &Store, to: &Store) -> Result<Vec<(&'static str, i64)>> {
    let source = from.reader()?;
    let snapshot = source.snapshot()?;
    check_tables(&snapshot)?;
    let target_rows = {
        let target = to.reader()?;
        count(&target, "repos")? + count(&target, "deliveries")? + count(&target, "comments")?
    };
    ensure!(
        target_rows == 0,
        "The target database {} already holds data: migrate-store copies into an empty store only",
        to.describe()
    );
    let mut copied = Vec::new();
    to.write(|tx| {
        // The target's one seeded row gives way to the source's.
        tx.execute("DELETE FROM redelivery_sweep", [])?;
        for table in TABLES {
            copy_table(&snapshot, tx, table)
                .with_context(|| format!("Cannot copy the table {table}"))?;
        }
        if tx.dialect() == Dialect::Postgres {
            for (table, column) in ASSIGNED {
                tx.execute_batch(&format!(
                    "SELECT setval(pg_get_serial_sequence('{table}', '{column}'),
                                   coalesce((SELECT max({column}) FROM {table}), 0) + 1, false)"
                ))?;
            }
        }
        for table in TABLES {
            let (want, got) = (count(&snapshot, table)?, count(tx, table)?);
            if want != got {
                bail!("{table}: {want} rows in the source, {got} copied");
            }
            copied.push((*table, got));
        }
        Ok(())
    })?;
    Ok(copied)
}

/// Refuses a source holding a table neither [`TABLES`] nor [`NOT_COPIED`] names (its rows would
/// be left behind unsaid).
fn check_tables(source: &Connection<'_>) -> Result<()> {
    let sql = match source.dialect() {
        Dialect::Sqlite => {
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        }
        Dialect::Postgres => {
            "SELECT table_name FROM information_schema.tables
              WHERE table_schema = current_schema() AND table_name <> 'gitlore_schema'"
        }
    };
    let names: Vec<String> = source
        .prepare(sql)?
        .query_map([], |row| row.get(0))?
        .collect::<super::sql::Result<_>>()?;
    if let Some(unknown) = names
        .iter()
        .find(|name| !TABLES.contains(&name.as_str()) && !NOT_COPIED.contains(&name.as_str()))
    {
        bail!("The source store has a table migrate-store does not know: {unknown}");
    }
    Ok(())
}

fn count(conn: &Connection<'_>, table: &str) -> Result<i64> {
    Ok(
        conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |row| {
            row.get(0)
        })?,
    )
}

fn copy_table(source: &Connection<'_>, target: &Connection<'_>, table: &str) -> Result<()> {
    let mut select = source.prepare(&format!("SELECT * FROM {table}"))?;
    let columns = select.column_names()?;
    let rows: Vec<Vec<Value>> = select
        .query_map([], |row| (0..columns.len()).map(|i| row.get(i)).collect())?
        .collect::<super::sql::Result<_>>()?;
    for chunk in rows.chunks(ROWS_PER_INSERT) {
        let placeholders: Vec<String> = (0..chunk.len())
            .map(|r| {
                let numbers: Vec<String> = (1..=columns.len())
                    .map(|c| format!("?{}", r * columns.len() + c))
                    .collect();
                format!("({})", numbers.join(", "))
            })
            .collect();
        let sql = format!(
            "INSERT INTO {table} ({}) VALUES {}",
            columns.join(", "),
            placeholders.join(", ")
        );
        let params: Vec<&dyn ToSql> = chunk.iter().flatten().map(|v| v as &dyn ToSql).collect();
        target.prepare(&sql)?.execute(params.as_slice())?;
    }
    Ok(())
}
