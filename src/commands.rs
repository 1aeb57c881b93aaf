//! The `/gitlore …` command parser (behaviour §6). Pure: text in, commands out. Quoted text (`> …`),
//! fenced code blocks and inline code are never commands, so quoting someone's command or
//! documenting one does not run it.

use crate::domain::job::Command;

/// The command prefix.
pub const PREFIX: &str = "/gitlore";

/// The commands in a comment body, each once, in order of first appearance.
pub fn parse(body: &str) -> Vec<Command> {
    let mut commands = Vec::new();
    let mut fence: Option<&str> = None;
    for line in body.lines() {
        let trimmed = line.trim_start();
        if let Some(open) = fence {
            if trimmed.starts_with(open) {
                fence = None;
            }
            continue;
        }
        if let Some(marker) = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m)) {
            fence = Some(marker);
            continue;
        }
        // Four spaces of indentation make a code block in markdown; `>` starts a quote.
        if line.starts_with("    ") || line.starts_with('\t') || trimmed.starts_with('>') {
            continue;
        }
        if let Some(command) = command_of(trimmed)
            && !commands.contains(&command)
        {
            commands.push(command);
        }
    }
    commands
}

/// The command a line starts with, if any.
fn command_of(line: &str) -> Option<Command> {
    let rest = line.strip_prefix(PREFIX)?;
    if rest.chars().next().is_some_and(|c| !c.is_whitespace()) {
        return None; // `/gitlorefoo` is not ours
    }
    let word = rest.split_whitespace().next().unwrap_or("help");
    Some(match word.to_ascii_lowercase().as_str() {
        "refresh" => Command::Refresh,
        "help" => Command::Help,
        other => Command::Unknown(other.chars().take(40).collect()),
    })
}

/// Commands in `after` that `before` did not already contain: an edit runs only what it adds.
pub fn newly_added(before: &str, after: &str) -> Vec<Command> {
    let old = parse(before);
    parse(after)
        .into_iter()
        .filter(|command| !old.contains(command))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_commands_outside_quotes_and_code() {
        assert_eq!(parse("/gitlore refresh"), vec![Command::Refresh]);
        assert_eq!(parse("Thanks!\n\n/gitlore help\n"), vec![Command::Help]);
        assert_eq!(parse("/gitlore"), vec![Command::Help]);
        assert_eq!(parse("/GITLORE Refresh please"), vec![]);
        assert_eq!(parse("/gitlore Refresh please"), vec![Command::Refresh]);
        assert_eq!(
            parse("/gitlore frobnicate"),
            vec![Command::Unknown("frobnicate".into())]
        );
        assert_eq!(
            parse("/gitlore refresh\n/gitlore refresh"),
            vec![Command::Refresh]
        );
    }

    #[test]
    fn ignores_quotes_code_and_prose() {
        assert!(parse("> /gitlore refresh").is_empty());
        assert!(parse("```\n/gitlore refresh\n```").is_empty());
        assert!(parse("~~~sh\n/gitlore refresh\n~~~").is_empty());
        assert!(parse("    /gitlore refresh").is_empty());
        assert!(parse("you can run `/gitlore refresh` yourself").is_empty());
        assert!(parse("/gitlorerefresh").is_empty());
        assert_eq!(
            parse("```\ncode\n```\n/gitlore refresh"),
            vec![Command::Refresh]
        );
    }

    #[test]
    fn edits_run_only_new_commands() {
        assert_eq!(
            newly_added("/gitlore refresh", "/gitlore refresh\nmore text"),
            vec![]
        );
        assert_eq!(
            newly_added("please look", "please look\n/gitlore refresh"),
            vec![Command::Refresh]
        );
    }
}
