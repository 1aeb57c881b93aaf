//! What the markdown output says when there were no review comments: findings need review
//! evidence (behaviour §3.3), so the history alone gives none; the user is told how to add comments,
//! and the history's strongest figures are shown as notes, in the analyzers' own wording — about
//! code only: a changelog or a lockfile changes with everything and teaches nothing.

use crate::knowledge::history::HistoryReport;
use crate::knowledge::history::file_kind::FileKind;
use crate::knowledge::synthesize::figures;

/// Hotspots named in the notes.
const HOTSPOTS_SHOWN: usize = 2;

/// The notes for a run without review comments, from `history` as the repository's config left
/// it (`Exclusions::filter_history`).
pub fn notes(history: &HistoryReport) -> Vec<String> {
    let code = |path: &str| !FileKind::of(path).is_bookkeeping();
    let mut notes = vec![
        "No review comments were analysed, and a finding needs review evidence: add them with \
         `--reviews FILE` or `--github owner/name`."
            .to_string(),
    ];
    let hotspots = history.hotspots.iter().filter(|h| code(&h.path));
    for hotspot in hotspots.take(HOTSPOTS_SHOWN) {
        notes.push(format!("Hotspot: {}.", figures::hotspot_text(hotspot)));
    }
    let mut couplings = history.couplings.iter();
    if let Some(coupling) = couplings.find(|c| code(&c.a) && code(&c.b)) {
        notes.push(format!(
            "Strongest coupling: {}.",
            figures::coupling_text(coupling)
        ));
    }
    if !history.reverts.is_empty() {
        let of_reverts = history.reverts.iter().filter(|r| r.depth > 1).count();
        notes.push(format!(
            "{} reverts in {} commits, {of_reverts} of them of a revert.",
            history.reverts.len(),
            history.commits
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::history::{Hotspot, Revert};

    #[test]
    fn the_strongest_figures_follow_the_hint() {
        let history = HistoryReport {
            commits: 40,
            hotspots: vec![
                Hotspot {
                    path: "src/a.rs".into(),
                    commits: 9,
                    fix_commits: 3,
                    fix_ratio: 1.0 / 3.0,
                    ..Hotspot::default()
                };
                3
            ],
            reverts: vec![
                Revert::default(),
                Revert {
                    depth: 2,
                    ..Revert::default()
                },
            ],
            ..HistoryReport::default()
        };
        let notes = notes(&history);
        assert_eq!(notes.len(), 4, "{notes:?}");
        assert!(notes[0].contains("--reviews FILE"));
        assert!(
            notes[1].starts_with("Hotspot: src/a.rs changed in 9 commits, 3 of them fixes (33%)")
        );
        assert_eq!(notes[3], "2 reverts in 40 commits, 1 of them of a revert.");
        assert_eq!(super::notes(&HistoryReport::default()).len(), 1);
    }
}
