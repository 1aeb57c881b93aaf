//! The findings XML: the document the LLM synthesizer answers with (`synthesize::answer::
//! parse_findings` reads it back), written by `analyze --format xml` and the exports.

use quick_xml::escape::escape;

use crate::domain::findings::{Evidence, Finding};

/// `findings` as a `<findings>` document, evidence cited by `evidence_id`.
pub fn findings_document(
    findings: &[Finding],
    evidence_id: impl Fn(&Evidence) -> String,
) -> String {
    let mut out = String::from("<findings>\n");
    for finding in findings {
        out.push_str(&format!(
            "  <finding id=\"{}\" category=\"{}\" severity=\"{}\">\n",
            escape(finding.id.as_str()),
            finding.category.as_str(),
            finding.severity.as_str()
        ));
        out.push_str(&format!(
            "    <title>{}</title>\n",
            escape(finding.title.as_str())
        ));
        out.push_str(&format!(
            "    <insight>{}</insight>\n",
            escape(finding.insight.as_str())
        ));
        out.push_str("    <files>\n");
        for file in &finding.files {
            out.push_str(&format!("      <file>{}</file>\n", escape(file.as_str())));
        }
        out.push_str("    </files>\n    <evidence>\n");
        for evidence in &finding.evidence {
            out.push_str(&format!(
                "      <ref kind=\"{}\" id=\"{}\"/>\n",
                evidence.kind.as_str(),
                escape(evidence_id(evidence).as_str())
            ));
        }
        out.push_str("    </evidence>\n  </finding>\n");
    }
    out.push_str("</findings>\n");
    out
}
