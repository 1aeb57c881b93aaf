//! What a changed file is for: the project's code, or bookkeeping that changes with everything
//! and teaches a reader nothing about the code — changelogs, dependency lockfiles, the settings
//! of linters, formatters and bots. Told by the file's name alone, so that it needs no contents.

/// The kind of a file, by its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Anything that is not bookkeeping: source, tests, docs, build scripts.
    Code,
    /// Release notes: `CHANGELOG.md`, `CHANGES.rst`, `NEWS`, `HISTORY.md`, a towncrier fragment.
    Changelog,
    /// A dependency lockfile: `Cargo.lock`, `package-lock.json`, `go.sum`, …
    Lockfile,
    /// A linter's, formatter's or bot's settings: `.pre-commit-config.yaml`, `.eslintrc.json`,
    /// `.github/gitlore.toml`, …
    ToolConfig,
}

/// Release-notes file names, without their extension (which is one of `PROSE_EXTENSIONS`).
const CHANGELOG_STEMS: &[&str] = &[
    "changelog",
    "changes",
    "history",
    "news",
    "releases",
    "release-notes",
    "release_notes",
    "whatsnew",
];

/// The extensions of a release-notes file; none is one too (`NEWS`).
const PROSE_EXTENSIONS: &[&str] = &["", "md", "markdown", "rst", "txt", "adoc"];

/// Directories that hold one release note per change (towncrier and its kin).
const CHANGELOG_DIRS: &[&str] = &["changelog.d", "newsfragments", ".changeset"];

/// Lockfiles whose names do not end in `.lock`.
const LOCKFILES: &[&str] = &[
    "package-lock.json",
    "npm-shrinkwrap.json",
    "pnpm-lock.yaml",
    "go.sum",
    "gradle.lockfile",
    "packages.lock.json",
];

/// Linters', formatters' and bots' settings, by name without a leading dot and extension (`.eslintrc.json` is
/// `eslintrc`).
const TOOL_CONFIG_STEMS: &[&str] = &[
    "pre-commit-config",
    "eslintrc",
    "eslint.config",
    "prettierrc",
    "prettier.config",
    "stylelintrc",
    "markdownlint",
    "yamllint",
    "flake8",
    "pylintrc",
    "ruff",
    "rubocop",
    "golangci",
    "clippy",
    "rustfmt",
    "clang-format",
    "clang-tidy",
    "editorconfig",
    "biome",
    "codespellrc",
    "gitlore",
    "dependabot",
    "renovate",
];

impl FileKind {
    /// The kind of the file at `path` (`/`-separated, as git writes it).
    pub fn of(path: &str) -> FileKind {
        let lower = path.to_ascii_lowercase();
        let mut segments = lower.rsplit('/');
        let name = segments.next().unwrap_or_default();
        let parent = segments.next();
        let bare = name.trim_start_matches('.');
        let (stem, extension) = bare.split_once('.').unwrap_or((bare, ""));
        let release_notes =
            CHANGELOG_STEMS.contains(&stem) && PROSE_EXTENSIONS.contains(&extension);
        if release_notes || parent.is_some_and(|dir| CHANGELOG_DIRS.contains(&dir)) {
            FileKind::Changelog
        } else if name.ends_with(".lock") || LOCKFILES.contains(&name) {
            FileKind::Lockfile
        } else if TOOL_CONFIG_STEMS
            .iter()
            .any(|lint| bare == *lint || bare.starts_with(&format!("{lint}.")))
        {
            FileKind::ToolConfig
        } else {
            FileKind::Code
        }
    }

    /// Whether the file is bookkeeping rather than code.
    pub fn is_bookkeeping(self) -> bool {
        self != FileKind::Code
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bookkeeping_is_told_by_name_and_code_is_the_rest() {
        let cases = [
            ("CHANGES.rst", FileKind::Changelog),
            ("docs/changelog.md", FileKind::Changelog),
            ("NEWS", FileKind::Changelog),
            ("newsfragments/1234.bugfix", FileKind::Changelog),
            ("Cargo.lock", FileKind::Lockfile),
            ("web/package-lock.json", FileKind::Lockfile),
            ("go.sum", FileKind::Lockfile),
            (".pre-commit-config.yaml", FileKind::ToolConfig),
            (".eslintrc.json", FileKind::ToolConfig),
            ("ruff.toml", FileKind::ToolConfig),
            (".github/gitlore.toml", FileKind::ToolConfig),
            ("src/history.rs", FileKind::Code),
            ("src/changes_test.go", FileKind::Code),
            ("Cargo.toml", FileKind::Code),
            ("lib/news_feed.py", FileKind::Code),
        ];
        for (path, kind) in cases {
            assert_eq!(FileKind::of(path), kind, "{path}");
        }
    }
}
