//! What a repository's config leaves out of the analysis (behaviour §4): comments by some authors,
//! comments made only of the repository's own bot commands, and comments on and history of paths
//! matching glob patterns.
//!
//! Globs: `*` matches within one path segment, `**` across segments, `?` one character; a
//! pattern ending in `/` matches everything under that directory; a pattern without `/` matches
//! a file name in any directory (as in `.gitignore`).

use std::collections::HashSet;

use crate::knowledge::filter;
use crate::knowledge::history::HistoryReport;
use crate::repo_config::Analysis;

/// The exclusions of one repository.
#[derive(Debug, Clone, Default)]
pub struct Exclusions {
    /// Lower-cased logins.
    authors: HashSet<String>,
    /// The repository's own command prefixes, lower-cased: additions to the commands of
    /// `filter/facts.toml`.
    commands: Vec<String>,
    paths: Vec<String>,
}

impl Exclusions {
    /// The exclusions the repo config's `[analysis]` asks for.
    pub fn from_config(analysis: &Analysis) -> Exclusions {
        Exclusions {
            authors: analysis
                .ignore_authors
                .iter()
                .map(|login| login.trim().trim_start_matches('@').to_ascii_lowercase())
                .collect(),
            commands: filter::facts::additions(&analysis.noise_commands),
            paths: analysis
                .ignore_paths
                .iter()
                .map(|p| p.trim().trim_start_matches("./").to_string())
                .filter(|p| !p.is_empty())
                .collect(),
        }
    }

    /// Whether nothing is excluded.
    pub fn is_empty(&self) -> bool {
        self.authors.is_empty() && self.paths.is_empty() && self.commands.is_empty()
    }

    /// Whether a comment by `author` saying `body` (on `path`, for inline comments) is left out.
    pub fn excludes_comment(&self, author: &str, path: Option<&str>, body: &str) -> bool {
        self.authors.contains(&author.to_ascii_lowercase())
            || path.is_some_and(|p| self.excludes_path(p))
            || (!self.commands.is_empty()
                && filter::is_trivial(&filter::analysable_text(body), false, &self.commands))
    }

    /// Whether `path` matches one of the ignored patterns.
    pub fn excludes_path(&self, path: &str) -> bool {
        self.paths.iter().any(|pattern| matches(pattern, path))
    }

    /// `report` without the ignored paths: their hotspots, couplings, and their files in reverts
    /// and fix-after links (a link left with no file goes).
    pub fn filter_history(&self, report: &HistoryReport) -> HistoryReport {
        let mut kept = report.clone();
        if self.paths.is_empty() {
            return kept;
        }
        let keep = |path: &String| !self.excludes_path(path);
        kept.hotspots.retain(|h| keep(&h.path));
        kept.couplings.retain(|c| keep(&c.a) && keep(&c.b));
        for revert in &mut kept.reverts {
            revert.files.retain(keep);
        }
        kept.reverts.retain(|r| !r.files.is_empty());
        for link in &mut kept.fix_after {
            link.files.retain(keep);
        }
        kept.fix_after.retain(|f| !f.files.is_empty());
        kept.files_at_head.retain(keep);
        kept
    }
}

/// Whether `pattern` matches `path` (see the module doc).
fn matches(pattern: &str, path: &str) -> bool {
    if let Some(dir) = pattern.strip_suffix('/') {
        return matches(&format!("{dir}/**"), path);
    }
    if !pattern.contains('/') {
        let name = path.rsplit('/').next().unwrap_or(path);
        return glob(pattern.as_bytes(), name.as_bytes());
    }
    glob(pattern.as_bytes(), path.as_bytes())
}

/// Glob matching with `**`, `*` and `?`, by backtracking over the pattern.
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    match pattern {
        [] => text.is_empty(),
        [b'*', b'*'] => true,
        [b'*', b'*', rest @ ..] => {
            let rest = rest.strip_prefix(b"/").unwrap_or(rest);
            (0..=text.len()).any(|i| (i == 0 || text[i - 1] == b'/') && glob(rest, &text[i..]))
        }
        [b'*', rest @ ..] => (0..=text.len())
            .take_while(|&i| i == 0 || text[i - 1] != b'/')
            .any(|i| glob(rest, &text[i..])),
        [b'?', rest @ ..] => text.first().is_some_and(|&c| c != b'/') && glob(rest, &text[1..]),
        [c, rest @ ..] => text.first() == Some(c) && glob(rest, &text[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_like_gitignore() {
        let cases = [
            ("vendor/", "vendor/lib/a.rs", true),
            ("vendor/", "src/vendor/a.rs", false),
            ("*.lock", "Cargo.lock", true),
            ("*.lock", "sub/dir/yarn.lock", true),
            ("docs/*.md", "docs/a.md", true),
            ("docs/*.md", "docs/sub/a.md", false),
            ("docs/**/*.md", "docs/sub/a.md", true),
            ("docs/**/*.md", "docs/a.md", true),
            ("**/generated/**", "a/generated/b/c.rs", true),
            ("src/?.rs", "src/a.rs", true),
            ("src/?.rs", "src/ab.rs", false),
        ];
        for (pattern, path, expected) in cases {
            assert_eq!(matches(pattern, path), expected, "{pattern} vs {path}");
        }
    }

    #[test]
    fn authors_and_paths_from_the_config() {
        let analysis = Analysis {
            ignore_authors: vec!["@Renovate-Helper".into()],
            ignore_paths: vec!["./vendor/".into()],
            ..Analysis::default()
        };
        let exclusions = Exclusions::from_config(&analysis);
        assert!(exclusions.excludes_comment("renovate-helper", None, "x"));
        assert!(exclusions.excludes_comment("ana", Some("vendor/x.rs"), "x"));
        assert!(!exclusions.excludes_comment("ana", Some("src/x.rs"), "x"));
    }

    #[test]
    fn a_repositorys_own_commands_are_left_out() {
        let analysis = Analysis {
            noise_commands: vec!["!Deploy".into(), " ".into()],
            ..Analysis::default()
        };
        let exclusions = Exclusions::from_config(&analysis);
        assert!(exclusions.excludes_comment("ana", None, "!deploy staging"));
        assert!(exclusions.excludes_comment("ana", None, "Thanks!\n!deploy prod"));
        let remark = "!deploy staging\nThe lock leaks when a deploy fails halfway.";
        assert!(!exclusions.excludes_comment("ana", None, remark));
        assert!(!Exclusions::default().excludes_comment("ana", None, "!deploy staging"));
        assert!(Exclusions::default().is_empty());
    }

    #[test]
    fn history_of_ignored_paths_is_left_out() {
        use crate::domain::history::Coupling;
        use crate::knowledge::history::{FixAfter, Hotspot};
        let report = HistoryReport {
            hotspots: vec![
                Hotspot {
                    path: "vendor/a.rs".into(),
                    ..Hotspot::default()
                },
                Hotspot {
                    path: "src/a.rs".into(),
                    ..Hotspot::default()
                },
            ],
            couplings: vec![Coupling {
                a: "src/a.rs".into(),
                b: "vendor/a.rs".into(),
                ..Coupling::default()
            }],
            fix_after: vec![FixAfter {
                files: vec!["vendor/a.rs".into()],
                ..FixAfter::default()
            }],
            ..HistoryReport::default()
        };
        let analysis = Analysis {
            ignore_paths: vec!["vendor/".into()],
            ..Analysis::default()
        };
        let kept = Exclusions::from_config(&analysis).filter_history(&report);
        assert_eq!(kept.hotspots.len(), 1);
        assert_eq!(kept.hotspots[0].path, "src/a.rs");
        assert!(kept.couplings.is_empty() && kept.fix_after.is_empty());
    }
}
