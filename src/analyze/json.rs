//! `--format json`: exactly the object of SPEC §8, which scripts and evaluations rely on.

use anyhow::{Context, Result};
use serde::Serialize;

use super::report::Report;

#[derive(Serialize)]
struct Output<'a> {
    comments: Vec<Comment<'a>>,
    themes: Vec<Theme<'a>>,
    findings: Vec<Finding<'a>>,
}

#[derive(Serialize)]
struct Comment<'a> {
    id: String,
    labels: &'a [String],
    /// `bot` or `trivial`; the App's own comments count as a bot's.
    noise: Option<&'static str>,
}

#[derive(Serialize)]
struct Theme<'a> {
    id: &'a str,
    label: &'a str,
    comment_ids: Vec<String>,
}

#[derive(Serialize)]
struct Finding<'a> {
    id: &'a str,
    category: &'static str,
    severity: &'static str,
    title: &'a str,
    insight: &'a str,
    files: &'a [String],
    evidence: Vec<Evidence<'a>>,
}

#[derive(Serialize)]
struct Evidence<'a> {
    kind: &'static str,
    id: String,
    text: &'a str,
}

/// The report as one JSON object, pretty-printed.
pub fn render(report: &Report) -> Result<String> {
    let output = Output {
        comments: report
            .comments
            .iter()
            .map(|c| Comment {
                id: report.input_id(c.id),
                labels: &c.labels,
                noise: c.noise.as_deref().map(|noise| match noise {
                    "trivial" => "trivial",
                    _ => "bot",
                }),
            })
            .collect(),
        themes: report
            .outcome
            .themes
            .themes
            .iter()
            .map(|t| Theme {
                id: &t.id,
                label: &t.label,
                comment_ids: t.members.iter().map(|&id| report.input_id(id)).collect(),
            })
            .collect(),
        findings: report
            .outcome
            .listing
            .active
            .iter()
            .map(|f| Finding {
                id: &f.id,
                category: f.category.as_str(),
                severity: f.severity.as_str(),
                title: &f.title,
                insight: &f.insight,
                files: &f.files,
                evidence: f
                    .evidence
                    .iter()
                    .map(|e| Evidence {
                        kind: e.kind.as_str(),
                        id: report.evidence_id(e),
                        text: &e.text,
                    })
                    .collect(),
            })
            .collect(),
    };
    serde_json::to_string_pretty(&output).context("Cannot write the findings as JSON")
}
