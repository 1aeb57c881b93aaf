//! Reading commits and what they changed with one `git log` (NUL-separated, renames detected,
//! merges left out). A commit whose contents cannot be read (missing blobs in a damaged or
//! partial mirror) is taken from its list of changed files, without line counts; it never aborts
//! the read.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};

use super::git::Git;

/// The longest a `git log` over a whole repository may take.
const LOG_TIMEOUT: Duration = Duration::from_secs(600);

/// Per commit: a record separator, then sha, parents, author name and email (mailmap applied),
/// author and committer time, subject and body, each ended by a NUL.
const FORMAT: &str = "--format=%x1e%H%x00%P%x00%aN%x00%aE%x00%at%x00%ct%x00%s%x00%b%x00";

/// One file a commit changed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileChange {
    /// The path after the commit.
    pub path: String,
    /// The path before, when the commit renamed the file.
    pub old_path: Option<String>,
    /// Lines added; `None` for binary files and commits read without their contents.
    pub added: Option<u32>,
    /// Lines deleted; `None` as for `added`.
    pub deleted: Option<u32>,
}

/// A commit as the analyzers need it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Commit {
    pub sha: String,
    pub parents: Vec<String>,
    pub author_name: String,
    pub author_email: String,
    /// Unix seconds.
    pub author_time: i64,
    /// Unix seconds.
    pub committer_time: i64,
    pub subject: String,
    pub body: String,
    pub files: Vec<FileChange>,
    /// False when the commit's contents could not be read: files come from its list of changed
    /// files, without line counts or renames.
    pub complete: bool,
}

/// The non-merge commits of `revisions` (as `git log` takes them: `HEAD`, `OLD..HEAD`), newest
/// first. Diffing is what costs, so a long history is read by several `git log`s at once, one
/// per core, each on its share of the commits.
pub fn read(repo: &Path, revisions: &[String]) -> Result<Vec<Commit>> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    read_in_parts(repo, revisions, |commits| {
        cores
            .min(MAX_PARALLEL_LOGS)
            .min(commits.div_ceil(MIN_COMMITS_PER_LOG))
    })
}

/// [`read`] with `parts(commits)` `git log`s at once.
fn read_in_parts(
    repo: &Path,
    revisions: &[String],
    parts: impl FnOnce(usize) -> usize,
) -> Result<Vec<Commit>> {
    let shas = rev_list(repo, revisions)?;
    let parts = parts(shas.len()).max(1);
    let chunk = shas.len().div_ceil(parts).max(1);
    let results: Vec<Result<Vec<Commit>>> = std::thread::scope(|scope| {
        let readers: Vec<_> = shas
            .chunks(chunk)
            .map(|part| scope.spawn(move || read_numstat(repo, Revisions::Listed(part))))
            .collect();
        readers
            .into_iter()
            .map(|reader| {
                reader
                    .join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("A git log reader panicked")))
            })
            .collect()
    });
    let mut commits = Vec::with_capacity(shas.len());
    for result in results {
        match result {
            Ok(part) => commits.extend(part),
            Err(error) => {
                tracing::warn!(
                    repo = %repo.display(),
                    error = %format!("{error:#}"),
                    "Some commits cannot be read; reading their lists of changed files"
                );
                return read_damaged(repo, revisions);
            }
        }
    }
    Ok(commits)
}

/// At most this many `git log`s run at once.
const MAX_PARALLEL_LOGS: usize = 8;
/// A history shorter than this is read by one `git log`.
const MIN_COMMITS_PER_LOG: usize = 1000;

/// The non-merge commits of `revisions`, newest first (trees and commits only: cheap).
fn rev_list(repo: &Path, revisions: &[String]) -> Result<Vec<String>> {
    let output = Git::new(repo, LOG_TIMEOUT)
        .args(["rev-list", "--no-merges"])
        .args(revisions)
        .args(["--"])
        .output()
        .with_context(|| format!("Cannot list the commits of {}", repo.display()))?;
    Ok(String::from_utf8_lossy(&output)
        .split_whitespace()
        .map(str::to_owned)
        .collect())
}

/// What a `git log` reads.
enum Revisions<'a> {
    /// A range, walked.
    Range(&'a [String]),
    /// Exactly these commits, in this order.
    Listed(&'a [String]),
}

fn log(repo: &Path, revisions: Revisions<'_>, diff: &[&str]) -> Result<Vec<u8>> {
    let git = Git::new(repo, LOG_TIMEOUT)
        .args(["log", "-z", "--no-merges", "--no-color", FORMAT])
        .args(diff);
    match revisions {
        Revisions::Range(range) => git.args(range).args(["--"]).output(),
        Revisions::Listed(shas) => git
            .args(["--no-walk=unsorted", "--stdin"])
            .stdin(shas.join("\n").into_bytes())
            .output(),
    }
    .with_context(|| format!("Cannot read the history of {}", repo.display()))
}

fn read_numstat(repo: &Path, revisions: Revisions<'_>) -> Result<Vec<Commit>> {
    let output = log(repo, revisions, &["--numstat", "-M"])?;
    parse(&output, true)
}

/// Every commit from its file list (needs trees only), then line counts and renames for the
/// commits whose contents can be read, found by halving the failing sets within a budget of git
/// runs (a blobless mirror, where every commit fails, costs [`DAMAGED_READ_BUDGET`] runs, not
/// two per commit).
fn read_damaged(repo: &Path, revisions: &[String]) -> Result<Vec<Commit>> {
    let output = log(
        repo,
        Revisions::Range(revisions),
        &["--name-status", "--no-renames"],
    )?;
    let listed = parse(&output, false)?;
    let shas: Vec<String> = listed.iter().map(|commit| commit.sha.clone()).collect();
    let mut readable = HashMap::new();
    let mut budget = DAMAGED_READ_BUDGET;
    read_readable(repo, &shas, &mut readable, &mut budget);
    tracing::warn!(
        repo = %repo.display(),
        commits = listed.len(),
        without_line_counts = listed.len() - readable.len(),
        "Commits whose contents cannot be read are analysed from their file lists"
    );
    Ok(listed
        .into_iter()
        .map(|commit| readable.remove(&commit.sha).unwrap_or(commit))
        .collect())
}

/// Git runs allowed to find the readable commits of a damaged repository.
const DAMAGED_READ_BUDGET: usize = 200;

fn read_readable(
    repo: &Path,
    shas: &[String],
    into: &mut HashMap<String, Commit>,
    budget: &mut usize,
) {
    if shas.is_empty() || *budget == 0 {
        return;
    }
    *budget -= 1;
    match read_numstat(repo, Revisions::Listed(shas)) {
        Ok(commits) => into.extend(commits.into_iter().map(|c| (c.sha.clone(), c))),
        Err(_) if shas.len() == 1 => {}
        Err(_) => {
            let (first, second) = shas.split_at(shas.len() / 2);
            read_readable(repo, first, into, budget);
            read_readable(repo, second, into, budget);
        }
    }
}

/// Parses `git log` output of [`FORMAT`] records; `numstat` tells how the file sections read
/// (`--numstat` when true, `--name-status` when false: a commit read without its contents).
fn parse(output: &[u8], numstat: bool) -> Result<Vec<Commit>> {
    let text = String::from_utf8_lossy(output);
    let mut commits = Vec::new();
    for record in text.split('\u{1e}').filter(|record| !record.is_empty()) {
        let fields: Vec<&str> = record.split('\0').collect();
        let [sha, parents, name, email, at, ct, subject, body, rest @ ..] = fields.as_slice()
        else {
            anyhow::bail!("Unexpected git log output: a commit record has too few fields");
        };
        let time = |value: &str| {
            value
                .parse::<i64>()
                .with_context(|| format!("Unexpected git log output: time {value:?} of {sha}"))
        };
        commits.push(Commit {
            sha: (*sha).to_owned(),
            parents: parents.split_whitespace().map(str::to_owned).collect(),
            author_name: (*name).to_owned(),
            author_email: (*email).to_owned(),
            author_time: time(at)?,
            committer_time: time(ct)?,
            subject: (*subject).to_owned(),
            body: body.trim_end().to_owned(),
            files: if numstat {
                parse_numstat(rest)
            } else {
                parse_name_status(rest)
            },
            complete: numstat,
        });
    }
    Ok(commits)
}

/// `added\tdeleted\tpath`, or `added\tdeleted\t` then the old and the new path for a rename.
fn parse_numstat(tokens: &[&str]) -> Vec<FileChange> {
    let mut files = Vec::new();
    let mut tokens = tokens.iter().map(|token| token.trim_start_matches('\n'));
    while let Some(token) = tokens.next() {
        let mut parts = token.splitn(3, '\t');
        let (Some(added), Some(deleted), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let (old_path, path) = if path.is_empty() {
            let (Some(old), Some(new)) = (tokens.next(), tokens.next()) else {
                break;
            };
            (Some(old.to_owned()), new.to_owned())
        } else {
            (None, path.to_owned())
        };
        files.push(FileChange {
            path,
            old_path,
            added: added.parse().ok(),
            deleted: deleted.parse().ok(),
        });
    }
    files
}

/// A status (`M`, `A`, `D`, …) then the path; two paths for a rename or copy.
fn parse_name_status(tokens: &[&str]) -> Vec<FileChange> {
    let mut files = Vec::new();
    let mut tokens = tokens
        .iter()
        .map(|token| token.trim_start_matches('\n'))
        .filter(|token| !token.is_empty());
    while let Some(status) = tokens.next() {
        let Some(path) = tokens.next() else { break };
        let change = if status.starts_with(['R', 'C']) {
            let Some(new) = tokens.next() else { break };
            FileChange {
                path: new.to_owned(),
                old_path: status.starts_with('R').then(|| path.to_owned()),
                ..FileChange::default()
            }
        } else {
            FileChange {
                path: path.to_owned(),
                ..FileChange::default()
            }
        };
        files.push(change);
    }
    files
}

/// The head commit's sha, or `None` for a repository without commits.
pub fn head(repo: &Path) -> Result<Option<String>> {
    let output = Git::new(repo, Duration::from_secs(60))
        .args(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
        .output_or_none()
        .with_context(|| format!("Cannot read the head of {}", repo.display()))?;
    Ok(output.map(|sha| String::from_utf8_lossy(&sha).trim().to_owned()))
}

/// Whether `ancestor` is still in the history of `head` (false after a force-push removed it,
/// or when it no longer exists).
pub fn is_ancestor(repo: &Path, ancestor: &str, head: &str) -> Result<bool> {
    Git::new(repo, Duration::from_secs(60))
        .args(["merge-base", "--is-ancestor", ancestor, head])
        .succeeds()
        .with_context(|| format!("Cannot compare commits in {}", repo.display()))
}

/// The paths of the files at `head`.
pub fn files_at(repo: &Path, head: &str) -> Result<Vec<String>> {
    let output = Git::new(repo, LOG_TIMEOUT)
        .args(["ls-tree", "-r", "-z", "--name-only", "--full-tree", head])
        .output()
        .with_context(|| format!("Cannot list the files of {head}"))?;
    Ok(String::from_utf8_lossy(&output)
        .split('\0')
        .filter(|path| !path.is_empty())
        .map(str::to_owned)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) {
        let status = Command::new("git")
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .args(["-c", "user.name=ann", "-c", "user.email=ann@example.com"])
            .args(args)
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    #[test]
    fn reading_in_parts_gives_the_commits_of_one_read() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q", "-b", "main"]);
        for i in 0..7 {
            std::fs::write(dir.path().join(format!("f{}", i % 3)), format!("{i}\n")).unwrap();
            git(dir.path(), &["add", "-A"]);
            git(dir.path(), &["commit", "-q", "-m", &format!("Commit {i}")]);
        }
        let head = ["HEAD".to_owned()];
        let whole = read_in_parts(dir.path(), &head, |_| 1).unwrap();
        assert_eq!(whole.len(), 7);
        assert_eq!(whole[0].subject, "Commit 6");
        assert!(whole.iter().all(|c| c.complete && c.files.len() == 1));
        assert_eq!(read_in_parts(dir.path(), &head, |_| 3).unwrap(), whole);
    }
}
