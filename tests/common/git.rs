//! Real git repositories for tests: commands run as one author at a given date.

use std::path::Path;
use std::process::Command;

/// Runs `git -C repo args…` as "Dev" with author and committer date `date`; panics with git's
/// error when it fails.
pub fn git(repo: &Path, args: &[&str], date: &str) {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .env("GIT_AUTHOR_NAME", "Dev")
        .env("GIT_AUTHOR_EMAIL", "dev@example.com")
        .env("GIT_COMMITTER_NAME", "Dev")
        .env("GIT_COMMITTER_EMAIL", "dev@example.com")
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_DATE", date)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A repository at `dir` on branch `main` with `commits` commits, one a day from unix time
/// `start`: commit `i` appends a line to each file `paths(i)` names.
pub fn history(dir: &Path, start: i64, commits: i64, paths: impl Fn(i64) -> Vec<&'static str>) {
    std::fs::create_dir_all(dir).unwrap();
    git(
        dir,
        &["init", "-q", "-b", "main"],
        &format!("@{start} +0000"),
    );
    for i in 0..commits {
        for path in paths(i) {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            let mut text = std::fs::read_to_string(&file).unwrap_or_default();
            text.push_str(&format!("change {i}\n"));
            std::fs::write(&file, text).unwrap();
        }
        let date = format!("@{} +0000", start + i * 24 * 3600);
        git(dir, &["add", "-A"], &date);
        git(dir, &["commit", "-q", "-m", &format!("Change {i}")], &date);
    }
}
