//! Reading the analysed line of history: the first-parent commits of the head, each with the
//! files it changed (a merge against its first parent: the whole change it brought), renames
//! detected. Only file lists are read (`--name-status`), never line counts: no analyzer needs
//! them, and diffing every blob is what makes a whole-history read slow.
//!
//! The commits are read in chunks, by as many `git log`s at once as there are cores. A commit
//! whose rename detection needs a blob the mirror lacks (a damaged or partial mirror) is read
//! again alone without rename detection (`complete = false`); the commits around it keep
//! theirs, and the read never aborts for it.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};

use super::git::Git;
use crate::domain::history::{Commit, FileChange};

/// The longest one `git log` may take.
const LOG_TIMEOUT: Duration = Duration::from_secs(600);

/// Per commit: a record separator, then sha, parents, author name and email (mailmap applied),
/// author and committer time, subject and body, each ended by a NUL.
const FORMAT: &str = "--format=%x1e%H%x00%P%x00%aN%x00%aE%x00%at%x00%ct%x00%s%x00%b%x00";

/// Commits per `git log`: small enough to share the work between cores and to report progress,
/// large enough that starting git costs little.
const CHUNK: usize = 2_000;

/// How far a read has come, for a caller that shows progress; updated as chunks finish.
#[derive(Debug, Default)]
pub struct Progress {
    /// Commits to read (0 until they are listed).
    pub total: AtomicUsize,
    /// Commits read so far.
    pub read: AtomicUsize,
}

/// The first-parent commits of `revisions` (as `git log` takes them: `HEAD`, `OLD..HEAD`),
/// newest first.
pub fn read(repo: &Path, revisions: &[String], progress: &Progress) -> Result<Vec<Commit>> {
    read_in_chunks(repo, revisions, CHUNK, progress)
}

/// [`read`] with `chunk` commits per `git log`.
fn read_in_chunks(
    repo: &Path,
    revisions: &[String],
    chunk: usize,
    progress: &Progress,
) -> Result<Vec<Commit>> {
    let shas = first_parent_line(repo, revisions)?;
    progress.total.store(shas.len(), Ordering::Relaxed);
    let chunks: Vec<&[String]> = shas.chunks(chunk.max(1)).collect();
    let next = AtomicUsize::new(0);
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut results: Vec<(usize, Result<Vec<Commit>>)> = std::thread::scope(|scope| {
        let readers: Vec<_> = (0..cores.min(chunks.len()))
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(chunk) = chunks.get(index) else {
                            break;
                        };
                        done.push((index, read_listed(repo, chunk)));
                        progress.read.fetch_add(chunk.len(), Ordering::Relaxed);
                    }
                    done
                })
            })
            .collect();
        readers
            .into_iter()
            .flat_map(|reader| reader.join().unwrap_or_default())
            .collect()
    });
    if results.len() != chunks.len() {
        anyhow::bail!("A git log reader of {} stopped early", repo.display());
    }
    results.sort_by_key(|(index, _)| *index);
    let mut commits = Vec::with_capacity(shas.len());
    for (_, result) in results {
        commits.extend(result?);
    }
    Ok(commits)
}

/// The first-parent commits of `revisions`, newest first (commits only: cheap).
fn first_parent_line(repo: &Path, revisions: &[String]) -> Result<Vec<String>> {
    let output = Git::new(repo, LOG_TIMEOUT)
        .args(["rev-list", "--first-parent"])
        .args(revisions)
        .args(["--"])
        .output()
        .with_context(|| format!("Cannot list the commits of {}", repo.display()))?;
    Ok(String::from_utf8_lossy(&output)
        .split_whitespace()
        .map(str::to_owned)
        .collect())
}

/// Exactly the commits `shas`, in their order. When git stops at a commit it cannot read, the
/// commits before it are kept, that one is read alone, and the read goes on after it.
fn read_listed(repo: &Path, shas: &[String]) -> Result<Vec<Commit>> {
    let mut commits = Vec::with_capacity(shas.len());
    let mut rest = shas;
    while !rest.is_empty() {
        let (output, failed) = log(repo, rest, true)?;
        let mut read = parse(&output, true)?;
        if !failed {
            commits.extend(read);
            break;
        }
        // Every record but the last is whole; the last may have been cut short.
        read.pop();
        let whole = read.len();
        commits.extend(read);
        commits.push(read_alone(repo, &rest[whole])?);
        rest = &rest[whole + 1..];
    }
    Ok(commits)
}

/// One commit, without rename detection if it cannot be read with it.
fn read_alone(repo: &Path, sha: &String) -> Result<Commit> {
    let one = std::slice::from_ref(sha);
    for renames in [true, false] {
        let (output, failed) = log(repo, one, renames)?;
        if failed {
            continue;
        }
        if let Some(commit) = parse(&output, renames)?.pop() {
            return Ok(commit);
        }
    }
    anyhow::bail!("Cannot read commit {sha} of {}", repo.display())
}

/// `git log` of exactly `shas`: its output, and whether it failed part way.
fn log(repo: &Path, shas: &[String], renames: bool) -> Result<(Vec<u8>, bool)> {
    let (stdout, failure) = Git::new(repo, LOG_TIMEOUT)
        .args(["log", "-z", "--no-color", FORMAT, "--name-status"])
        .args([
            "--diff-merges=first-parent",
            "--no-walk=unsorted",
            "--stdin",
        ])
        .args([if renames { "-M" } else { "--no-renames" }])
        .stdin(shas.join("\n").into_bytes())
        .output_even_if_failed()
        .with_context(|| format!("Cannot read the history of {}", repo.display()))?;
    Ok((stdout, failure.is_some()))
}

/// Parses `git log` output of [`FORMAT`] records with `--name-status` file sections;
/// `complete` tells whether renames were detected.
fn parse(output: &[u8], complete: bool) -> Result<Vec<Commit>> {
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
            files: parse_name_status(rest),
            complete,
        });
    }
    Ok(commits)
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
            }
        } else {
            FileChange {
                path: path.to_owned(),
                old_path: None,
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
    fn reading_in_chunks_gives_the_commits_of_one_read() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q", "-b", "main"]);
        for i in 0..7 {
            std::fs::write(dir.path().join(format!("f{}", i % 3)), format!("{i}\n")).unwrap();
            git(dir.path(), &["add", "-A"]);
            git(dir.path(), &["commit", "-q", "-m", &format!("Commit {i}")]);
        }
        let head = ["HEAD".to_owned()];
        let progress = Progress::default();
        let whole = read_in_chunks(dir.path(), &head, 100, &progress).unwrap();
        assert_eq!(whole.len(), 7);
        assert_eq!(whole[0].subject, "Commit 6");
        assert!(whole.iter().all(|c| c.complete && c.files.len() == 1));
        assert_eq!(
            read_in_chunks(dir.path(), &head, 3, &progress).unwrap(),
            whole
        );
        assert_eq!(progress.read.load(Ordering::Relaxed), 14);
        assert_eq!(progress.total.load(Ordering::Relaxed), 7);
    }

    #[test]
    fn a_merge_is_titled_by_its_pull_request() {
        let merge = |subject: &str, body: &str| Commit {
            parents: vec!["a".into(), "b".into()],
            subject: subject.into(),
            body: body.into(),
            ..Commit::default()
        };
        let titled = merge(
            "Merge pull request #7 from ann/cache",
            "Add a cache\n\nDetails",
        );
        assert_eq!(titled.title(), "Add a cache");
        assert_eq!(
            merge("Merge pull request #7 from ann/x", "").title(),
            "Merge pull request #7 from ann/x"
        );
        assert_eq!(
            merge("Integrate the cache", "Add a cache").title(),
            "Integrate the cache"
        );
        let single = Commit {
            subject: "Merge branch 'x'".into(),
            body: "Add a cache".into(),
            ..Commit::default()
        };
        assert_eq!(single.title(), "Merge branch 'x'");
    }
}
