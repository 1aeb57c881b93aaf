//! Reverts and their chains: a revert of a revert has depth 2.
//!
//! A revert is a commit of the analysed line whose own message says so: its title starts with
//! `Revert "…"` or `Reapply "…"` (git's subjects), or its body starts with git's line "This
//! reverts commit <sha>" (a revert whose subject was reworded). The same words quoted further
//! down a body (a squash merge listing its branch's commits, one of them a revert of a work in
//! progress) say nothing about the commit itself. The reverted commit is the named sha when it
//! is on the analysed line, else the line's newest earlier commit whose title is the quoted
//! title; a commit off the line is never cited.

use std::borrow::Cow;
use std::collections::HashMap;

use super::{Prepared, Revert};

const REVERTS_COMMIT: &str = "This reverts commit ";

/// Every revert, newest first.
pub fn reverts(history: &Prepared<'_>) -> Vec<Revert> {
    let mut by_title: HashMap<&str, usize> = HashMap::new();
    let mut depth_of: HashMap<usize, usize> = HashMap::new();
    let mut reverts = Vec::new();
    for (index, (commit, paths)) in history.commits.iter().zip(&history.paths).enumerate() {
        let title = commit.title();
        let nesting = subject_nesting(title);
        let named = named_sha(&commit.body);
        if nesting > 0 || named.is_some() {
            let reverted = named
                .and_then(|sha| history.index_of(sha))
                .filter(|&earlier| earlier < index)
                .or_else(|| {
                    reverted_title(title).and_then(|quoted| by_title.get(&*quoted).copied())
                });
            let depth = reverted
                .and_then(|earlier| depth_of.get(&earlier))
                .map_or(nesting.max(1), |depth| depth + 1);
            depth_of.insert(index, depth);
            reverts.push(Revert {
                sha: commit.sha.clone(),
                reverted: reverted.map(|earlier| history.commits[earlier].sha.clone()),
                subject: title.to_owned(),
                at: commit.committer_time,
                depth,
                files: paths.clone(),
            });
        }
        by_title.insert(title.trim(), index);
    }
    reverts.sort_by_key(|revert| std::cmp::Reverse(revert.at));
    reverts
}

/// The sha of git's "This reverts commit <sha>", when the body starts with it.
fn named_sha(body: &str) -> Option<&str> {
    let rest = body.trim_start().strip_prefix(REVERTS_COMMIT)?;
    let end = rest
        .find(|c: char| !c.is_ascii_hexdigit())
        .unwrap_or(rest.len());
    let sha = &rest[..end];
    super::words::is_sha(sha).then_some(sha)
}

/// How deep the title's quoting goes: `Revert "x"` is 1, `Revert "Revert "x""` and
/// `Reapply "x"` (git's subject for reverting a revert) are 2; 0 when it is no revert.
fn subject_nesting(title: &str) -> usize {
    let mut depth = 0;
    let mut rest = title.trim();
    loop {
        if let Some(inner) = rest.strip_prefix("Revert \"") {
            depth += 1;
            rest = inner;
        } else if let Some(inner) = rest.strip_prefix("Reapply \"") {
            depth += 2;
            rest = inner;
        } else {
            return depth;
        }
    }
}

/// The title of the commit a revert's title names: what `Revert "…"` quotes (between its first
/// and its last double quote, so a suffix a merge tool added — `Revert "x (#12)" (#13)` — is
/// left out), or for `Reapply "x"` the revert `Revert "x"`.
fn reverted_title(title: &str) -> Option<Cow<'_, str>> {
    let title = title.trim();
    if let Some(rest) = title.strip_prefix("Revert \"") {
        return Some(Cow::Borrowed(&rest[..rest.rfind('"')?]));
    }
    let rest = title.strip_prefix("Reapply \"")?;
    Some(Cow::Owned(format!(
        "Revert \"{}\"",
        &rest[..rest.rfind('"')?]
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_nest() {
        assert_eq!(subject_nesting("Revert \"Add cache\""), 1);
        assert_eq!(subject_nesting("Revert \"Revert \"Add cache\"\""), 2);
        assert_eq!(subject_nesting("Reapply \"Add cache\""), 2);
        assert_eq!(subject_nesting("Revise the cache"), 0);
    }

    #[test]
    fn named_sha_stops_at_the_sentence_end() {
        let body = "This reverts commit 0123456789abcdef0123456789abcdef01234567.\n\nBroke CI.";
        assert_eq!(
            named_sha(body),
            Some("0123456789abcdef0123456789abcdef01234567")
        );
        assert_eq!(named_sha("This reverts commit nothing."), None);
    }

    #[test]
    fn only_the_body_s_own_first_line_names_a_reverted_commit() {
        let squash = "* try a cache\n\n* Revert \"try a cache\"\n\n\
                      This reverts commit 0123456789abcdef0123456789abcdef01234567.";
        assert_eq!(named_sha(squash), None);
    }

    #[test]
    fn reverted_titles_drop_merge_suffixes() {
        assert_eq!(
            reverted_title("Revert \"Add cache (#12)\" (#13)").as_deref(),
            Some("Add cache (#12)")
        );
        assert_eq!(
            reverted_title("Revert \"Revert \"Add cache\"\"").as_deref(),
            Some("Revert \"Add cache\"")
        );
        assert_eq!(
            reverted_title("Reapply \"Add cache\"").as_deref(),
            Some("Revert \"Add cache\"")
        );
        assert_eq!(reverted_title("Revert the cache").as_deref(), None);
    }
}
