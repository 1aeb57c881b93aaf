//! The per-repository configuration `.github/gitlore.toml` (behaviour §4), read from the default
//! branch, with the org's defaults from the same file in the org's `.github` repository.
//!
//! Typed, with every key optional; an unknown key or section, a wrong type or value is a problem
//! naming the file, the line, the section and the reason. A problem never stops anything and
//! costs only its own key: every problem is kept (to be shown in the findings issue and the logs)
//! and the file's valid keys still apply over the org defaults, else the built-in ones. Only text
//! that is not TOML at all leaves the whole file out.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::domain::markers;

/// Where gitlore reads a repository's configuration from.
pub const CONFIG_PATH: &str = ".github/gitlore.toml";

/// One repository's effective configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct RepoConfig {
    pub publish: Publish,
    pub issue: IssueSettings,
    pub schedule: Schedule,
    pub analysis: Analysis,
    pub effect: Effect,
}

/// Which outputs gitlore writes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Publish {
    /// The pinned findings issue.
    pub issue: bool,
    /// The check run on each pull request.
    pub check_run: bool,
}

/// The findings issue's title and label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct IssueSettings {
    pub title: String,
    pub label: String,
}

/// When the scheduler re-analyses the repository (behaviour §6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Schedule {
    /// The longest time between two runs when anything changed, in hours.
    pub interval_hours: u32,
    /// New comments that trigger a run before the interval is up.
    pub min_new_comments: u32,
}

/// What the analysis reads and shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Analysis {
    /// How far back review comments count, in months (0 = everything).
    pub window_months: u32,
    /// Glob patterns of paths whose comments and history are left out.
    pub ignore_paths: Vec<String>,
    /// Logins whose comments are left out.
    pub ignore_authors: Vec<String>,
    /// This repository's own bot and CI commands, besides those of
    /// `knowledge/filter/facts.toml` (`@bors r+`, `/retest`, …): a comment made only of lines
    /// starting with one of these is left out.
    pub noise_commands: Vec<String>,
    /// Reviewers who do not want a "reviewer focus" finding about them.
    pub reviewer_opt_out: Vec<String>,
    /// Finding categories to show; empty means all.
    pub categories: Vec<String>,
    /// Title cuts switched off for this repository's built-in titles (names of
    /// `knowledge/synthesize/title/cuts.rs`); empty means all on.
    pub title_cuts_off: Vec<String>,
    /// Whether the configured LLM may be used for this repository.
    pub llm: bool,
}

/// Whether lessons help (behaviour §3.4): the opt-in hold-back.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Effect {
    /// Of every hundred new lessons, how many are published late (0 = none, the default).
    pub holdback_percent: u32,
    /// How many weeks a held-back lesson waits before it is published.
    pub holdback_weeks: u32,
}

impl Default for Publish {
    fn default() -> Self {
        Publish {
            issue: true,
            check_run: true,
        }
    }
}

impl Default for IssueSettings {
    fn default() -> Self {
        IssueSettings {
            title: markers::DEFAULT_ISSUE_TITLE.into(),
            label: markers::DEFAULT_ISSUE_LABEL.into(),
        }
    }
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule {
            interval_hours: 24,
            min_new_comments: 20,
        }
    }
}

impl Default for Analysis {
    fn default() -> Self {
        Analysis {
            window_months: 12,
            ignore_paths: Vec::new(),
            ignore_authors: Vec::new(),
            noise_commands: Vec::new(),
            reviewer_opt_out: Vec::new(),
            categories: Vec::new(),
            title_cuts_off: Vec::new(),
            llm: true,
        }
    }
}

/// The built-in titles' cuts (`knowledge/synthesize/title/cuts.rs`, in the order `Cut` declares
/// them), the only values `analysis.title-cuts-off` accepts.
pub const TITLE_CUTS: [&str; 7] = [
    "address",
    "opening",
    "connective",
    "framing",
    "trailing",
    "reason",
    "aside",
];

/// The finding categories of behaviour §3.3, the only values `analysis.categories` accepts.
pub const CATEGORIES: &[&str] = &[
    "convention",
    "code_pattern",
    "architecture",
    "landmine",
    "fragile_area",
    "tooling",
    "testing",
    "reviewer_focus",
];

/// A key, section or whole configuration file that could not be used, worded for a maintainer
/// (markdown-safe).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigProblem {
    /// Which file: `owner/repo:.github/gitlore.toml`.
    pub source: String,
    /// The line the problem is on, when known (1-based).
    pub line: Option<usize>,
    pub reason: String,
}

impl std::fmt::Display for ConfigProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{} line {line}: {}", self.source, self.reason),
            None => write!(f, "{}: {}", self.source, self.reason),
        }
    }
}

/// The effective configuration and the problems met on the way to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub config: RepoConfig,
    pub problems: Vec<ConfigProblem>,
    /// Whether the repository's own file was there but left out as a whole (not TOML, not
    /// UTF-8, too large, refused): the last good configuration may then stand in for it.
    pub repo_file_unused: bool,
}

impl Resolved {
    /// `last_good` in place of a repository file left out as a whole, its problem saying so.
    pub fn with_last_good(mut self, last_good: RepoConfig) -> Resolved {
        if self.repo_file_unused {
            self.config = last_good;
            for problem in &mut self.problems {
                problem
                    .reason
                    .push_str("; the last good configuration applies");
            }
        }
        self
    }
}

/// Resolves a repository's configuration from the org file and the repo file (either may be
/// absent), each given as `(source name, text)`. Repo keys override org keys one by one; a key
/// with a problem is left out (the org's value or the default stands), the file's other keys
/// still apply.
pub fn resolve(org: Option<(&str, &str)>, repo: Option<(&str, &str)>) -> Resolved {
    let mut problems = Vec::new();
    let mut merged = toml::Table::new();
    let mut repo_file_unused = false;
    for (source, text) in [org, repo].into_iter().flatten() {
        let (table, mut found) = parse(source, text);
        match table {
            Some(table) => merge(&mut merged, table),
            None => repo_file_unused = repo.is_some_and(|(repo, _)| repo == source),
        }
        problems.append(&mut found);
    }
    let config = toml::Value::Table(merged)
        .try_into::<RepoConfig>()
        .unwrap_or_default();
    Resolved {
        config,
        problems,
        repo_file_unused,
    }
}

/// A config file's text: UTF-8, without a byte-order mark; anything else is a problem naming
/// the line where the text stops being UTF-8.
pub fn text_of(source: &str, bytes: Vec<u8>) -> Result<String, ConfigProblem> {
    match String::from_utf8(bytes) {
        Ok(text) if text.starts_with('\u{FEFF}') => Ok(text['\u{FEFF}'.len_utf8()..].to_string()),
        Ok(text) => Ok(text),
        Err(error) => Err(ConfigProblem {
            source: source.to_string(),
            line: Some(line_of_bytes(
                error.as_bytes(),
                error.utf8_error().valid_up_to(),
            )),
            reason: "is not UTF-8 text (TOML must be UTF-8; was it saved as UTF-16?)".into(),
        }),
    }
}

/// The 1-based line of a byte offset in bytes that may not be text.
fn line_of_bytes(bytes: &[u8], offset: usize) -> usize {
    bytes[..offset.min(bytes.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// The file's sections, as `RepoConfig` names them.
const SECTIONS: &[&str] = &["publish", "issue", "schedule", "analysis", "effect"];

/// Parses one file and checks it key by key: returns the valid keys, for merging, and a problem
/// for each key or section that is not. Text that is not TOML keeps nothing (`None`).
fn parse(source: &str, text: &str) -> (Option<toml::Table>, Vec<ConfigProblem>) {
    let problem = |at: Option<usize>, reason: String| ConfigProblem {
        source: source.to_string(),
        line: at.map(|at| line_of(text, at)),
        reason,
    };
    let parsed = toml::de::DeTable::parse(text).and_then(|document| {
        let table = toml::from_str::<toml::Table>(text)?;
        Ok((key_offsets(document.get_ref()), table))
    });
    let (offsets, table) = match parsed {
        Ok(parsed) => parsed,
        Err(error) => {
            let at = error.span().map(|span| span.start);
            return (
                None,
                vec![problem(
                    at,
                    format!("{} (the whole file is ignored)", error.message().trim()),
                )],
            );
        }
    };
    let mut kept = toml::Table::new();
    let mut problems = Vec::new();
    for (section, value) in table {
        let at = |key: Option<&str>| offsets.get(&(section.clone(), key.map(str::to_string)));
        let keys = match value {
            toml::Value::Table(keys) if SECTIONS.contains(&section.as_str()) => keys,
            _ => {
                problems.push(problem(
                    at(None).copied(),
                    format!(
                        "there is no section [{section}] (it is ignored; the sections are {})",
                        SECTIONS.join(", ")
                    ),
                ));
                continue;
            }
        };
        let mut valid = toml::Table::new();
        for (key, value) in keys {
            match check_key(&section, &key, &value) {
                Ok(()) => {
                    valid.insert(key, value);
                }
                Err(reason) => problems.push(problem(
                    at(Some(&key)).copied(),
                    format!("[{section}] {reason} (it is ignored)"),
                )),
            }
        }
        kept.insert(section, toml::Value::Table(valid));
    }
    (Some(kept), problems)
}

/// Whether `key = value` is valid in `[section]`, alone: its type, and the values it allows.
fn check_key(section: &str, key: &str, value: &toml::Value) -> Result<(), String> {
    let mut keys = toml::Table::new();
    keys.insert(key.to_string(), value.clone());
    let mut single = toml::Table::new();
    single.insert(section.to_string(), toml::Value::Table(keys));
    let typed: RepoConfig =
        toml::Value::Table(single)
            .try_into()
            .map_err(|error: toml::de::Error| match error.message().trim() {
                unknown if unknown.starts_with("unknown field") => unknown.to_string(),
                message => format!("`{key}`: {message}"),
            })?;
    if let Some(bad) = typed
        .analysis
        .categories
        .iter()
        .find(|category| !CATEGORIES.contains(&category.as_str()))
    {
        return Err(format!(
            "unknown category `{bad}`, expected one of {}",
            CATEGORIES.join(", ")
        ));
    }
    let cuts = &typed.analysis.title_cuts_off;
    if let Some(bad) = cuts.iter().find(|cut| !TITLE_CUTS.contains(&cut.trim())) {
        return Err(format!(
            "unknown title cut `{bad}`, expected one of {}",
            TITLE_CUTS.join(", ")
        ));
    }
    if typed.effect.holdback_percent > 100 {
        return Err("`holdback-percent` must be at most 100".into());
    }
    if typed.schedule.interval_hours == 0 {
        return Err("`interval-hours` must be at least 1".into());
    }
    Ok(())
}

/// Where each section (`(section, None)`) and each key of a section (`(section, Some(key))`)
/// is written in the file, as byte offsets.
fn key_offsets(document: &toml::de::DeTable<'_>) -> HashMap<(String, Option<String>), usize> {
    let mut offsets = HashMap::new();
    for (section, value) in document {
        let name = section.get_ref().to_string();
        offsets.insert((name.clone(), None), section.span().start);
        if let toml::de::DeValue::Table(keys) = value.get_ref() {
            for (key, _) in keys {
                offsets.insert(
                    (name.clone(), Some(key.get_ref().to_string())),
                    key.span().start,
                );
            }
        }
    }
    offsets
}

/// Deep-merges `over` into `base`: tables merge key by key, anything else replaces.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (key, value) in over {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(existing)), toml::Value::Table(table)) => {
                merge(existing, table)
            }
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

/// The 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_file_parses_to_what_it_says() {
        let example = include_str!("../docs/gitlore.example.toml");
        let resolved = resolve(None, Some(("example", example)));
        assert_eq!(resolved.problems, vec![]);
        assert_eq!(resolved.config.schedule.min_new_comments, 30);
        assert_eq!(
            resolved.config.analysis.ignore_paths,
            vec!["vendor/**", "**/*.generated.go"]
        );
        assert!(!resolved.config.publish.check_run);
    }

    #[test]
    fn no_files_means_defaults() {
        assert_eq!(resolve(None, None).config, RepoConfig::default());
    }

    #[test]
    fn repo_keys_override_org_keys_one_by_one() {
        let org =
            "[schedule]\ninterval-hours = 6\nmin-new-comments = 5\n[issue]\nlabel = \"lore\"\n";
        let repo = "[schedule]\nmin-new-comments = 50\n";
        let config = resolve(Some(("org", org)), Some(("repo", repo))).config;
        assert_eq!(
            (
                config.schedule.interval_hours,
                config.schedule.min_new_comments
            ),
            (6, 50)
        );
        assert_eq!(config.issue.label, "lore");
    }

    #[test]
    fn a_repo_file_that_is_not_toml_falls_back_to_the_org_defaults_and_says_where() {
        let org = "[analysis]\nwindow-months = 6\n";
        let repo = "[analysis]\nwindow-months = 3\nignore-paths = [\"x\"\n";
        let resolved = resolve(
            Some(("acme/.github:.github/gitlore.toml", org)),
            Some(("acme/app:.github/gitlore.toml", repo)),
        );
        assert_eq!(resolved.config.analysis.window_months, 6);
        let problem = &resolved.problems[0];
        assert_eq!(
            (problem.source.as_str(), problem.line),
            ("acme/app:.github/gitlore.toml", Some(3))
        );
    }

    #[test]
    fn a_misspelt_key_costs_only_itself_and_every_problem_is_reported() {
        let repo = "[analysis]\nwindow-months = 0\nignore-path = [\"x\"]\n\n\
                    [publish]\ncheck-runs = false\nissue = \"no\"\n\n\
                    [schedul]\ninterval-hours = 2\n";
        let resolved = resolve(None, Some(("acme/app:.github/gitlore.toml", repo)));
        assert_eq!(resolved.config.analysis.window_months, 0);
        let problems: Vec<String> = resolved.problems.iter().map(ToString::to_string).collect();
        expect_test::expect![[r#"
            [
                "acme/app:.github/gitlore.toml line 3: [analysis] unknown field `ignore-path`, expected one of `window-months`, `ignore-paths`, `ignore-authors`, `noise-commands`, `reviewer-opt-out`, `categories`, `title-cuts-off`, `llm` (it is ignored)",
                "acme/app:.github/gitlore.toml line 6: [publish] unknown field `check-runs`, expected `issue` or `check-run` (it is ignored)",
                "acme/app:.github/gitlore.toml line 7: [publish] `issue`: invalid type: string \"no\", expected a boolean (it is ignored)",
                "acme/app:.github/gitlore.toml line 9: there is no section [schedul] (it is ignored; the sections are publish, issue, schedule, analysis, effect)",
            ]
        "#]]
        .assert_debug_eq(&problems);
    }

    #[test]
    fn a_bad_value_keeps_the_org_value_for_its_key() {
        let org = "[schedule]\ninterval-hours = 6\n";
        let repo = "[schedule]\ninterval-hours = 0\nmin-new-comments = 5\n";
        let resolved = resolve(Some(("org", org)), Some(("repo", repo)));
        let schedule = &resolved.config.schedule;
        assert_eq!((schedule.interval_hours, schedule.min_new_comments), (6, 5));
        assert_eq!(resolved.problems.len(), 1, "{:?}", resolved.problems);
    }

    #[test]
    fn the_holdback_reads_and_a_share_over_100_costs_only_its_key() {
        let text = "[effect]\nholdback-percent = 20\nholdback-weeks = 6\n";
        let resolved = resolve(None, Some(("r", text)));
        assert_eq!(resolved.problems, vec![]);
        assert_eq!(
            resolved.config.effect,
            Effect {
                holdback_percent: 20,
                holdback_weeks: 6
            }
        );
        let text = "[effect]\nholdback-percent = 120\nholdback-weeks = 6\n";
        let resolved = resolve(None, Some(("r", text)));
        assert_eq!(resolved.config.effect.holdback_percent, 0);
        assert_eq!(resolved.config.effect.holdback_weeks, 6);
        assert_eq!(
            resolved.problems[0].line,
            Some(2),
            "{:?}",
            resolved.problems
        );
    }

    #[test]
    fn wrong_types_and_values_are_reported_with_their_line() {
        let text = "[publish]\nissue = \"yes\"\n";
        let problem = &resolve(None, Some(("r", text))).problems[0];
        assert_eq!(problem.line, Some(2));
        let text = "[analysis]\n\ncategories = [\"landmines\"]\n";
        let problem = &resolve(None, Some(("r", text))).problems[0];
        assert_eq!(problem.line, Some(3));
        assert!(
            problem.reason.contains("unknown category `landmines`"),
            "{problem}"
        );
        let text = "[analysis]\ntitle-cuts-off = [\"aside\", \"comma\"]\n";
        let resolved = resolve(None, Some(("r", text)));
        assert!(resolved.config.analysis.title_cuts_off.is_empty());
        let problem = &resolved.problems[0];
        assert_eq!(problem.line, Some(2));
        assert!(
            problem
                .reason
                .contains("unknown title cut `comma`, expected one of address"),
            "{problem}"
        );
        let problem = &resolve(None, Some(("r", "not toml at all = = ="))).problems[0];
        assert_eq!(problem.line, Some(1));
    }

    #[test]
    fn a_byte_order_mark_is_dropped_and_utf16_is_a_problem_on_its_line() {
        let text = text_of("r", b"\xEF\xBB\xBF[publish]\nissue = false\n".to_vec());
        assert_eq!(text.as_deref(), Ok("[publish]\nissue = false\n"));
        let problem = text_of("r", b"[publish]\n\xFF\xFEi".to_vec()).unwrap_err();
        assert_eq!(problem.line, Some(2));
        assert!(problem.reason.contains("not UTF-8"), "{problem}");
    }
}
