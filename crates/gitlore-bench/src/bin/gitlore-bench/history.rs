//! The git history benchmark: generates a realistic repository with `git fast-import` (skewed file
//! popularity, coupled pairs, reverts and reverts of reverts, fixups, renames, several authors,
//! three years of dates), then times a full history analysis and an incremental re-run after 10
//! new commits. With `--repo PATH` it measures a real repository instead (see [`real`]).

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use gitlore::analysis::history;
use gitlore::domain::{Repo, RepoId, RepoName};
use gitlore::knowledge::history::HistoryReport;
use gitlore::store::{self, Store};

use crate::analysis::SplitMix;

mod real;

#[derive(Debug, clap::Args)]
pub struct HistoryArgs {
    /// Commits to generate.
    #[arg(long, default_value_t = 20_000)]
    commits: usize,
    /// Files in the repository.
    #[arg(long, default_value_t = 2_000)]
    files: usize,
    /// Build the repository in DIR (created; must be empty) and keep it, e.g. for
    /// `gitlore analyze DIR`; by default it lives in a temporary directory.
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
    /// Measure this existing repository (read only) instead of generating one.
    #[arg(long, value_name = "PATH", conflicts_with = "keep")]
    repo: Option<PathBuf>,
}

const SEED: u64 = 0x6769_746c_6f72_6521;
/// The generated history ends here (2026-01-01T00:00:00Z) and starts three years earlier.
const END: i64 = 1_767_225_600;
const THREE_YEARS: i64 = 3 * 365 * 86_400;
/// Commits added before the incremental re-run.
const NEW_COMMITS: usize = 10;
/// Pairs of files that (also) change together.
const COUPLED_PAIRS: usize = 40;
const AREAS: &[&str] = &[
    "api", "auth", "billing", "cache", "cli", "config", "db", "events", "http", "jobs", "mail",
    "metrics", "models", "payments", "search", "storage", "sync", "ui", "users", "webhooks",
];
const AUTHORS: &[&str] = &[
    "Ada Lovelace",
    "Grace Hopper",
    "Alan Turing",
    "Edsger Dijkstra",
    "Barbara Liskov",
    "Donald Knuth",
    "Margaret Hamilton",
    "Ken Thompson",
    "Frances Allen",
    "John Backus",
    "Leslie Lamport",
    "Radia Perlman",
];
const VERBS: &[&str] = &[
    "Add", "Update", "Refactor", "Handle", "Remove", "Rename", "Simplify", "Document", "Speed up",
];
const TYPES: &[&str] = &["feat", "fix", "chore", "refactor", "docs", "test", "perf"];

/// Generates the repository, then measures and prints the figures.
pub fn run(args: HistoryArgs) -> Result<()> {
    if let Some(repo) = &args.repo {
        return real::run(repo, NEW_COMMITS);
    }
    let temp = tempfile::tempdir().context("Cannot create a temporary directory")?;
    let repo_dir = match &args.keep {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("Cannot create {}", dir.display()))?;
            if std::fs::read_dir(dir)?.next().is_some() {
                bail!("{} is not empty", dir.display());
            }
            dir.clone()
        }
        None => {
            let dir = temp.path().join("repo");
            std::fs::create_dir(&dir)
                .with_context(|| format!("Cannot create {}", dir.display()))?;
            dir
        }
    };
    git(&repo_dir, &["init", "-q", "-b", "main", "."])?;

    let mut generator = Generator::new(args.files, args.commits);
    let start = Instant::now();
    fast_import(&repo_dir, |out| generator.stream(args.commits, None, out))?;
    println!(
        "generated {} commits over {} files in {:.1} s ({})",
        args.commits,
        args.files,
        start.elapsed().as_secs_f64(),
        repo_dir.display()
    );

    let store = Store::open(&store::database_path(&temp.path().join("data")))?;
    let repo = Repo {
        id: RepoId(1),
        name: RepoName::parse("bench/history").context("A valid repository name")?,
        default_branch: Some("main".into()),
        private: false,
    };
    store.write_derived(|tx| store::repos::upsert_repo(tx, &repo, None, false))?;

    let start = Instant::now();
    let full = history::run(&store, RepoId(1), &repo_dir)?;
    let full_secs = start.elapsed().as_secs_f64();
    print_run("full", &full, full_secs);
    summarize(&full);

    fast_import(&repo_dir, |out| {
        generator.stream(NEW_COMMITS, Some("refs/heads/main^0"), out)
    })?;
    let start = Instant::now();
    let incremental = history::run(&store, RepoId(1), &repo_dir)?;
    print_run("incremental", &incremental, start.elapsed().as_secs_f64());
    Ok(())
}

pub(crate) fn print_run(name: &str, report: &HistoryReport, secs: f64) {
    println!(
        "{name:<12} read {:>6} of {:>6} commits  wall {:>7.3} s  {:>9.0} commits/s",
        report.commits_read,
        report.commits,
        secs,
        report.commits as f64 / secs
    );
}

pub(crate) fn summarize(report: &HistoryReport) {
    let top: Vec<String> = report
        .hotspots
        .iter()
        .take(3)
        .map(|h| format!("{} ({} commits, score {:.1})", h.path, h.commits, h.score))
        .collect();
    println!(
        "found: {} hotspots (top: {}), {} couplings, {} reverts ({} of reverts), {} fix-after links; \
         {} commits without renames (objects missing)",
        report.hotspots.len(),
        top.join(", "),
        report.couplings.len(),
        report.reverts.len(),
        report.reverts.iter().filter(|r| r.depth > 1).count(),
        report.fix_after.len(),
        report.commits_without_renames,
    );
}

pub(crate) fn git(dir: &Path, args: &[&str]) -> Result<()> {
    let status = git_command(dir, args).status().context("Cannot run git")?;
    if !status.success() {
        bail!("git {} failed: {status}", args.join(" "));
    }
    Ok(())
}

pub(crate) fn git_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new("git");
    command
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1");
    command
}

/// Pipes what `write` writes into `git fast-import`, then checks the work tree out.
fn fast_import(dir: &Path, write: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    let mut child = git_command(dir, &["fast-import", "--quiet"])
        .stdin(Stdio::piped())
        .spawn()
        .context("Cannot run git fast-import")?;
    let mut pipe = std::io::BufWriter::new(child.stdin.take().context("fast-import's stdin")?);
    let written = write(&mut pipe).and_then(|()| pipe.flush().context("Cannot write the stream"));
    drop(pipe);
    let status = child.wait()?;
    written?;
    if !status.success() {
        bail!("git fast-import failed: {status}");
    }
    git(dir, &["reset", "-q", "--hard", "main"])
}

/// A file of the generated repository: its current path and lines.
struct File {
    path: String,
    lines: Vec<u64>,
    renames: usize,
}

/// What was committed, for reverts and fixups to refer to.
struct Past {
    subject: String,
    author: usize,
    files: Vec<usize>,
}

struct Generator {
    rng: SplitMix,
    files: Vec<File>,
    past: Vec<Past>,
    mark: usize,
    time: i64,
    /// Commits planned for the first stream: sets the mean gap between commits.
    commits: usize,
}

impl Generator {
    /// `files` files, dates spread so that `commits` commits span three years.
    fn new(files: usize, commits: usize) -> Generator {
        let mut rng = SplitMix(SEED);
        let files = (0..files)
            .map(|index| {
                let area = AREAS[index % AREAS.len()];
                let lines = (0..20 + rng.below(60))
                    .map(|_| rng.below(1 << 40) as u64)
                    .collect();
                File {
                    path: format!("src/{area}/module_{index}.rs"),
                    lines,
                    renames: 0,
                }
            })
            .collect();
        Generator {
            rng,
            files,
            past: Vec::new(),
            mark: 0,
            time: END - THREE_YEARS,
            commits,
        }
    }

    /// A file index skewed towards the low ones: a few files take most of the changes.
    fn popular_file(&mut self) -> usize {
        let u = self.rng.below(1_000_000) as f64 / 1_000_000.0;
        ((u * u * u) * self.files.len() as f64) as usize
    }

    /// A fast-import stream of `count` commits on `refs/heads/main`, the first from `from`.
    fn stream(&mut self, count: usize, from: Option<&str>, sink: &mut dyn Write) -> Result<()> {
        let mean_gap = THREE_YEARS / self.commits.max(1) as i64;
        for index in 0..count {
            let mut out = String::new();
            self.time += 1 + self.rng.below((2 * mean_gap) as u64) as i64;
            let (author, subject, body, files, renames) = self.next_commit();
            self.mark += 1;
            let name = AUTHORS[author];
            let email = format!("{}@example.com", name.to_lowercase().replace(' ', "."));
            let message = if body.is_empty() {
                format!("{subject}\n")
            } else {
                format!("{subject}\n\n{body}\n")
            };
            let _ = write!(
                out,
                "commit refs/heads/main\nmark :{mark}\nauthor {name} <{email}> {time} +0000\n\
                 committer {name} <{email}> {time} +0000\ndata {len}\n{message}\n",
                mark = self.mark,
                time = self.time,
                len = message.len(),
            );
            match (index, from) {
                (0, Some(from)) => {
                    let _ = writeln!(out, "from {from}");
                }
                (0, None) => {}
                _ => {
                    let _ = writeln!(out, "from :{}", self.mark - 1);
                }
            }
            for (old, new) in renames {
                let _ = writeln!(out, "R {old} {new}");
            }
            for &file in &files {
                self.edit(file);
                let content = self.content(file);
                let _ = write!(
                    out,
                    "M 100644 inline {}\ndata {}\n{content}\n",
                    self.files[file].path,
                    content.len()
                );
            }
            self.past.push(Past {
                subject,
                author,
                files,
            });
            sink.write_all(out.as_bytes())
                .context("Cannot write to git fast-import")?;
        }
        Ok(())
    }

    /// Author, subject, body, files changed, renames (old, new) of the next commit.
    #[allow(clippy::type_complexity)]
    fn next_commit(&mut self) -> (usize, String, String, Vec<usize>, Vec<(String, String)>) {
        if self.past.is_empty() {
            let all = (0..self.files.len()).collect();
            return (0, "Initial import".into(), String::new(), all, Vec::new());
        }
        let author = {
            let u = self.rng.below(1000) as f64 / 1000.0;
            ((u * u) * AUTHORS.len() as f64) as usize
        };
        let roll = self.rng.below(1000);
        // Reverts (and now and then a revert of the last revert).
        if roll < 8 {
            let last = self.past.len() - 1;
            let recent_revert = (last.saturating_sub(50)..=last)
                .rev()
                .find(|&index| self.past[index].subject.starts_with("Revert \""));
            let target = match recent_revert {
                Some(revert) if self.rng.below(3) == 0 => revert,
                _ => last - self.rng.below(self.past.len().min(5) as u64),
            };
            let files = self.past[target].files.clone();
            let quoted = &self.past[target].subject;
            let subject = if quoted.starts_with("Revert \"") && self.rng.below(2) == 0 {
                format!("Reapply {}", &quoted["Revert ".len()..])
            } else {
                format!("Revert \"{quoted}\"")
            };
            return (
                author,
                subject,
                "Broke the build.".into(),
                files,
                Vec::new(),
            );
        }
        // A fixup of a recent commit, by its author or a reviewer.
        if roll < 30 {
            let target = self.past.len() - 1 - self.rng.below(self.past.len().min(3) as u64);
            let past = &self.past[target];
            let files = past.files.iter().take(2).copied().collect();
            let who = if self.rng.below(2) == 0 {
                past.author
            } else {
                author
            };
            return (
                who,
                format!("fixup! {}", past.subject),
                String::new(),
                files,
                Vec::new(),
            );
        }
        // A rename of a popular file.
        let mut renames = Vec::new();
        let mut files: Vec<usize> = Vec::new();
        if roll < 34 {
            let file = self.popular_file();
            let old = self.files[file].path.clone();
            self.files[file].renames += 1;
            let new = format!(
                "{}_v{}.rs",
                old.trim_end_matches(".rs"),
                self.files[file].renames
            );
            self.files[file].path = new.clone();
            renames.push((old, new));
            files.push(file);
        }
        // A coupled pair, now and then with one more file.
        if (34..134).contains(&roll) {
            let pair = self.rng.below(COUPLED_PAIRS as u64) * 2;
            files.extend([pair, pair + 1]);
        }
        // Otherwise a skewed mix: mostly one to four files, sometimes many, rarely a sweep.
        let extra = match self.rng.below(1000) {
            0..=499 => 1,
            500..=899 => 2 + self.rng.below(3),
            900..=995 => 5 + self.rng.below(15),
            _ => 60 + self.rng.below(100),
        };
        for _ in 0..extra {
            files.push(self.popular_file());
        }
        files.sort_unstable();
        files.dedup();
        let area = self.files[files[0]]
            .path
            .split('/')
            .nth(1)
            .unwrap_or("core")
            .to_owned();
        let verb = VERBS[self.rng.below(VERBS.len() as u64)];
        let subject = match (author % 3, self.rng.below(5)) {
            (0, 0) => format!("fix({area}): handle empty {area} input #{}", self.mark),
            (0, _) => {
                let kind = TYPES[self.rng.below(TYPES.len() as u64)];
                format!(
                    "{kind}({area}): {} {area} logic #{}",
                    verb.to_lowercase(),
                    self.mark
                )
            }
            (_, 0) => format!("Fix crash in {area} when input is empty #{}", self.mark),
            _ => format!("{verb} the {area} module #{}", self.mark),
        };
        (author, subject, String::new(), files, renames)
    }

    /// Changes a few lines of the file and sometimes adds some.
    fn edit(&mut self, file: usize) {
        let changes = 1 + self.rng.below(4);
        for _ in 0..changes {
            let len = self.files[file].lines.len() as u64;
            let line = self.rng.below(len.max(1));
            let value = self.rng.below(1 << 40) as u64;
            if let Some(slot) = self.files[file].lines.get_mut(line) {
                *slot = value;
            }
        }
        if self.rng.below(3) == 0 && self.files[file].lines.len() < 400 {
            let value = self.rng.below(1 << 40) as u64;
            self.files[file].lines.push(value);
        }
    }

    fn content(&self, file: usize) -> String {
        let mut text = String::new();
        for (index, value) in self.files[file].lines.iter().enumerate() {
            let _ = writeln!(text, "fn f{index}() -> u64 {{ {value} }}");
        }
        text
    }
}
