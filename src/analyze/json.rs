//! `--format json`: exactly the object of behaviour §8, which scripts and evaluations rely on (its
//! shape is `lessons::json`, which `gitlore export` extends).

use anyhow::{Context, Result};

use super::report::Report;
use crate::lessons::json::{
    CommentJson, EvidenceJson, FindingJson, ReportJson, ThemeJson, noise_name,
};

/// The report as one JSON object, pretty-printed.
pub fn render(report: &Report) -> Result<String> {
    let output = ReportJson {
        repo: None,
        analysed_at: None,
        comments: report
            .comments
            .iter()
            .map(|c| CommentJson {
                id: report.input_id(c.id),
                labels: c.labels.clone(),
                noise: noise_name(c.noise.as_deref()),
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
            .map(|f| FindingJson {
                id: f.id.clone(),
                category: f.category.as_str().to_string(),
                severity: f.severity.as_str().to_string(),
                title: f.title.clone(),
                insight: f.insight.clone(),
                files: f.files.clone(),
                evidence: f
                    .evidence
                    .iter()
                    .map(|e| EvidenceJson {
                        kind: e.kind.as_str().to_string(),
                        id: report.evidence_id(e),
                        text: e.text.clone(),
                        url: None,
                    })
                    .collect(),
            })
            .collect(),
        couplings: None,
    };
    serde_json::to_string_pretty(&output).context("Cannot write the findings as JSON")
}
