//! `--format xml`: the findings XML of behaviour §3.3, the document the LLM synthesizer answers with
//! (`synthesize::answer::parse_findings` reads it back). Comments are cited by the input's ids.

use super::report::Report;
use crate::render::findings_xml::findings_document;

/// The active findings as a `<findings>` document.
pub fn render(report: &Report) -> String {
    findings_document(&report.outcome.listing.active, |e| report.evidence_id(e))
}
