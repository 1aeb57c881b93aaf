//! Commands addressed to bots and CI rather than to people: `@bors r+ rollup=never`, `r? @jdm`,
//! `/assign @x`, `/retest`, `@dependabot rebase`, `buildbot, test on oracle.`,
//! `retest this please`. A line that is one of them says nothing a reviewer could learn from.

use std::collections::HashSet;
use std::sync::LazyLock;

use super::facts::{FACTS, texts};

/// Logins of the bots that take commands (`@bors r+`, `@rust-timer queue`).
static COMMAND_BOTS: LazyLock<HashSet<&str>> = LazyLock::new(|| {
    FACTS
        .bots
        .iter()
        .filter(|bot| bot.commands)
        .map(|bot| bot.login.as_str())
        .collect()
});

/// Words that, first on a line and after a slash, make a command (`/retest`), gitlore's own
/// among them; any `/word` on its own line that is not a path is taken as one, these also when
/// followed by other words.
static SLASH_COMMANDS: LazyLock<HashSet<&str>> = LazyLock::new(|| {
    texts(&FACTS.slash_commands)
        .chain([crate::commands::PREFIX.trim_start_matches('/')])
        .collect()
});

/// Whole-line phrases CI systems listen for.
static CI_PHRASES: LazyLock<HashSet<&str>> = LazyLock::new(|| texts(&FACTS.ci_phrases).collect());

/// Whether `line` (one line of a comment) is a command to a bot or CI. `extra` holds a
/// repository's own commands, lower-cased: a line starting with one of them is a command.
pub fn is_command_line(line: &str, extra: &[String]) -> bool {
    let line = line.trim().trim_end_matches(['.', '!']);
    if line.is_empty() {
        return false;
    }
    let lower = line.to_lowercase();
    if extra
        .iter()
        .any(|prefix| lower.starts_with(prefix.as_str()))
    {
        return true;
    }
    if CI_PHRASES.contains(lower.as_str()) {
        return true;
    }
    let mut words = lower.split_whitespace();
    let Some(first) = words.next() else {
        return false;
    };
    if first == "r?" {
        // A reviewer request: "r? @jdm", "r? compiler".
        let rest: Vec<&str> = words.collect();
        return !rest.is_empty() && rest.len() <= 2 && rest.iter().all(|w| is_command_argument(w));
    }
    if let Some(command) = first.strip_prefix('/') {
        let is_path = command.contains('/') || command.contains('.');
        return !is_path && (SLASH_COMMANDS.contains(command) || words.next().is_none());
    }
    let addressee = first
        .trim_start_matches('@')
        .trim_end_matches([',', ':'])
        .trim_end_matches("[bot]");
    if COMMAND_BOTS.contains(addressee) || is_bot_login(addressee) {
        // "@bors r+", "buildbot, test on oracle.", "@dependabot rebase": the bot is addressed
        // first; a sentence about the bot ("bors is slow today") is not a command, so the
        // words that follow must be few and command-like, one of them a command. A closing
        // "(reason)" and a quoted argument ("@pytorchbot label \"topic: not user facing\"")
        // are the command's own.
        let after = lower[first.len()..].trim();
        let after = match after.strip_suffix(')').and_then(|a| a.rsplit_once(" (")) {
            Some((command, reason)) if !reason.contains('(') => command,
            _ => after,
        };
        if is_code_argument(after) {
            return true;
        }
        let unquoted = without_quoted(after);
        let rest: Vec<&str> = unquoted.split_whitespace().collect();
        return rest.len() <= 6
            && rest.iter().any(|w| is_command_word(w))
            && rest
                .iter()
                .all(|w| is_command_word(w) || is_command_argument(w));
    }
    false
}

/// What a benchmark bot is given after its name: flags, then at most one inline code span, and
/// nothing else (`@nanosoldier `runbenchmarks("sort")``, `@EgorBot -amd -windows_x64`, whose
/// code follows in a fenced block).
fn is_code_argument(after: &str) -> bool {
    let (flags, code) = match after.find('`') {
        Some(start) => (&after[..start], &after[start..]),
        None => (after, ""),
    };
    let flags: Vec<&str> = flags.split_whitespace().collect();
    let code_span = code.is_empty()
        || (code.len() > 2 && code.ends_with('`') && code.matches('`').count() == 2);
    let flags_only = flags
        .iter()
        .all(|w| w.starts_with('-') && is_command_argument(w));
    (!flags.is_empty() || !code.is_empty()) && code_span && flags_only
}

/// `text` with each `"…"` argument (quotes included) made one word, `"quoted"`, so that the
/// words inside it are not read as command words.
fn without_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut parts = text.split('"');
    out.push_str(parts.next().unwrap_or_default());
    while let Some(inside) = parts.next() {
        match parts.next() {
            Some(after) => {
                out.push_str(if inside.is_empty() {
                    "\"\""
                } else {
                    "\"quoted\""
                });
                out.push_str(after);
            }
            // An unclosed quote: left as it was.
            None => {
                out.push('"');
                out.push_str(inside);
            }
        }
    }
    out
}

/// A login named as automation (`typescript-bot`, `zulipbot`, `k8s-ci-robot`): the shape the
/// filter also reads as a bot author.
fn is_bot_login(login: &str) -> bool {
    login.len() > 4 && login.ends_with("bot")
}

/// Words of bot commands: `r+`, `r=alice`, `rollup=never`, `p=1`, `try`, `delegate+`, `queue`,
/// `rebase`, `merge`, `retry`, `test on oracle`, mentions of other bots, issue references
/// (`retry #10760`).
fn is_command_word(word: &str) -> bool {
    const VERBS: &[&str] = &[
        "r+",
        "r-",
        "r?",
        "try",
        "retry",
        "rollup",
        "queue",
        "delegate+",
        "delegate-",
        "rebase",
        "recreate",
        "merge",
        "squash",
        "cancel",
        "ping",
        "test",
        "retest",
        "run",
        "build",
        "bench",
        "on",
        "please",
        "ignore",
        "this",
        "dependency",
        "major",
        "minor",
        "version",
        "close",
        "reopen",
        "approve",
        "label",
        "assign",
        "review",
        "update",
        "refresh",
        "help",
        "all",
        "perf",
        "check",
        "stop",
        "start",
        "force",
        "ready",
        "-f",
        "treeclosed-",
        "clean",
        "re-run",
        "rerun",
        "label:",
        "in",
        "and",
        "the",
        "benchmark",
        "with",
        "upgrade",
        "add",
        "remove",
        "author",
        "claim",
        "reviewed",
        "fcp",
        "concern",
        "resolve",
        "postpone",
        "blocked",
        "modify",
        "labels:",
    ];
    let issue = word
        .strip_prefix('#')
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    issue
        || word.contains('=')
        || word.starts_with('@')
        || word.ends_with('+')
        || VERBS.contains(&word)
}

/// What a command's arguments look like: `linux`, `elasticsearch-ci/bwc`, `clickbench-mode`,
/// `@alice`, label toggles (`+T-compiler`, `-S-waiting-on-review`), quoted names (`"buddy`).
fn is_command_argument(word: &str) -> bool {
    let word = word
        .trim_start_matches(['+', '@'])
        .trim_matches(['"', '\'']);
    !word.is_empty()
        && word.len() <= 64
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_/.".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_of_common_bots_and_ci() {
        for line in [
            "@bors r+ rollup=never",
            "@bors try @rust-timer queue",
            "@bors delegate=alice",
            "bors r+",
            "/assign @x",
            "/ok-to-test",
            "/triage accepted",
            "/lgtm",
            "/retest",
            "/azp run",
            "buildbot, test on oracle.",
            "@dependabot rebase",
            "@pytorchbot merge -f",
            "retest this please",
            "@swift-ci please test",
            "/honk",
            "@bors-servo retry #10760",
            "@elasticmachine run elasticsearch-ci/bwc",
            "@bors-servo try=linux",
            "@typescript-bot perf test this",
            "@typescript-bot cherry-pick this to release-5.5",
            // servo's and zulip's reviewers, verbatim (servo-0013, zulip-0021).
            "r? @metajack",
            "@zulipbot remove \"buddy review\"",
            // From the bots' documentation: rustbot's labels and states, prow's lifecycle.
            "@rustbot label +T-compiler -S-waiting-on-review",
            "@rustbot author",
            "r? compiler",
            "/lifecycle frozen",
            "/remove-lifecycle stale",
            // A reason after the command, a quoted label, labels changed by name (from
            // bors', pytorchbot's and rustbot's documentation).
            "@bors r- (failed in rollup)",
            "@pytorchbot label \"topic: not user facing\"",
            "@rustbot modify labels: +beta-nominated",
            // Benchmark bots given code (julia-0026, verbatim; dotnet-0087's first line).
            "@nanosoldier `runbenchmarks(\"sort\")`",
            "@EgorBot -amd -windows_x64",
        ] {
            assert!(is_command_line(line, &[]), "{line:?} is a command");
        }
        for line in [
            "bors is slow today, so this waits until tomorrow because the queue is long",
            "Homu complains about manifest changed.",
            "/usr/bin/env is not there on NixOS",
            "/etc/hosts",
            "Please rebase onto main.",
            "@alice can you take a look at the locking here?",
            "@typescript-bot is down again, so the perf numbers are missing from this run",
            "r? what does this mean",
            "r?",
            "@bors please look at why (the queue) is stuck again and tell me what broke it",
            "@pytorchbot \"merge\" is what I would have expected here, not a new label",
            "@nanosoldier `runbenchmarks()` keeps failing on the sort suite",
            "@EgorBot -amd is not what I asked for",
            "@alice `unwrap` panics here",
        ] {
            assert!(!is_command_line(line, &[]), "{line:?} is not a command");
        }
        assert!(is_command_line("!deploy staging", &["!deploy".into()]));
    }
}
