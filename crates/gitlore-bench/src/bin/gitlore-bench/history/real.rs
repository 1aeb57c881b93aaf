//! `gitlore-bench history --repo PATH`: the history analysis of an existing repository, read
//! only. Prints the cold whole-history time (a fresh store), the incremental time (a store that
//! holds the history up to `NEW` first-parent commits before the head, then brought up to the
//! head), and the revert count next to the number of first-parent subjects that start with
//! `Revert "`, the figure a reader checks with `git log --first-parent --format=%s`.
//!
//! The incremental run needs a head `NEW` commits back without touching PATH: a scratch bare
//! repository borrows PATH's objects (`objects/info/alternates`) and moves its own branch.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use gitlore::analysis::history;
use gitlore::domain::{Repo, RepoId, RepoName};
use gitlore::knowledge::history::HistoryReport;
use gitlore::store::{self, Store};

use super::{git, git_command, print_run, summarize};

/// Measures `repo` and prints the figures.
pub fn run(repo: &Path, new: usize) -> Result<()> {
    let temp = tempfile::tempdir().context("Cannot create a temporary directory")?;
    let cold_store = open_store(&temp.path().join("cold"))?;
    let start = Instant::now();
    let cold = history::run(&cold_store, RepoId(1), repo)?;
    print_run("cold", &cold, start.elapsed().as_secs_f64());
    summarize(&cold);
    print_reverts(repo, &cold)?;
    print_couplings(&cold);

    let scratch = scratch_repo(repo, &temp.path().join("scratch.git"))?;
    let line = first_parent_line(repo)?;
    let Some(older) = line.get(new) else {
        bail!(
            "{} has fewer than {new} first-parent commits",
            repo.display()
        );
    };
    git(&scratch, &["update-ref", "refs/heads/main", older])?;
    let store = open_store(&temp.path().join("incremental"))?;
    history::run(&store, RepoId(1), &scratch)?;
    git(&scratch, &["update-ref", "refs/heads/main", &line[0]])?;
    let start = Instant::now();
    let incremental = history::run(&store, RepoId(1), &scratch)?;
    print_run("incremental", &incremental, start.elapsed().as_secs_f64());
    let same = HistoryReport {
        commits_read: cold.commits_read,
        ..incremental
    } == cold;
    if !same {
        bail!("the incremental report differs from the cold one");
    }
    Ok(())
}

/// A store in `dir` with repository 1 registered.
fn open_store(dir: &Path) -> Result<Store> {
    let store = Store::open(&store::database_path(dir))?;
    let repo = Repo {
        id: RepoId(1),
        name: RepoName::parse("bench/real").context("A valid repository name")?,
        default_branch: Some("main".into()),
        private: false,
    };
    store.write_derived(|tx| store::repos::upsert_repo(tx, &repo, None, false))?;
    Ok(store)
}

/// A bare repository at `at` that reads `repo`'s objects and has a `main` branch of its own.
fn scratch_repo(repo: &Path, at: &Path) -> Result<PathBuf> {
    let git_dir = output(repo, &["rev-parse", "--absolute-git-dir"])?;
    let objects = Path::new(git_dir.trim()).join("objects");
    git(
        at.parent().context("A scratch path has a parent")?,
        &["init", "-q", "--bare", "-b", "main", &at.to_string_lossy()],
    )?;
    std::fs::write(
        at.join("objects/info/alternates"),
        format!("{}\n", objects.display()),
    )
    .context("Cannot write the scratch repository's alternates")?;
    Ok(at.to_owned())
}

/// The first-parent line of HEAD, newest first.
fn first_parent_line(repo: &Path) -> Result<Vec<String>> {
    Ok(output(repo, &["rev-list", "--first-parent", "HEAD"])?
        .split_whitespace()
        .map(str::to_owned)
        .collect())
}

/// The analysed reverts next to the subjects that say `Revert "…"`, with the differences.
fn print_reverts(repo: &Path, report: &HistoryReport) -> Result<()> {
    let log = output(repo, &["log", "--first-parent", "--format=%H %s", "HEAD"])?;
    let said: HashSet<&str> = log
        .lines()
        .filter_map(|line| line.split_once(' '))
        .filter(|(_, subject)| subject.starts_with("Revert \""))
        .map(|(sha, _)| sha)
        .collect();
    let found: HashSet<&str> = report.reverts.iter().map(|r| r.sha.as_str()).collect();
    println!(
        "reverts: {} found, {} first-parent subjects start with `Revert \"` ({:+.1}%); \
         {} found without such a subject, {} such subjects not found",
        found.len(),
        said.len(),
        (found.len() as f64 / said.len().max(1) as f64 - 1.0) * 100.0,
        found.difference(&said).count(),
        said.difference(&found).count(),
    );
    for revert in report
        .reverts
        .iter()
        .filter(|r| !said.contains(r.sha.as_str()))
        .take(5)
    {
        println!("  also a revert: {} {}", &revert.sha[..10], revert.subject);
    }
    Ok(())
}

fn print_couplings(report: &HistoryReport) {
    for coupling in report.couplings.iter().take(3) {
        println!(
            "coupling: {} + {}: {} commits, support {:.1}, confidence {:.2}, lift {:.1}",
            coupling.a,
            coupling.b,
            coupling.commits,
            coupling.support,
            coupling.confidence,
            coupling.lift
        );
    }
}

/// Standard output of `git args` in `dir`.
fn output(dir: &Path, args: &[&str]) -> Result<String> {
    let out = git_command(dir, args)
        .output()
        .with_context(|| format!("Cannot run git {}", args.join(" ")))?;
    if !out.status.success() {
        bail!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    String::from_utf8(out.stdout).context("git printed something that is not UTF-8")
}
