//! Following renames: every path a commit touched, under the name the file has at the head.

use std::collections::HashMap;

use crate::domain::history::Commit;

/// For each commit (oldest first, as given), the paths it touched named as at the newest
/// commit: a file's history continues under its new name after a rename. Sorted, without
/// duplicates.
pub fn current_paths(commits: &[Commit]) -> Vec<Vec<String>> {
    // Walk newest to oldest: once a rename old → new is seen, older commits' `old` is `new`'s
    // current name. A path re-created after being renamed away is its own file again, since its
    // newer commits are seen before the rename.
    let mut current: HashMap<String, String> = HashMap::new();
    let mut paths: Vec<Vec<String>> = commits
        .iter()
        .rev()
        .map(|commit| {
            let mut touched: Vec<String> = commit
                .files
                .iter()
                .map(|file| {
                    let name = current
                        .get(&file.path)
                        .cloned()
                        .unwrap_or_else(|| file.path.clone());
                    if let Some(old) = &file.old_path {
                        current.insert(old.clone(), name.clone());
                    }
                    name
                })
                .collect();
            touched.sort_unstable();
            touched.dedup();
            touched
        })
        .collect();
    paths.reverse();
    paths
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::history::FileChange;

    fn commit(files: &[(&str, Option<&str>)]) -> Commit {
        Commit {
            files: files
                .iter()
                .map(|(path, old)| FileChange {
                    path: (*path).into(),
                    old_path: old.map(Into::into),
                })
                .collect(),
            ..Commit::default()
        }
    }

    #[test]
    fn chains_of_renames_end_at_the_newest_name() {
        let commits = [
            commit(&[("a", None)]),
            commit(&[("b", Some("a"))]),
            commit(&[("c", Some("b")), ("a", None)]),
            commit(&[("c", None)]),
        ];
        assert_eq!(
            current_paths(&commits),
            vec![vec!["c"], vec!["c"], vec!["a", "c"], vec!["c"]]
        );
    }
}
