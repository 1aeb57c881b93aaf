//! The analyzer figures a finding may cite as `stat` evidence, each with a stable id
//! (`hotspot:<path>`, `coupling:<a>|<b>`, `fix-after:<fix sha>`) and a sentence that states it.
//! Both synthesizers cite figures through here, and the LLM's citations are checked against it.

use std::collections::BTreeMap;

use chrono::DateTime;

use crate::domain::history::Coupling;
use crate::knowledge::history::{FixAfter, FixTier, HistoryReport, Hotspot};

/// The id of a hotspot figure.
pub fn hotspot_id(hotspot: &Hotspot) -> String {
    format!("hotspot:{}", hotspot.path)
}

/// The id of a coupling figure.
pub fn coupling_id(coupling: &Coupling) -> String {
    format!("coupling:{}|{}", coupling.a, coupling.b)
}

/// The id of a fix-after figure.
pub fn fix_after_id(fix: &FixAfter) -> String {
    format!("fix-after:{}", fix.fix)
}

/// What a hotspot figure says.
pub fn hotspot_text(hotspot: &Hotspot) -> String {
    format!(
        "{} changed in {} commits, {} of them fixes ({}%), last on {}",
        hotspot.path,
        hotspot.commits,
        hotspot.fix_commits,
        percent(hotspot.fix_ratio),
        date(hotspot.last_change)
    )
}

/// What a coupling figure says.
pub fn coupling_text(coupling: &Coupling) -> String {
    format!(
        "{} and {} changed together in {} commits (confidence {}%, lift {:.1})",
        coupling.a,
        coupling.b,
        coupling.commits,
        percent(coupling.confidence),
        coupling.lift
    )
}

/// What a fix-after figure says.
pub fn fix_after_text(fix: &FixAfter) -> String {
    // The quickest tier needs no fix words: it says what happened, not that it was a fix.
    let how = match fix.tier {
        FixTier::SameAuthorQuick => "changed again by the same author",
        FixTier::SameAuthorFixWords => "fixed by the same author",
        FixTier::StrongSignal => "fixed, as a fixup,",
    };
    format!(
        "commit {} was {} {} later by {} ({})",
        short(&fix.change),
        how,
        duration(fix.gap_secs),
        short(&fix.fix),
        fix.files.join(", ")
    )
}

/// Every figure of `history` by id, with its text.
pub fn all(history: &HistoryReport) -> BTreeMap<String, String> {
    let hotspots = history
        .hotspots
        .iter()
        .map(|h| (hotspot_id(h), hotspot_text(h)));
    let couplings = history
        .couplings
        .iter()
        .map(|c| (coupling_id(c), coupling_text(c)));
    let fixes = history
        .fix_after
        .iter()
        .map(|f| (fix_after_id(f), fix_after_text(f)));
    hotspots.chain(couplings).chain(fixes).collect()
}

/// A share as a whole percentage.
pub fn percent(share: f64) -> u32 {
    (share.clamp(0.0, 1.0) * 100.0).round() as u32
}

/// A unix time as `YYYY-MM-DD` (UTC).
pub fn date(unix: i64) -> String {
    DateTime::from_timestamp(unix, 0)
        .map(|t| t.format("%Y-%m-%d").to_string())
        .unwrap_or_else(|| "an unknown date".to_string())
}

/// The first 10 hex digits of a sha.
pub fn short(sha: &str) -> &str {
    sha.get(..10).unwrap_or(sha)
}

/// A duration in the largest unit that keeps it readable.
fn duration(secs: i64) -> String {
    match secs {
        s if s < 3600 => format!("{} min", (s / 60).max(1)),
        s if s < 2 * 86_400 => format!("{} h", s / 3600),
        s => format!("{} days", s / 86_400),
    }
}
