//! The history analyzers on a slice of a real history, replayed into a temporary repository.
//!
//! Provenance: nine commits of tinygrad/tinygrad (https://github.com/tinygrad/tinygrad, MIT
//! licence), read with `git log -1 --format='%H|%aN|%aE|%at|%ct|%P%n%B'` and
//! `git show --name-status`. Subjects, bodies, authors, dates and changed paths are verbatim; file
//! contents are not (each commit appends a line). A body's "This reverts commit <sha>" naming a
//! replayed commit is rewritten to that commit's new sha (`{N}`: the Nth commit below); a sha of
//! a commit that is not replayed (a branch commit quoted in a squash body, a commit off the
//! first-parent line) is kept as tinygrad has it. The original shas, in order: 4074f5231793,
//! 5dd61035f7e6, 4d09ea4c0607 (branch) merged by 78ebade12583, d01e3d771931, df1c183e46e9,
//! c7b03457d78a, bce2bc0465ef, d80c971ea2b3.
//!
//! What it checks, as a maintainer would with `git log --first-parent`: a revert is a commit whose
//! own title or first body line says so; a squash body quoting a reverted work-in-progress commit
//! is no revert; a revert of a revert chains; a merge counts once, under its pull request's title;
//! and no figure cites a commit off the first-parent line.

use std::path::Path;
use std::process::Command;

use gitlore::analysis::history::analyze_path;

/// One replayed commit: where it lands, who wrote it when, its message and its files.
struct Real {
    /// On a side branch, merged by the next commit.
    branch: bool,
    /// Merges the side branch (`git merge --no-ff`).
    merge: bool,
    author: (&'static str, &'static str),
    /// Author time, committer time (unix seconds).
    at: (i64, i64),
    message: &'static str,
    files: &'static [&'static str],
}

const QAZAL: (&str, &str) = ("qazal", "77887910+Qazalin@users.noreply.github.com");
const NIMLGEN: (&str, &str) = ("nimlgen", "138685161+nimlgen@users.noreply.github.com");
const B1TG: (&str, &str) = ("b1tg", "33436708+b1tg@users.noreply.github.com");
const CHENYU: (&str, &str) = ("chenyu", "chenyu@fastmail.com");
const MILAN: (&str, &str) = ("Christopher Milan", "chrismilan@ucla.edu");
const HOTZ: (&str, &str) = ("George Hotz", "72895+geohot@users.noreply.github.com");

const TINYGRAD: &[Real] = &[
    // 0: 4074f523179331d3a99dd55fa4ef14946563f246
    Real {
        branch: false,
        merge: false,
        author: QAZAL,
        at: (1_733_567_867, 1_733_567_867),
        message: "VALID early folding (#8100)\n\n* fold valid\n\n* :)\n\n* fix test_verify_ast\n\n\
                  * keep symbolic working\n",
        files: &[
            "test/test_schedule.py",
            "test/unit/test_verify_ast.py",
            "tinygrad/engine/schedule.py",
        ],
    },
    // 1: 5dd61035f7e68b82998411b04b99d32bb1e6259c, a revert with a subject of its own.
    Real {
        branch: false,
        merge: false,
        author: QAZAL,
        at: (1_733_675_664, 1_733_675_664),
        message: "revert VALID early folding for now (#8114)\n\nThis reverts commit {0}.\n",
        files: &[
            "test/test_schedule.py",
            "test/unit/test_verify_ast.py",
            "tinygrad/engine/schedule.py",
        ],
    },
    // 2: 4d09ea4c0607e6f916224e3903da361800aee593, a branch commit.
    Real {
        branch: true,
        merge: false,
        author: NIMLGEN,
        at: (1_741_687_327, 1_741_687_334),
        message: "hcq: reset timer on progress in singal.wait\n",
        files: &["tinygrad/runtime/support/hcq.py"],
    },
    // 3: 78ebade12583b90f154cf27ec2c11b93adcd684c, its merge.
    Real {
        branch: false,
        merge: true,
        author: NIMLGEN,
        at: (1_741_693_223, 1_741_693_223),
        message: "Merge pull request #9408 from nimlgen/hcq_progress_during_wait\n\n\
                  hcq: reset timer on progress in singal.wait\n",
        files: &[],
    },
    // 4: d01e3d7719315c046dd5875be856b070c9c20ba5
    Real {
        branch: false,
        merge: false,
        author: B1TG,
        at: (1_757_955_923, 1_757_955_923),
        message: "more llvm intrinsics (#11961)\n\n* more llvm intrinsics\n\n* assert nan\n\n\
                  * skip test_log_nan on metal\n\n---------\n\n\
                  Co-authored-by: b1tg <b1tg@users.noreply.github.com>\n",
        files: &["tinygrad/renderer/llvmir.py"],
    },
    // 5: df1c183e46e908f69bc8091ec29fdf304303b9d4
    Real {
        branch: false,
        merge: false,
        author: CHENYU,
        at: (1_757_959_003, 1_757_959_003),
        message: "Revert \"more llvm intrinsics (#11961)\" (#12194)\n\nThis reverts commit {4}.\n",
        files: &["tinygrad/renderer/llvmir.py"],
    },
    // 6: c7b03457d78a0d85ee323cd84cd1c24ba8cd55b7
    Real {
        branch: false,
        merge: false,
        author: CHENYU,
        at: (1_758_048_931, 1_758_048_931),
        message: "Revert \"Revert \"more llvm intrinsics (#11961)\" (#12194)\" (#12195)\n\n\
                  This reverts commit {5}.\n",
        files: &["tinygrad/renderer/llvmir.py"],
    },
    // 7: bce2bc0465efa922ae129487bf34cf7c0a2d8c76; the commit it names is off the first-parent
    // line of tinygrad.
    Real {
        branch: false,
        merge: false,
        author: MILAN,
        at: (1_760_623_641, 1_760_623_641),
        message: "Revert \"use RTLD_GLOBAL on macos\" (#12738)\n\n\
                  This reverts commit 89fe3e574d6876a44624ddf9b59a78a850c3f060.\n",
        files: &["autogen_stubs.sh", "tinygrad/runtime/autogen/llvm.py"],
    },
    // 8: d80c971ea2b3e5cb56c817bb528ea68964d05d8b, a squash merge whose body quotes the revert of
    // a branch commit as its last line.
    Real {
        branch: false,
        merge: false,
        author: HOTZ,
        at: (1_783_639_921, 1_783_639_921),
        message: "param + cast dtype in arg (#16955)\n\n* param + cast dtype in arg\n\n\
                  * require dtype\n\n* fix replace in dtype decomps\n\n* fix x86\n\n\
                  * dtype none is fine there\n\n* Revert \"dtype none is fine there\"\n\n\
                  This reverts commit 5315cc3e59f60cdcef66df6245f5b77877b193a2.\n",
        files: &[
            "test/null/test_pattern_matcher.py",
            "tinygrad/codegen/decomp/dtype.py",
            "tinygrad/renderer/isa/x86.py",
            "tinygrad/schedule/rangeify.py",
            "tinygrad/uop/ops.py",
            "tinygrad/uop/spec.py",
        ],
    },
];

fn git(dir: &Path, author: (&str, &str), at: (i64, i64), args: &[&str]) -> String {
    let output = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", author.0)
        .env("GIT_AUTHOR_EMAIL", author.1)
        .env("GIT_COMMITTER_NAME", author.0)
        .env("GIT_COMMITTER_EMAIL", author.1)
        .env("GIT_AUTHOR_DATE", format!("@{} +0000", at.0))
        .env("GIT_COMMITTER_DATE", format!("@{} +0000", at.1))
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

/// Replays [`TINYGRAD`] into `dir`; returns the new shas in order.
fn replay(dir: &Path) -> Vec<String> {
    let nobody = ("nobody", "nobody@example.com");
    git(dir, nobody, (0, 0), &["init", "-q", "-b", "master"]);
    let mut shas: Vec<String> = Vec::new();
    for (index, real) in TINYGRAD.iter().enumerate() {
        let mut message = real.message.to_owned();
        for (earlier, sha) in shas.iter().enumerate() {
            message = message.replace(&format!("{{{earlier}}}"), sha);
        }
        let git = |args: &[&str]| git(dir, real.author, real.at, args);
        if real.branch {
            git(&["checkout", "-q", "-b", "side"]);
        }
        for path in real.files {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            let mut text = std::fs::read_to_string(&file).unwrap_or_default();
            text.push_str(&format!("commit {index}\n"));
            std::fs::write(&file, text).unwrap();
        }
        if real.merge {
            git(&["checkout", "-q", "master"]);
            git(&["merge", "-q", "--no-ff", "-m", &message, "side"]);
        } else {
            git(&["add", "-A"]);
            git(&["commit", "-q", "--cleanup=verbatim", "-m", &message]);
        }
        shas.push(git(&["rev-parse", "HEAD"]));
    }
    shas
}

#[test]
fn reverts_of_a_real_history_are_the_commits_that_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let shas = replay(dir.path());
    let report = analyze_path(dir.path()).unwrap();

    // The first-parent line: every commit but the branch commit, the merge once.
    assert_eq!(report.commits, 8);
    assert_eq!(
        report.conventions.commits, 8,
        "the merge has its PR's title"
    );
    let found: Vec<(&str, Option<&str>, usize)> = report
        .reverts
        .iter()
        .map(|r| (r.sha.as_str(), r.reverted.as_deref(), r.depth))
        .collect();
    assert_eq!(
        found,
        [
            (shas[7].as_str(), None, 1),
            (shas[6].as_str(), Some(shas[5].as_str()), 2),
            (shas[5].as_str(), Some(shas[4].as_str()), 1),
            (shas[1].as_str(), Some(shas[0].as_str()), 1),
        ],
        "{:#?}",
        report.reverts
    );
    assert_eq!(
        report.reverts[3].subject,
        "revert VALID early folding for now (#8114)"
    );
    assert_eq!(
        report.reverts[0].files,
        ["autogen_stubs.sh", "tinygrad/runtime/autogen/llvm.py"]
    );

    // The merge is one change of the line: its file counts once, as the merge's.
    let hcq = report
        .hotspots
        .iter()
        .find(|h| h.path == "tinygrad/runtime/support/hcq.py")
        .unwrap();
    assert_eq!(hcq.commits, 1);

    // Nothing cites a commit off the line (the branch commit, or shas quoted in bodies).
    let on_line: Vec<&str> = shas
        .iter()
        .enumerate()
        .filter(|(index, _)| !TINYGRAD[*index].branch)
        .map(|(_, sha)| sha.as_str())
        .collect();
    let cited = report
        .reverts
        .iter()
        .flat_map(|r| std::iter::once(r.sha.as_str()).chain(r.reverted.as_deref()))
        .chain(
            report
                .fix_after
                .iter()
                .flat_map(|f| [f.change.as_str(), f.fix.as_str()]),
        );
    for sha in cited {
        assert!(
            on_line.contains(&sha),
            "{sha} is not on the first-parent line"
        );
    }
}
