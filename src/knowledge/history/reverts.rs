//! Reverts (`Revert "…"`, `Reapply "…"`, "This reverts commit <sha>") and their chains: a revert
//! of a revert has depth 2.

use std::collections::HashMap;

use super::{Prepared, Revert};

const REVERTS_COMMIT: &str = "This reverts commit ";

/// Every revert, newest first.
pub fn reverts(history: &Prepared<'_>) -> Vec<Revert> {
    let by_sha: HashMap<&str, usize> = history
        .commits
        .iter()
        .enumerate()
        .map(|(index, commit)| (commit.sha.as_str(), index))
        .collect();
    let mut depth_of: HashMap<&str, usize> = HashMap::new();
    let mut reverts = Vec::new();
    for (commit, paths) in history.commits.iter().zip(&history.paths) {
        let named = named_sha(&commit.body);
        let nesting = subject_nesting(&commit.subject);
        if named.is_none() && nesting == 0 {
            continue;
        }
        let reverted = named.map(|sha| {
            if by_sha.contains_key(sha) {
                sha.to_owned()
            } else {
                history
                    .commits
                    .iter()
                    .find(|c| c.sha.starts_with(sha))
                    .map_or_else(|| sha.to_owned(), |c| c.sha.clone())
            }
        });
        let depth = reverted
            .as_deref()
            .and_then(|sha| depth_of.get(sha))
            .map_or(nesting.max(1), |depth| depth + 1);
        depth_of.insert(&commit.sha, depth);
        reverts.push(Revert {
            sha: commit.sha.clone(),
            reverted,
            subject: commit.subject.clone(),
            at: commit.committer_time,
            depth,
            files: paths.clone(),
        });
    }
    reverts.sort_by_key(|revert| std::cmp::Reverse(revert.at));
    reverts
}

/// The sha after "This reverts commit ", if the body has one.
fn named_sha(body: &str) -> Option<&str> {
    let start = body.find(REVERTS_COMMIT)? + REVERTS_COMMIT.len();
    let rest = &body[start..];
    let end = rest
        .find(|c: char| !c.is_ascii_hexdigit())
        .unwrap_or(rest.len());
    let sha = &rest[..end];
    super::words::is_sha(sha).then_some(sha)
}

/// How deep the subject's quoting goes: `Revert "x"` is 1, `Revert "Revert "x""` and
/// `Reapply "x"` (git's subject for reverting a revert) are 2; 0 when it is no revert.
fn subject_nesting(subject: &str) -> usize {
    let mut depth = 0;
    let mut rest = subject.trim();
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
}
