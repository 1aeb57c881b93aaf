//! The `gitlore` binary as a newcomer runs it: a clean environment in a home folder of its own.

use std::path::Path;
use std::process::Command;

/// The file each corpus theme's inline comments are on, in the fixture repositories the
/// command-line tests build.
pub const THEME_FILES: [&str; 5] = [
    "src/handler.rs",
    "tests/parser.rs",
    "src/db.rs",
    "src/api.rs",
    "src/config.rs",
];
/// Who reviews in those fixtures.
pub const REVIEWERS: [&str; 3] = ["ana", "bo", "chen"];

/// `gitlore args…` in `home` with only `PATH`, `HOME` and quiet logs set.
pub fn gitlore_command(home: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gitlore"));
    command
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("GITLORE_LOG", "warn")
        .current_dir(home);
    command
}
