//! The git history analyzers on repositories built here with exact authors and dates: known
//! answers for every threshold and window of the analyzers, renames, the incremental store,
//! damaged repositories, and the mirror's handling of the token.

use std::path::{Path, PathBuf};
use std::process::Command;

use gitlore::analysis::history::{self, analyze_path};
use gitlore::analysis::mirror_sync;
use gitlore::domain::Secret;
use gitlore::domain::{InstallationId, Repo, RepoId, RepoName};
use gitlore::knowledge::history::mirror::{self, Remote, Update};
use gitlore::knowledge::history::{FixTier, HistoryReport};
use gitlore::store::{self, Store};

/// 2023-01-02T00:00:00Z.
const T0: i64 = 1_672_617_600;
const MINUTE: i64 = 60;
const HOUR: i64 = 3600;
const DAY: i64 = 86_400;

/// What a commit does to one file.
enum Change<'a> {
    /// Creates the file or appends a line to it.
    Write(&'a str),
    Delete(&'a str),
    Rename(&'a str, &'a str),
}
use Change::{Delete, Rename, Write};

/// A repository in a temp dir, committed to with exact authors and dates.
struct TestRepo {
    dir: tempfile::TempDir,
    writes: usize,
}

impl TestRepo {
    fn new() -> TestRepo {
        let repo = TestRepo {
            dir: tempfile::tempdir().unwrap(),
            writes: 0,
        };
        repo.git(&["init", "-q", "-b", "main"], 0);
        repo
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs git at unix time `at` (author and committer date), isolated from the user's config.
    fn git(&self, args: &[&str], at: i64) -> String {
        let date = format!("@{at} +0000");
        let output = Command::new("git")
            .current_dir(self.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .args(args)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap().trim().to_owned()
    }

    /// Commits `changes` as `who` (`who@example.com`) at `at`; returns the sha.
    fn commit(&mut self, who: &str, at: i64, message: &str, changes: &[Change<'_>]) -> String {
        for change in changes {
            match change {
                Write(path) => {
                    let file = self.path().join(path);
                    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                    self.writes += 1;
                    let mut text = std::fs::read_to_string(&file).unwrap_or_default();
                    text.push_str(&format!("line {}\n", self.writes));
                    std::fs::write(&file, text).unwrap();
                }
                Delete(path) => std::fs::remove_file(self.path().join(path)).unwrap(),
                Rename(from, to) => {
                    self.git(&["mv", from, to], at);
                }
            }
        }
        self.git(&["add", "-A"], at);
        let name = format!("user.name={who}");
        let email = format!("user.email={who}@example.com");
        self.git(
            &[
                "-c",
                &name,
                "-c",
                &email,
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                message,
            ],
            at,
        );
        self.git(&["rev-parse", "HEAD"], at)
    }
}

fn report(repo: &TestRepo) -> HistoryReport {
    analyze_path(repo.path()).unwrap()
}

#[test]
fn coupling_keeps_pairs_above_every_threshold_only() {
    let mut repo = TestRepo::new();
    let mut at = T0;
    let mut commit = |repo: &mut TestRepo, files: &[&str]| {
        at += HOUR;
        let changes: Vec<Change<'_>> = files.iter().map(|f| Write(f)).collect();
        repo.commit("ann", at, "Change things", &changes);
    };
    let wide: Vec<String> = (0..49).map(|i| format!("wide/z{i}.txt")).collect();
    for _ in 0..4 {
        commit(&mut repo, &["a.rs", "b.rs"]); // support 4, confidence 1: coupled
    }
    for _ in 0..2 {
        commit(&mut repo, &["c.rs", "d.rs"]); // support 2 < 3
    }
    for _ in 0..3 {
        commit(&mut repo, &["e.rs", "f.rs"]); // confidence 3/13 < 0.25
    }
    for _ in 0..10 {
        commit(&mut repo, &["e.rs"]);
        commit(&mut repo, &["f.rs"]);
    }
    for _ in 0..30 {
        commit(&mut repo, &["g.rs", "h.rs"]); // lift 30·122/(60·60) ≈ 1.02 < 1.5
        commit(&mut repo, &["g.rs"]);
        commit(&mut repo, &["h.rs"]);
    }
    for _ in 0..3 {
        commit(&mut repo, &["m.rs", "n.rs"]); // support exactly 3: coupled
    }
    let mut big: Vec<&str> = wide.iter().map(String::as_str).collect();
    big.extend(["m.rs", "n.rs"]); // 51 files: skipped, so m-n stays at 3 commits
    commit(&mut repo, &big);
    big.truncate(49);
    big.extend(["i.rs", "j.rs"]);
    for _ in 0..4 {
        commit(&mut repo, &big); // only ever together in commits of 51 files
    }

    let report = report(&repo);
    let pairs: Vec<(&str, &str)> = report
        .couplings
        .iter()
        .map(|c| (c.a.as_str(), c.b.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [("a.rs", "b.rs"), ("m.rs", "n.rs")],
        "strongest first: more support at the same confidence, whatever the lift"
    );
    let ab = &report.couplings[0];
    assert_eq!((ab.commits, ab.support, ab.confidence), (4, 4.0, 1.0));
    assert!((ab.lift - 122.0 / 4.0).abs() < 1e-9, "lift {}", ab.lift);
    let mn = &report.couplings[1];
    assert_eq!((mn.commits, mn.support), (3, 3.0));
    assert!(mn.lift > ab.lift, "lift {} vs {}", mn.lift, ab.lift);
}

#[test]
fn reverts_and_reverts_of_reverts_chain() {
    let mut repo = TestRepo::new();
    repo.commit("ann", T0, "Add base", &[Write("base.rs")]);
    let original = repo.commit("ann", T0 + HOUR, "Add cache", &[Write("cache.rs")]);
    repo.git(
        &[
            "-c",
            "user.name=bob",
            "-c",
            "user.email=bob@example.com",
            "revert",
            "--no-edit",
            "HEAD",
        ],
        T0 + 2 * HOUR,
    );
    let revert = repo.git(&["rev-parse", "HEAD"], 0);
    repo.git(
        &[
            "-c",
            "user.name=ann",
            "-c",
            "user.email=ann@example.com",
            "revert",
            "--no-edit",
            "HEAD",
        ],
        T0 + 3 * HOUR,
    );
    let reapply = repo.git(&["rev-parse", "HEAD"], 0);

    let reverts = report(&repo).reverts;
    assert_eq!(reverts.len(), 2, "{reverts:#?}");
    assert_eq!(reverts[0].sha, reapply);
    assert_eq!(reverts[0].reverted.as_deref(), Some(revert.as_str()));
    assert_eq!(reverts[0].depth, 2);
    assert_eq!(reverts[1].sha, revert);
    assert_eq!(reverts[1].reverted.as_deref(), Some(original.as_str()));
    assert_eq!(reverts[1].depth, 1);
    assert_eq!(reverts[1].subject, "Revert \"Add cache\"");
    assert_eq!(reverts[1].files, ["cache.rs"]);
}

#[test]
fn fix_after_tiers_match_inside_their_windows_only() {
    let mut repo = TestRepo::new();
    // Each scenario on its own file, ten days apart.
    let scenarios: [(&str, &str, i64, &str, &str); 7] = [
        ("quick.rs", "ann", 29 * MINUTE, "Tweak quick", ""),
        ("late.rs", "ann", 31 * MINUTE, "Tweak late", ""),
        ("words.rs", "ann", 3 * HOUR, "Fix crash in words", ""),
        (
            "wordslate.rs",
            "ann",
            4 * HOUR + MINUTE,
            "Fix crash in wordslate",
            "",
        ),
        ("fixup.rs", "bob", 6 * DAY, "fixup! Add fixup.rs", ""),
        (
            "fixuplate.rs",
            "bob",
            7 * DAY + MINUTE,
            "fixup! Add fixuplate.rs",
            "",
        ),
        (
            "named.rs",
            "bob",
            2 * DAY,
            "Handle empty input",
            "Fixes SHA (\"Add named.rs\")",
        ),
    ];
    let mut expected = Vec::new();
    for (index, (file, fixer, gap, subject, body)) in scenarios.iter().enumerate() {
        let start = T0 + index as i64 * 10 * DAY;
        let change = repo.commit("ann", start, &format!("Add {file}"), &[Write(file)]);
        let body = body.replace("SHA", &change[..10]);
        let message = format!("{subject}\n\n{body}");
        let fix = repo.commit(fixer, start + gap, &message, &[Write(file)]);
        expected.push((change, fix, *gap));
    }

    let links = report(&repo).fix_after;
    let found = |index: usize| {
        let (change, fix, _) = &expected[index];
        links.iter().find(|link| &link.fix == fix).map(|link| {
            (
                link.change == *change,
                link.tier,
                link.gap_secs,
                link.files.clone(),
            )
        })
    };
    assert_eq!(
        found(0),
        Some((
            true,
            FixTier::SameAuthorQuick,
            29 * MINUTE,
            vec!["quick.rs".into()]
        ))
    );
    assert_eq!(found(1), None, "31 minutes, no fix words");
    assert_eq!(
        found(2).map(|f| (f.0, f.1, f.2)),
        Some((true, FixTier::SameAuthorFixWords, 3 * HOUR))
    );
    assert_eq!(found(3), None, "4 h 01 with fix words");
    assert_eq!(
        found(4).map(|f| (f.0, f.1, f.2)),
        Some((true, FixTier::StrongSignal, 6 * DAY))
    );
    assert_eq!(found(5), None, "7 days and a minute after, fixup!");
    assert_eq!(
        found(6).map(|f| (f.0, f.1)),
        Some((true, FixTier::StrongSignal))
    );
    assert_eq!(links.len(), 4, "{links:#?}");
}

#[test]
fn renamed_files_keep_their_history_under_the_new_name() {
    let mut repo = TestRepo::new();
    repo.commit(
        "ann",
        T0,
        "Add parser",
        &[Write("src/parse.rs"), Write("src/lex.rs")],
    );
    repo.commit(
        "ann",
        T0 + DAY,
        "Extend parser",
        &[Write("src/parse.rs"), Write("src/lex.rs")],
    );
    repo.commit(
        "ann",
        T0 + 2 * DAY,
        "Move parser",
        &[Rename("src/parse.rs", "src/parser.rs")],
    );
    repo.commit("bob", T0 + 3 * DAY, "Fix parser", &[Write("src/parser.rs")]);
    repo.commit(
        "bob",
        T0 + 4 * DAY,
        "Grow parser",
        &[Write("src/parser.rs"), Write("src/lex.rs")],
    );
    for i in 0..5 {
        repo.commit(
            "bob",
            T0 + 5 * DAY + i * HOUR,
            "Write docs",
            &[Write("README.md")],
        );
    }

    let report = report(&repo);
    let parser = report
        .hotspots
        .iter()
        .find(|h| h.path == "src/parser.rs")
        .unwrap();
    assert_eq!((parser.commits, parser.fix_commits), (5, 1));
    assert_eq!(parser.last_change, T0 + 4 * DAY);
    assert_eq!(report.commits, 10);
    assert!(report.hotspots.iter().all(|h| h.path != "src/parse.rs"));
    assert!(report.files_at_head.contains(&"src/parser.rs".to_owned()));
    assert!(!report.files_at_head.contains(&"src/parse.rs".to_owned()));
    // The pair changed together three times across the rename (commits of 2 files each): support
    // 3, confidence 1, lift 3·10/(5·3) = 2.
    let pair = report
        .couplings
        .iter()
        .find(|c| c.a == "src/lex.rs" && c.b == "src/parser.rs")
        .unwrap();
    assert_eq!(pair.commits, 3);
}

#[test]
fn hotspot_scores_decay_with_a_180_day_half_life() {
    let mut repo = TestRepo::new();
    for i in 0..10 {
        repo.commit("ann", T0 + i * HOUR, "Work on old", &[Write("old.rs")]);
    }
    let newest = T0 + 720 * DAY;
    for i in 0..3 {
        repo.commit("ann", newest - i * HOUR, "Work on new", &[Write("new.rs")]);
    }
    repo.commit("ann", newest, "Fix new", &[Write("new.rs")]);
    repo.commit("ann", newest, "Touch nothing", &[]);
    repo.commit("ann", newest, "Remove gone", &[Write("gone.rs")]);
    repo.commit("ann", newest, "Remove gone", &[Delete("gone.rs")]);

    let report = report(&repo);
    assert_eq!(report.newest_commit_at, newest);
    let paths: Vec<&str> = report.hotspots.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, ["new.rs", "old.rs"], "deleted files are no hotspots");
    let (new, old) = (&report.hotspots[0], &report.hotspots[1]);
    assert_eq!((new.commits, old.commits), (4, 10));
    // Ten commits four half-lives old weigh 10/16.
    let old_expected: f64 = (0..10)
        .map(|i| 0.5_f64.powf((720.0 * 86_400.0 - i as f64 * 3600.0) / (180.0 * 86_400.0)))
        .sum();
    assert!((old.score - old_expected).abs() < 1e-9, "{}", old.score);
    assert!((old.score - 0.625).abs() < 0.01);
    assert!(new.score > 3.99 && new.score <= 4.0);
    assert_eq!((new.fix_commits, new.fix_ratio), (1, 0.25));
}

#[test]
fn conventions_report_shares() {
    let mut repo = TestRepo::new();
    let subjects = [
        "feat: add paging",
        "fix(api): handle empty pages",
        "feat!: drop the v1 endpoints",
        "ABC-12 Update the changelog",
        "Added a very long subject line that goes on and on well past the seventy-two limit",
        "#7 Tidy imports",
        "Refactoring the cache",
        "chore: bump deps",
    ];
    for (i, subject) in subjects.iter().enumerate() {
        repo.commit("ann", T0 + i as i64 * HOUR, subject, &[Write("x.rs")]);
    }
    let conventions = report(&repo).conventions;
    assert_eq!(conventions.commits, 8);
    assert_eq!(conventions.conventional_share, 0.5);
    assert_eq!(
        conventions.conventional_types,
        [
            ("feat".to_owned(), 2),
            ("chore".to_owned(), 1),
            ("fix".to_owned(), 1)
        ]
    );
    assert_eq!(conventions.ticket_prefix_share, 0.25);
    // Not imperative: "Added …", "Refactoring …".
    assert_eq!(conventions.imperative_share, 0.75);
    assert_eq!(conventions.long_subject_share, 0.125);
    let mut lengths: Vec<usize> = subjects.iter().map(|s| s.chars().count()).collect();
    lengths.sort_unstable();
    assert_eq!(conventions.median_subject_len, lengths[4]);
}

/// A store with one registered repository.
fn store_with_repo(dir: &Path, id: i64) -> Store {
    let store = Store::open(&store::database_path(dir)).unwrap();
    let repo = Repo {
        id: RepoId(id),
        name: RepoName::parse("octo/repo").unwrap(),
        default_branch: Some("main".into()),
        private: false,
    };
    store
        .write(|tx| store::repos::upsert_repo(tx, &repo, None, false))
        .unwrap();
    store
}

fn busy_repo(commits: i64) -> TestRepo {
    let mut repo = TestRepo::new();
    for i in 0..commits {
        let file = format!("src/f{}.rs", i % 5);
        let pair = format!("src/f{}.rs", (i + 1) % 5);
        let subject = if i % 4 == 0 { "Fix it" } else { "Change it" };
        repo.commit(
            if i % 2 == 0 { "ann" } else { "bob" },
            T0 + i * 20 * MINUTE,
            subject,
            &[Write(&file), Write(&pair)],
        );
    }
    repo
}

#[test]
fn incremental_runs_read_only_new_commits_and_agree_with_a_full_run() {
    let data = tempfile::tempdir().unwrap();
    let store = store_with_repo(data.path(), 9);
    let mut repo = busy_repo(12);

    let first = history::run(&store, RepoId(9), repo.path()).unwrap();
    assert_eq!((first.commits_read, first.commits), (12, 12));
    let again = history::run(&store, RepoId(9), repo.path()).unwrap();
    assert_eq!(again.commits_read, 0);
    assert_eq!(
        HistoryReport {
            commits_read: 12,
            ..again
        },
        first
    );

    for i in 0..3 {
        repo.commit(
            "ann",
            T0 + DAY + i * MINUTE,
            "Fix it again",
            &[Write("src/f1.rs"), Write("src/new.rs")],
        );
    }
    let incremental = history::run(&store, RepoId(9), repo.path()).unwrap();
    assert_eq!((incremental.commits_read, incremental.commits), (3, 15));
    let full = analyze_path(repo.path()).unwrap();
    assert_eq!(full.commits_read, 15);
    assert_eq!(
        HistoryReport {
            commits_read: 15,
            ..incremental
        },
        full
    );

    // A force-push that drops the stored head: everything is read again.
    repo.git(&["reset", "-q", "--hard", "HEAD~2"], 0);
    repo.commit("bob", T0 + 2 * DAY, "Rewrite", &[Write("src/f3.rs")]);
    let rewritten = history::run(&store, RepoId(9), repo.path()).unwrap();
    assert_eq!((rewritten.commits_read, rewritten.commits), (14, 14));
    assert_eq!(
        HistoryReport {
            commits_read: 14,
            ..rewritten
        },
        analyze_path(repo.path()).unwrap()
    );
}

#[test]
fn a_missing_blob_costs_only_its_commit_s_renames() {
    let mut repo = TestRepo::new();
    let mut at = T0;
    let mut next = |repo: &mut TestRepo, message: &str, changes: &[Change<'_>]| {
        at += HOUR;
        repo.commit("ann", at, message, changes)
    };
    for _ in 0..4 {
        next(&mut repo, "Grow a", &[Write("a.rs")]);
    }
    next(&mut repo, "Add b", &[Write("b.rs")]);
    // Renamed and edited: telling it from a deletion and an addition needs both blobs.
    let moved = next(
        &mut repo,
        "Move a",
        &[Rename("a.rs", "c.rs"), Write("c.rs")],
    );
    next(&mut repo, "Grow c", &[Write("c.rs")]);
    let grown = next(&mut repo, "Grow b", &[Write("b.rs")]);
    next(&mut repo, "Grow b again", &[Write("b.rs")]);
    for (commit, path) in [(&moved, "c.rs"), (&grown, "b.rs")] {
        let blob = repo.git(&["rev-parse", &format!("{commit}:{path}")], 0);
        let object: PathBuf = repo
            .path()
            .join(".git/objects")
            .join(&blob[..2])
            .join(&blob[2..]);
        std::fs::remove_file(object).unwrap();
    }

    let data = tempfile::tempdir().unwrap();
    let store = store_with_repo(data.path(), 3);
    let report = history::run(&store, RepoId(3), repo.path()).unwrap();
    assert_eq!((report.commits, report.commits_without_renames), (9, 1));
    let stored = store::history::commits(&store.reader().unwrap(), RepoId(3)).unwrap();
    let read: Vec<(&str, bool, Vec<&str>)> = stored
        .iter()
        .map(|c| {
            let files = c.files.iter().map(|f| f.path.as_str()).collect();
            (c.subject.as_str(), c.complete, files)
        })
        .collect();
    assert_eq!(
        read[4..],
        [
            ("Add b", true, vec!["b.rs"]),
            ("Move a", false, vec!["a.rs", "c.rs"]),
            ("Grow c", true, vec!["c.rs"]),
            ("Grow b", true, vec!["b.rs"]),
            ("Grow b again", true, vec!["b.rs"]),
        ]
    );
    // Without the rename, c.rs's history starts at the move.
    let c = report.hotspots.iter().find(|h| h.path == "c.rs").unwrap();
    assert_eq!(c.commits, 2);
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn mirrors_keep_the_token_off_disk_and_fetch_when_stale_or_old() {
    use base64::Engine;
    let mut source = busy_repo(3);
    let data = tempfile::tempdir().unwrap();
    let token = "ghs_MirrorTestToken0123456789";
    let remote = Remote {
        url: source.path().display().to_string(),
        token: Some(Secret::new(token)),
    };
    let now = T0 + 100 * DAY;

    let (path, update) = mirror::update(data.path(), RepoId(42), &remote, false, now).unwrap();
    assert_eq!(update, Update::Cloned);
    assert_eq!(path, data.path().join("mirrors/42.git"));
    let encoded =
        base64::engine::general_purpose::STANDARD.encode(format!("x-access-token:{token}"));
    for file in files_under(data.path()) {
        let bytes = std::fs::read(&file).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(token) && !text.contains(&encoded),
            "{}",
            file.display()
        );
    }
    let url = Command::new("git")
        .args([
            "-C",
            &path.display().to_string(),
            "config",
            "remote.origin.url",
        ])
        .output()
        .unwrap();
    let url = String::from_utf8(url.stdout).unwrap();
    assert_eq!(url.trim(), remote.url);

    let head = source.commit("ann", T0 + 10 * DAY, "Newer", &[Write("src/new.rs")]);
    let mirror_head = |path: &Path| gitlore::knowledge::history::log::head(path).unwrap();
    let (_, update) = mirror::update(data.path(), RepoId(42), &remote, false, now + HOUR).unwrap();
    assert_eq!(update, Update::Unchanged);
    assert_ne!(mirror_head(&path).as_deref(), Some(head.as_str()));
    let (_, update) = mirror::update(data.path(), RepoId(42), &remote, true, now + HOUR).unwrap();
    assert_eq!(update, Update::Fetched);
    assert_eq!(mirror_head(&path).as_deref(), Some(head.as_str()));
    let (_, update) =
        mirror::update(data.path(), RepoId(42), &remote, false, now + 26 * HOUR).unwrap();
    assert_eq!(update, Update::Fetched, "older than a day");

    let with_password = Remote {
        url: "https://x-access-token:abc@github.com/o/r.git".into(),
        token: None,
    };
    let error = mirror::update(data.path(), RepoId(43), &with_password, true, now).unwrap_err();
    assert!(!format!("{error:#}").contains("abc@"), "{error:#}");
}

#[test]
fn sync_takes_the_stale_mark_and_restores_it_when_the_fetch_fails() {
    let source = busy_repo(2);
    let data = tempfile::tempdir().unwrap();
    let store = store_with_repo(data.path(), 5);
    let stale = |store: &Store| -> bool {
        store
            .reader()
            .unwrap()
            .query_row("SELECT mirror_stale FROM repos WHERE id = 5", [], |r| {
                r.get(0)
            })
            .unwrap()
    };
    let remote = Remote {
        url: source.path().display().to_string(),
        token: None,
    };
    assert!(stale(&store), "a new repository's mirror starts stale");
    mirror_sync::sync(&store, data.path(), RepoId(5), &remote, T0).unwrap();
    assert!(!stale(&store));

    store
        .write(|tx| store::repos::mark_mirror_stale(tx, RepoId(5)))
        .unwrap();
    let gone = Remote {
        url: data.path().join("nowhere").display().to_string(),
        token: None,
    };
    assert!(mirror_sync::sync(&store, data.path(), RepoId(5), &gone, T0 + HOUR).is_err());
    assert!(
        stale(&store),
        "a failed fetch leaves the mark for the next try"
    );
}

#[test]
fn mirrors_of_repositories_that_are_gone_are_deleted() {
    let source = busy_repo(2);
    let data = tempfile::tempdir().unwrap();
    let store = Store::open(&store::database_path(data.path())).unwrap();
    let installation = gitlore::events::Installation {
        id: InstallationId(5),
        account_login: Some("octo".into()),
        account_type: None,
    };
    let repo = |id: i64| Repo {
        id: RepoId(id),
        name: RepoName::parse(&format!("octo/r{id}")).unwrap(),
        default_branch: Some("main".into()),
        private: false,
    };
    store
        .write(|tx| {
            store::repos::upsert_installation(tx, &installation, false)?;
            store::repos::upsert_repo(tx, &repo(1), Some(InstallationId(5)), true)?;
            store::repos::upsert_repo(tx, &repo(2), Some(InstallationId(5)), true)?;
            store::repos::remove_repo(tx, RepoId(2))
        })
        .unwrap();
    let remote = Remote {
        url: source.path().display().to_string(),
        token: None,
    };
    for id in [1, 2, 3] {
        mirror::update(data.path(), RepoId(id), &remote, false, T0).unwrap();
    }
    assert_eq!(mirror_sync::remove_orphans(data.path(), &store).unwrap(), 2);
    assert!(
        mirror::path(data.path(), RepoId(1)).exists(),
        "a live repository keeps its mirror"
    );
    assert!(!mirror::path(data.path(), RepoId(2)).exists(), "removed");
    assert!(!mirror::path(data.path(), RepoId(3)).exists(), "unknown");
    assert_eq!(mirror_sync::remove_orphans(data.path(), &store).unwrap(), 0);
}
