//! `--format json`: exactly the object of behaviour §8, which scripts and evaluations rely on (its
//! shape is `lessons::json`, which `gitlore export` extends).

use anyhow::{Context, Result};

use super::report::Report;
use crate::lessons::json::{CommentJson, FindingJson, ReportJson, ThemeJson, noise_name};

/// The report as one JSON object, pretty-printed.
pub fn render(report: &Report) -> Result<String> {
    let output = ReportJson {
        repo: None,
        analysed_at: None,
        comments: report
            .comments
            .iter()
            .map(|c| {
                let (labels, noise, labelled_by) = c.verdict();
                CommentJson {
                    id: report.input_id(c.id),
                    labels,
                    noise: noise_name(noise.as_deref()),
                    labelled_by,
                }
            })
            .collect(),
        themes: report
            .outcome
            .themes
            .themes
            .iter()
            .map(|t| ThemeJson {
                id: t.id.clone(),
                label: t.label.clone(),
                comment_ids: t.members.iter().map(|&id| report.input_id(id)).collect(),
            })
            .collect(),
        findings: report
            .outcome
            .listing
            .active
            .iter()
            .map(|f| FindingJson::of(f, |e| report.evidence_id(e), |_| None))
            .collect(),
        couplings: None,
        effect: Some(report.outcome.effect.report.clone()),
    };
    serde_json::to_string_pretty(&output).context("Cannot write the findings as JSON")
}
