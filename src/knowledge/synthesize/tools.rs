//! The LLM agent's read-only tools: the themes and their comments from the input, and git
//! commands on the repository (file at a revision, file history, a commit, blame, grep).
//!
//! Every argument comes from model text and is checked before use: revisions are `HEAD` or hex,
//! paths are relative with no `..` and cannot start with `-`, every path goes after `--`, a grep
//! pattern goes after `-e` and is a fixed string. Git runs with no pager, no prompts, no
//! optional locks, no external diff or text conversion. Output is cut to the agent's limit.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};
use quick_xml::escape::escape;

use super::Input;
use super::answer::ToolCall;
use super::figures;
use crate::domain::classification::Label;
use crate::domain::findings::SourceComment;

/// The tools, as the prompt lists them.
pub const TOOLS: &[&str] = &[
    "list_comments",
    "list_themes",
    "read_theme",
    "file_at",
    "file_history",
    "show_commit",
    "blame",
    "grep",
];

/// Commits a file history lists.
const HISTORY_COMMITS: &str = "30";
/// Lines a blame may cover.
const BLAME_LINES: u32 = 400;
/// Longest grep pattern, in characters.
const PATTERN_CHARS: usize = 200;
/// Comments a `list_comments` page holds.
pub const COMMENTS_PER_PAGE: usize = 40;

/// Runs `call` over `input` and returns its output, XML-escaped (comments as escaped
/// `<comment>` elements), cut to `max_chars`; a refused or failed call returns the reason as its
/// output, for the model to read.
pub fn run(input: &Input<'_>, call: &ToolCall, max_chars: usize) -> String {
    let output = match dispatch(input, call) {
        Ok(output) => output,
        Err(error) => escape(format!("error: {error:#}")).into_owned(),
    };
    truncate(&output, max_chars)
}

/// `text` cut to `max_chars` characters, saying how much was left out.
pub fn truncate(text: &str, max_chars: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return text.to_string();
    }
    let kept: String = text.chars().take(max_chars).collect();
    format!("{kept}\n[truncated: {} more characters]", total - max_chars)
}

fn dispatch(input: &Input<'_>, call: &ToolCall) -> Result<String> {
    let arg = |name: &str| {
        call.args
            .get(name)
            .map(String::as_str)
            .with_context(|| format!("{} needs the argument `{name}`", call.name))
    };
    let rev = || call.args.get("rev").map_or(Ok("HEAD"), |r| checked_rev(r));
    match call.name.as_str() {
        "list_comments" => list_comments(input, call),
        "list_themes" => Ok(list_themes(input)),
        "read_theme" => read_theme(input, arg("id")?),
        "file_at" => {
            let path = checked_path(arg("path")?)?;
            git(
                input,
                &["show", "--no-textconv", &format!("{}:{path}", rev()?)],
            )
        }
        "file_history" => {
            let path = checked_path(arg("path")?)?;
            git(
                input,
                &[
                    "log",
                    "--follow",
                    "-n",
                    HISTORY_COMMITS,
                    "--format=%H %as %s",
                    "--name-status",
                    "HEAD",
                    "--",
                    path,
                ],
            )
        }
        "show_commit" => {
            let sha = checked_rev(arg("sha")?)?;
            git(
                input,
                &[
                    "show",
                    "--no-ext-diff",
                    "--no-textconv",
                    "--stat",
                    "--patch",
                    "--format=fuller",
                    sha,
                    "--",
                ],
            )
        }
        "blame" => {
            let path = checked_path(arg("path")?)?;
            let start: u32 = arg("start")?
                .trim()
                .parse()
                .context("`start` is not a line number")?;
            let end: u32 = arg("end")?
                .trim()
                .parse()
                .context("`end` is not a line number")?;
            ensure!(
                start >= 1 && start <= end,
                "lines {start}-{end} are not a range"
            );
            ensure!(
                end - start < BLAME_LINES,
                "blame at most {BLAME_LINES} lines at once"
            );
            git(
                input,
                &[
                    "blame",
                    "--no-textconv",
                    "-s",
                    "-L",
                    &format!("{start},{end}"),
                    rev()?,
                    "--",
                    path,
                ],
            )
        }
        "grep" => {
            let pattern = arg("pattern")?;
            ensure!(
                !pattern.is_empty() && pattern.chars().count() <= PATTERN_CHARS,
                "a pattern has 1 to {PATTERN_CHARS} characters"
            );
            ensure!(!pattern.contains(['\n', '\0']), "a pattern is one line");
            let repo = repository(input)?;
            let args = [
                "grep",
                "--no-textconv",
                "-n",
                "-I",
                "-F",
                "-e",
                pattern,
                rev()?,
                "--",
            ];
            let output = git_command(repo)
                .args(args)
                .output()
                .context("cannot run git")?;
            match output.status.code() {
                Some(0) => Ok(escape(String::from_utf8_lossy(&output.stdout)).into_owned()),
                // git grep exits 1 when nothing matches.
                Some(1) if output.stderr.is_empty() => Ok("no match".to_string()),
                _ => bail!(
                    "git grep failed: {}",
                    String::from_utf8_lossy(&output.stderr).trim()
                ),
            }
        }
        other => bail!("unknown tool `{other}`; the tools are {}", TOOLS.join(", ")),
    }
}

/// The themes with their figures and ids.
fn list_themes(input: &Input<'_>) -> String {
    let mut out = String::new();
    for theme in &input.themes.themes {
        let labels: Vec<String> = theme
            .labels
            .iter()
            .map(|(label, n)| format!("{}:{n}", label.as_str()))
            .collect();
        let paths: Vec<&str> = theme.paths.iter().map(|(p, _)| p.as_str()).collect();
        out.push_str(&format!(
            "<theme id=\"{}\" comments=\"{}\" prs=\"{}\" reviewers=\"{}\" labels=\"{}\" paths=\"{}\" from=\"{}\" to=\"{}\">{}</theme>\n",
            escape(&theme.id),
            theme.members.len(),
            theme.prs.len(),
            theme.reviewers.len(),
            labels.join(" "),
            escape(paths.join(" ")),
            figures::date(theme.first_comment_at),
            figures::date(theme.last_comment_at),
            escape(&theme.label),
        ));
    }
    if !input.themes.singletons.is_empty() {
        let ids: Vec<String> = input.themes.singletons.iter().map(i64::to_string).collect();
        out.push_str(&format!("<singletons comments=\"{}\"/>\n", ids.join(" ")));
    }
    if out.is_empty() {
        out.push_str("no themes");
    }
    out
}

/// A theme's comments, each escaped inside a `<comment>` element.
/// The comments matching every filter given (`path` prefix, `label`, `author`, `text` in any
/// case), by file then date, one page of [`COMMENTS_PER_PAGE`].
fn list_comments(input: &Input<'_>, call: &ToolCall) -> Result<String> {
    let filter = |name: &str| {
        call.args
            .get(name)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    };
    let page: usize = match filter("page") {
        Some(page) => page
            .parse()
            .ok()
            .filter(|p| *p >= 1)
            .context("`page` is a number from 1")?,
        None => 1,
    };
    let label = filter("label")
        .map(|name| Label::parse(name).with_context(|| format!("no label `{name}`")))
        .transpose()?;
    let text = filter("text").map(str::to_lowercase);
    let mut matching: Vec<&SourceComment> = input
        .comments
        .values()
        .filter(|c| {
            filter("path").is_none_or(|p| c.path.as_deref().is_some_and(|cp| cp.starts_with(p)))
        })
        .filter(|c| label.is_none_or(|l| c.labels.contains(&l)))
        .filter(|c| filter("author").is_none_or(|a| c.author.eq_ignore_ascii_case(a)))
        .filter(|c| {
            text.as_deref()
                .is_none_or(|t| c.body.to_lowercase().contains(t))
        })
        .collect();
    matching.sort_by(|a, b| (&a.path, a.created_at, a.id).cmp(&(&b.path, b.created_at, b.id)));
    let pages = matching.len().div_ceil(COMMENTS_PER_PAGE).max(1);
    let mut out = format!(
        "<page n=\"{page}\" of=\"{pages}\" matching=\"{}\"/>\n",
        matching.len()
    );
    for comment in matching
        .iter()
        .skip((page - 1) * COMMENTS_PER_PAGE)
        .take(COMMENTS_PER_PAGE)
    {
        out.push_str(&comment_element(comment));
    }
    Ok(out)
}

fn read_theme(input: &Input<'_>, id: &str) -> Result<String> {
    let theme = input
        .themes
        .themes
        .iter()
        .find(|t| t.id == id)
        .with_context(|| format!("no theme `{id}`; list_themes gives the ids"))?;
    Ok(theme
        .members
        .iter()
        .filter_map(|id| input.comments.get(id))
        .map(comment_element)
        .collect())
}

/// One comment as data: its id, PR, file, date, resolution, labels and whether the PR's author
/// wrote it as attributes, the body escaped.
pub fn comment_element(comment: &SourceComment) -> String {
    let path = comment
        .path
        .as_deref()
        .map(|p| format!(" path=\"{}\"", escape(p)))
        .unwrap_or_default();
    let labels: Vec<&str> = comment.labels.iter().map(|l| l.as_str()).collect();
    let by_author = if comment.by_pr_author() {
        " by_pr_author=\"true\""
    } else {
        ""
    };
    format!(
        "<comment id=\"{}\" pr=\"{}\"{path} date=\"{}\" resolved=\"{}\" labels=\"{}\"{by_author}>{}</comment>\n",
        comment.id,
        comment.pr_number,
        figures::date(comment.created_at),
        comment.resolved,
        labels.join(" "),
        escape(&comment.body)
    )
}

/// A revision the model may name: `HEAD`, or 4 to 40 hex digits.
pub fn checked_rev(rev: &str) -> Result<&str> {
    let rev = rev.trim();
    let hex = (4..=40).contains(&rev.len()) && rev.chars().all(|c| c.is_ascii_hexdigit());
    ensure!(rev == "HEAD" || hex, "`{rev}` is not HEAD or a commit sha");
    Ok(rev)
}

/// A path the model may name: relative, inside the repository, no option-like start.
pub fn checked_path(path: &str) -> Result<&str> {
    let path = path.trim();
    ensure!(
        !path.is_empty() && path.len() <= 4096,
        "a path is 1 to 4096 bytes"
    );
    ensure!(
        !path.starts_with(['/', '-', ':', '\\']),
        "`{path}` must be a relative path"
    );
    ensure!(!path.contains(['\0', '\n', '\r']), "a path is one line");
    ensure!(
        path.split('/').all(|part| part != ".." && part != "."),
        "`{path}` must not contain `.` or `..`"
    );
    Ok(path)
}

/// Runs a read-only git command in the input's repository and returns its standard output,
/// XML-escaped.
fn git(input: &Input<'_>, args: &[&str]) -> Result<String> {
    run_git(repository(input)?, args).map(|out| escape(&out).into_owned())
}

fn repository<'a>(input: &Input<'a>) -> Result<&'a Path> {
    input
        .repo_path
        .context("no git repository is available in this run")
}

/// `git` in `repo` with nothing that could write, prompt or run external programs.
fn git_command(repo: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(repo)
        .args([
            "--no-pager",
            "-c",
            "core.quotepath=off",
            "-c",
            "core.fsmonitor=false",
        ])
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE");
    command
}

/// Runs `git args` in `repo` (see [`git_command`]) and returns its standard output.
pub fn run_git(repo: &Path, args: &[&str]) -> Result<String> {
    let output = git_command(repo)
        .args(args)
        .output()
        .context("cannot run git")?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        bail!("git {} failed: {}", args[0], stderr.trim());
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The full sha of commit `sha` (a sha or a prefix) of `repo`, when it is one.
pub fn resolve_commit(repo: &Path, sha: &str) -> Option<String> {
    let sha = checked_rev(sha).ok().filter(|sha| *sha != "HEAD")?;
    run_git(repo, &["cat-file", "-e", &format!("{sha}^{{commit}}")]).ok()?;
    run_git(
        repo,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{sha}^{{commit}}"),
        ],
    )
    .ok()
    .map(|full| full.trim().to_string())
}

/// The subject line of commit `sha` of `repo`.
pub fn commit_subject(repo: &Path, sha: &str) -> Option<String> {
    let sha = checked_rev(sha).ok()?;
    run_git(repo, &["log", "-1", "--format=%s", sha, "--"])
        .ok()
        .map(|s| s.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_like_or_escaping_arguments_are_refused() {
        for bad in [
            "--output=/tmp/x",
            "-p",
            "/etc/passwd",
            "../secret",
            "a/../../b",
            ":(glob)*",
            "a\nb",
        ] {
            assert!(checked_path(bad).is_err(), "{bad}");
        }
        assert_eq!(checked_path(" src/lib.rs ").unwrap(), "src/lib.rs");
        for bad in ["--all", "HEAD~1", "main", "abc", "zzzz", "HEAD^{tree}"] {
            assert!(checked_rev(bad).is_err(), "{bad}");
        }
        assert!(checked_rev("0123abcd").is_ok() && checked_rev("HEAD").is_ok());
    }

    #[test]
    fn output_is_cut_and_says_so() {
        let cut = truncate("abcdef", 4);
        assert_eq!(cut, "abcd\n[truncated: 2 more characters]");
        assert_eq!(truncate("abc", 4), "abc");
    }
}
