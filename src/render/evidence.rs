//! The parts of a finding both the findings issue and the check run show: its evidence, one
//! line each with a quiet link to the source, and its list of files.

use std::collections::HashMap;

use crate::domain::findings::{Evidence, EvidenceKind};
use crate::render::links::{LinkStyle, code_span, untrusted};
use crate::render::wording;

/// Hex digits of a commit sha shown in text.
const SHORT_SHA_LEN: usize = 7;

/// Where evidence links point.
#[derive(Debug, Clone, Copy)]
pub struct Sources<'a> {
    /// The web URL of each cited review comment, by store id (`comments.id`).
    pub comment_links: &'a HashMap<i64, String>,
    /// The web URL a commit's sha is appended to, e.g. `https://github.com/o/r/commit/`; empty
    /// when the repository has no web page (a local repository): commits are then not linked.
    pub commit_link_base: &'a str,
    pub links: &'a LinkStyle,
}

impl Sources<'_> {
    /// A link to commit `sha` labelled with its short form; no link unless `sha` is hex and
    /// there is a base to link to.
    pub fn commit(&self, sha: &str) -> String {
        let short: String = sha.chars().take(SHORT_SHA_LEN).collect();
        let linkable = !sha.is_empty() && sha.chars().all(|c| c.is_ascii_hexdigit());
        if linkable && !self.commit_link_base.is_empty() {
            let url = format!("{}{sha}", self.commit_link_base);
            self.links.link(&code_span(&short), &url)
        } else {
            code_span(&short)
        }
    }
}

/// One evidence item as a list item, its text capped at `text_chars` characters.
pub fn evidence_line(evidence: &Evidence, sources: &Sources, text_chars: usize) -> String {
    let text = untrusted(&evidence.text, sources.links, text_chars);
    let label = wording::evidence_label(evidence.kind);
    let cited = match evidence.kind {
        EvidenceKind::Comment => {
            let url = evidence
                .id
                .parse::<i64>()
                .ok()
                .and_then(|id| sources.comment_links.get(&id));
            match url {
                Some(url) => sources.links.link(label, url),
                None => label.to_string(),
            }
        }
        EvidenceKind::Commit => format!("{label} {}", sources.commit(&evidence.id)),
        EvidenceKind::File => format!("{label} {}", code_span(&evidence.id)),
        EvidenceKind::Stat => label.to_string(),
    };
    if text.is_empty() {
        format!("- {cited}")
    } else {
        format!("- {cited}: {text}")
    }
}

/// The first `max` files as code spans, then how many more.
pub fn files_list(files: &[String], max: usize) -> String {
    let mut shown: Vec<String> = files.iter().take(max).map(|f| code_span(f)).collect();
    if files.len() > max {
        shown.push(wording::more_files(files.len() - max));
    }
    shown.join(", ")
}
