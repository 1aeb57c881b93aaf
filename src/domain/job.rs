//! The work queued for after a delivery (and by the scheduler), typed: each kind of job with the
//! fields it needs and the key that keeps the same work from being queued twice. The store keeps
//! a job as its kind and its fields as JSON (`Job::fields_json`, read back by `Job::from_stored`).

use std::fmt;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use super::{PrNumber, RepoId};

/// A command a maintainer can give in a pull-request comment (or with the check run's button).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "String", from = "String")]
pub enum Command {
    /// Re-run the analysis now and update the findings issue and this PR's check run.
    Refresh,
    /// Reply with the list of commands.
    Help,
    /// `/gitlore <word>` with a word gitlore does not know: answered with the help text.
    Unknown(String),
}

/// How a command is stored: its word, `unknown:<word>` for a word gitlore does not know.
impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Refresh => f.write_str("refresh"),
            Command::Help => f.write_str("help"),
            Command::Unknown(word) => write!(f, "unknown:{word}"),
        }
    }
}

impl From<Command> for String {
    fn from(command: Command) -> String {
        command.to_string()
    }
}

impl From<String> for Command {
    fn from(stored: String) -> Command {
        match stored.as_str() {
            "refresh" => Command::Refresh,
            "help" => Command::Help,
            other => Command::Unknown(other.strip_prefix("unknown:").unwrap_or(other).to_string()),
        }
    }
}

/// A kind of job: the `kind` column of the jobs table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// Read the repository's review history from GitHub.
    Backfill,
    /// Compute the check run of a pull request's head commit.
    CheckRun,
    /// Run a `/gitlore …` command or the check run's Refresh button.
    Command,
    /// Apply ticked "dismiss" boxes of the findings issue.
    Dismissals,
    /// Analyse the repository and publish its findings issue.
    Analysis,
}

impl JobKind {
    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Backfill => "backfill",
            JobKind::CheckRun => "check_run",
            JobKind::Command => "command",
            JobKind::Dismissals => "dismissals",
            JobKind::Analysis => "analysis",
        }
    }

    /// The kind stored as `name`.
    pub fn parse(name: &str) -> Result<JobKind> {
        let all = [
            JobKind::Backfill,
            JobKind::CheckRun,
            JobKind::Command,
            JobKind::Dismissals,
            JobKind::Analysis,
        ];
        match all.into_iter().find(|kind| kind.as_str() == name) {
            Some(kind) => Ok(kind),
            None => bail!("unknown job kind `{name}`"),
        }
    }
}

/// A job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Job {
    Backfill(Backfill),
    CheckRun(CheckRun),
    Command(CommandJob),
    Dismissals(Dismissals),
    Analysis(Analysis),
}

/// Read a repository's review history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Backfill {
    /// The repository's name as GitHub spells it.
    pub repo: String,
}

/// The check run of pull request `pr`'s head commit `head_sha`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckRun {
    pub pr: PrNumber,
    pub head_sha: String,
}

/// A command, who gave it and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandJob {
    pub command: Command,
    /// The login of who gave it.
    #[serde(default)]
    pub author: String,
    #[serde(flatten)]
    pub source: CommandSource,
}

/// Where a command came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum CommandSource {
    /// Comment `comment_id` on pull request `pr`: acknowledged with reactions, answered with
    /// replies.
    Comment { comment_id: i64, pr: PrNumber },
    /// The Refresh button of check run `check_run_id` on `head_sha` (of the pull requests `prs`):
    /// no comment to react to or reply on.
    CheckRun {
        check_run_id: i64,
        head_sha: String,
        prs: Vec<PrNumber>,
    },
}

/// Ticked dismiss boxes in an edit of the findings issue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dismissals {
    /// The issue's number.
    pub issue: i64,
    /// The edited body.
    pub body: String,
    /// The login of who edited it.
    pub editor: String,
}

/// Analyse the repository and publish its findings issue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Analysis {
    /// Why it was queued.
    pub reason: AnalysisReason,
}

/// Why an analysis was queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnalysisReason {
    /// The scheduler found the repository due.
    Schedule,
    /// A backfill finished.
    Backfill,
}

/// What makes a job the same work as one queued before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Occasion<'a> {
    /// Once for what the job is about (a repository's backfill is queued once until the
    /// repository is removed; a commit's check run once; a comment's command once).
    Once,
    /// Once per delivery `id` (a backfill after an unsuspension, a Refresh button press, an
    /// edit of the findings issue).
    Delivery(&'a str),
}

impl Job {
    pub fn kind(&self) -> JobKind {
        match self {
            Job::Backfill(_) => JobKind::Backfill,
            Job::CheckRun(_) => JobKind::CheckRun,
            Job::Command(_) => JobKind::Command,
            Job::Dismissals(_) => JobKind::Dismissals,
            Job::Analysis(_) => JobKind::Analysis,
        }
    }

    /// The key that keeps the job from being queued twice for repository `repo_id`.
    pub fn dedupe_key(&self, repo_id: RepoId, occasion: Occasion<'_>) -> String {
        let base = match self {
            Job::Backfill(_) => format!("backfill:{repo_id}"),
            Job::CheckRun(job) => format!("check_run:{repo_id}:{}:{}", job.pr, job.head_sha),
            Job::Command(job) => match &job.source {
                CommandSource::Comment { comment_id, .. } => {
                    format!("command:{comment_id}:{}", job.command)
                }
                CommandSource::CheckRun { .. } => "command:check_run".to_string(),
            },
            Job::Dismissals(_) => "dismissals".to_string(),
            Job::Analysis(_) => return analysis_key(repo_id),
        };
        match occasion {
            Occasion::Once => base,
            Occasion::Delivery(id) => format!("{base}:{id}"),
        }
    }

    /// The job's fields as the store keeps them.
    pub fn fields_json(&self) -> Result<String> {
        let json = match self {
            Job::Backfill(job) => serde_json::to_string(job),
            Job::CheckRun(job) => serde_json::to_string(job),
            Job::Command(job) => serde_json::to_string(job),
            Job::Dismissals(job) => serde_json::to_string(job),
            Job::Analysis(job) => serde_json::to_string(job),
        };
        json.context("Cannot write a job's fields as JSON")
    }

    /// A job the store kept as `kind` and `fields` ([`Job::fields_json`]).
    pub fn from_stored(kind: JobKind, fields: &str) -> Result<Job> {
        let job = match kind {
            JobKind::Backfill => serde_json::from_str(fields).map(Job::Backfill),
            JobKind::CheckRun => serde_json::from_str(fields).map(Job::CheckRun),
            JobKind::Command => serde_json::from_str(fields).map(Job::Command),
            JobKind::Dismissals => serde_json::from_str(fields).map(Job::Dismissals),
            JobKind::Analysis => serde_json::from_str(fields).map(Job::Analysis),
        };
        job.with_context(|| format!("The {} job's fields do not read: {fields}", kind.as_str()))
    }
}

/// The dedupe key of a repository's analysis: one queued at a time.
pub fn analysis_key(repo_id: RepoId) -> String {
    format!("analysis:{repo_id}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows as earlier versions wrote them (`json!` payloads), with their keys.
    const STORED: &[(JobKind, &str)] = &[
        (JobKind::Backfill, r#"{"repo":"Acme/Widgets"}"#),
        (JobKind::CheckRun, r#"{"pr":4,"head_sha":"abc"}"#),
        (
            JobKind::Command,
            r#"{"command":"refresh","source":"comment","comment_id":9,"pr":4,"author":"ana"}"#,
        ),
        (
            JobKind::Command,
            r#"{"command":"unknown:refrsh","source":"comment","comment_id":9,"pr":4,"author":"ana"}"#,
        ),
        (
            JobKind::Command,
            r#"{"command":"refresh","source":"check_run","check_run_id":5,"head_sha":"abc","prs":[4],"author":"ana"}"#,
        ),
        (
            JobKind::Dismissals,
            r#"{"issue":2,"body":"b","editor":"ana"}"#,
        ),
        (JobKind::Analysis, r#"{"reason":"schedule"}"#),
        (JobKind::Analysis, r#"{"reason":"backfill"}"#),
    ];

    #[test]
    fn rows_written_before_jobs_were_typed_read_back_and_write_the_same() {
        for (kind, fields) in STORED {
            let job = Job::from_stored(*kind, fields).unwrap();
            assert_eq!(job.kind(), *kind);
            let again: serde_json::Value =
                serde_json::from_str(&job.fields_json().unwrap()).unwrap();
            let before: serde_json::Value = serde_json::from_str(fields).unwrap();
            assert_eq!(again, before, "{fields}");
        }
        let unknown = Job::from_stored(JobKind::Command, STORED[3].1).unwrap();
        let Job::Command(command) = unknown else {
            panic!("a command job")
        };
        assert_eq!(command.command, Command::Unknown("refrsh".into()));
    }

    #[test]
    fn ids_in_rows_of_earlier_versions_read_back_typed() {
        let check_run = Job::from_stored(JobKind::CheckRun, STORED[1].1).unwrap();
        assert_eq!(
            check_run,
            Job::CheckRun(CheckRun {
                pr: PrNumber(4),
                head_sha: "abc".into()
            })
        );
        let Job::Command(button) = Job::from_stored(JobKind::Command, STORED[4].1).unwrap() else {
            panic!("a command job")
        };
        let CommandSource::CheckRun { prs, .. } = button.source else {
            panic!("from the check run's button")
        };
        assert_eq!(prs, [PrNumber(4)]);
    }

    #[test]
    fn dedupe_keys_are_the_ones_earlier_versions_wrote() {
        let keys: Vec<String> = STORED
            .iter()
            .map(|(kind, fields)| Job::from_stored(*kind, fields).unwrap())
            .map(|job| match job.kind() {
                JobKind::Dismissals => job.dedupe_key(RepoId(7), Occasion::Delivery("d1")),
                JobKind::Command if matches!(&job, Job::Command(c) if matches!(c.source, CommandSource::CheckRun { .. })) => {
                    job.dedupe_key(RepoId(7), Occasion::Delivery("d1"))
                }
                _ => job.dedupe_key(RepoId(7), Occasion::Once),
            })
            .collect();
        assert_eq!(
            keys,
            [
                "backfill:7",
                "check_run:7:4:abc",
                "command:9:refresh",
                "command:9:unknown:refrsh",
                "command:check_run:d1",
                "dismissals:d1",
                "analysis:7",
                "analysis:7",
            ]
        );
        let backfill = Job::from_stored(JobKind::Backfill, STORED[0].1).unwrap();
        assert_eq!(
            backfill.dedupe_key(RepoId(7), Occasion::Delivery("d2")),
            "backfill:7:d2"
        );
    }

    #[test]
    fn fields_that_do_not_match_the_kind_are_an_error_naming_it() {
        let error = Job::from_stored(JobKind::CheckRun, r#"{"pr":4}"#)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("The check_run job's fields do not read"),
            "{error}"
        );
    }
}
