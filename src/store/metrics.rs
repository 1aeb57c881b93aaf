//! The figures `/metrics` exposes: counts by state, summed over every repository, so that no
//! repository's name or data shows (private repositories included).

use super::sql::Connection;
use anyhow::Result;

/// One labelled count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Count {
    /// `(label name, label value)` pairs.
    pub labels: Vec<(&'static str, String)>,
    pub value: i64,
}

/// A metric: its name, help text and values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metric {
    pub name: &'static str,
    pub help: &'static str,
    pub values: Vec<Count>,
}

/// Every metric, read in one snapshot.
pub fn snapshot(conn: &Connection) -> Result<Vec<Metric>> {
    let snapshot = conn.snapshot()?;
    let metrics = vec![
        grouped(
            &snapshot,
            "gitlore_deliveries",
            "Webhook deliveries stored, by state.",
            "SELECT state, count(*) FROM deliveries GROUP BY state",
            &["state"],
        )?,
        grouped(
            &snapshot,
            "gitlore_jobs",
            "Jobs (backfill, analysis, check run, command, dismissals), by kind and state.",
            "SELECT kind, state, count(*) FROM jobs GROUP BY kind, state",
            &["kind", "state"],
        )?,
        grouped(
            &snapshot,
            "gitlore_comments",
            "Review comments stored and not deleted, by kind.",
            "SELECT kind, count(*) FROM comments WHERE deleted = 0 GROUP BY kind",
            &["kind"],
        )?,
        grouped(
            &snapshot,
            "gitlore_findings",
            "Findings, by status.",
            "SELECT status, count(*) FROM findings GROUP BY status",
            &["status"],
        )?,
        grouped(
            &snapshot,
            "gitlore_backfills",
            "Repository backfills, by state.",
            "SELECT state, count(*) FROM backfills GROUP BY state",
            &["state"],
        )?,
        grouped(
            &snapshot,
            "gitlore_backfill_pull_requests",
            "Pull requests read by backfills, by backfill state.",
            "SELECT state, CAST(sum(prs_done) AS BIGINT) FROM backfills GROUP BY state",
            &["state"],
        )?,
        grouped(
            &snapshot,
            "gitlore_repositories",
            "Repositories gitlore knows, live or removed.",
            "SELECT CASE removed WHEN 0 THEN 'live' ELSE 'removed' END, count(*)
               FROM repos GROUP BY removed",
            &["state"],
        )?,
        grouped(
            &snapshot,
            "gitlore_redelivery_last_sweep",
            "What the last redelivery sweep found: deliveries GitHub records as failed, those \
             asked again, those the store held all the same.",
            "SELECT 'failed', failed FROM redelivery_sweep
             UNION ALL SELECT 'redelivered', redelivered FROM redelivery_sweep
             UNION ALL SELECT 'already_stored', already_stored FROM redelivery_sweep",
            &["found"],
        )?,
        grouped(
            &snapshot,
            "gitlore_redelivery_sweeps",
            "Redelivery sweeps finished.",
            "SELECT 'finished', sweeps FROM redelivery_sweep",
            &["state"],
        )?,
        grouped(
            &snapshot,
            "gitlore_redelivery_requests",
            "Deliveries GitHub was asked to send again, remembered for three days.",
            "SELECT 'requested', count(*) FROM redelivery_requests",
            &["state"],
        )?,
    ];
    Ok(metrics)
}

/// A metric from a query whose first columns are the label values and whose last is the count.
fn grouped(
    conn: &Connection,
    name: &'static str,
    help: &'static str,
    sql: &str,
    labels: &[&'static str],
) -> Result<Metric> {
    let mut stmt = conn.prepare_cached(sql)?;
    let values = stmt.query_map([], |row| {
        let mut pairs = Vec::with_capacity(labels.len());
        for (i, label) in labels.iter().enumerate() {
            pairs.push((*label, row.get::<_, String>(i)?));
        }
        Ok(Count {
            labels: pairs,
            value: row.get::<_, Option<i64>>(labels.len())?.unwrap_or(0),
        })
    })?;
    Ok(Metric {
        name,
        help,
        values: values.collect::<super::sql::Result<_>>()?,
    })
}

/// The metrics in Prometheus' text format.
pub fn prometheus_text(metrics: &[Metric]) -> String {
    let mut out = String::new();
    for metric in metrics {
        out.push_str(&format!("# HELP {} {}\n", metric.name, metric.help));
        out.push_str(&format!("# TYPE {} gauge\n", metric.name));
        for count in &metric.values {
            let labels: Vec<String> = count
                .labels
                .iter()
                .map(|(name, value)| format!("{name}=\"{}\"", escape(value)))
                .collect();
            out.push_str(&format!(
                "{}{{{}}} {}\n",
                metric.name,
                labels.join(","),
                count.value
            ));
        }
    }
    out
}

/// A label value escaped as the text format asks (`\`, `"`, newline).
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}
