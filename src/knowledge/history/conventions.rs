//! Commit-message habits: Conventional Commits, ticket prefixes, imperative mood, subject length,
//! over the titles the team wrote (a merge's pull-request title; a merge with only git's subject
//! is left out).

use std::collections::HashMap;

use super::{Conventions, Prepared};
use crate::domain::history::is_merge_subject;

/// Subjects longer than this are long (git's and most style guides' limit).
pub const LONG_SUBJECT_CHARS: usize = 72;
/// How many Conventional Commits types are reported.
const TOP_TYPES: usize = 8;

/// First words that are not verbs although they do not look like other tenses.
const NOT_IMPERATIVE: &[&str] = &[
    "initial", "wip", "minor", "more", "new", "the", "a", "an", "this", "version", "release",
    "misc", "various", "small",
];

/// The shares over every commit analysed.
pub fn conventions(history: &Prepared<'_>) -> Conventions {
    let titles: Vec<&str> = history
        .commits
        .iter()
        .map(|commit| commit.title().trim())
        .filter(|title| !is_merge_subject(title))
        .collect();
    let commits = titles.len();
    if commits == 0 {
        return Conventions::default();
    }
    let mut conventional = 0;
    let mut types: HashMap<String, usize> = HashMap::new();
    let mut ticket = 0;
    let mut imperative = 0;
    let mut long = 0;
    let mut lengths = Vec::with_capacity(commits);
    for subject in titles {
        let length = subject.chars().count();
        lengths.push(length);
        long += usize::from(length > LONG_SUBJECT_CHARS);
        let (ticket_ref, after_ticket) = strip_ticket(subject);
        ticket += usize::from(ticket_ref);
        let description = match conventional_type(after_ticket) {
            Some((kind, description)) => {
                conventional += 1;
                *types.entry(kind.to_owned()).or_default() += 1;
                description
            }
            None => after_ticket,
        };
        imperative += usize::from(is_imperative(description));
    }
    lengths.sort_unstable();
    let mut conventional_types: Vec<(String, usize)> = types.into_iter().collect();
    conventional_types.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    conventional_types.truncate(TOP_TYPES);
    let share = |count: usize| count as f64 / commits as f64;
    Conventions {
        commits,
        conventional_share: share(conventional),
        conventional_types,
        ticket_prefix_share: share(ticket),
        imperative_share: share(imperative),
        median_subject_len: lengths[lengths.len() / 2],
        long_subject_share: share(long),
    }
}

/// `type(scope)!: description` → (type, description); the type in lower case, as the
/// specification's examples and every tool write it.
fn conventional_type(subject: &str) -> Option<(&str, &str)> {
    let (head, description) = subject.split_once(": ")?;
    let head = head.strip_suffix('!').unwrap_or(head);
    let kind = match head.split_once('(') {
        Some((kind, scope)) => scope.ends_with(')').then_some(kind)?,
        None => head,
    };
    let valid =
        !kind.is_empty() && kind.len() <= 16 && kind.bytes().all(|b| b.is_ascii_lowercase());
    (valid && !description.trim().is_empty()).then_some((kind, description.trim()))
}

/// Whether the subject starts with a ticket (`ABC-123`, `#123`, `[ABC-123]`), and the rest.
fn strip_ticket(subject: &str) -> (bool, &str) {
    let first = subject.split_whitespace().next().unwrap_or("");
    let token = first
        .trim_start_matches('[')
        .trim_end_matches([']', ':', ',']);
    let is_ticket = if let Some(number) = token.strip_prefix('#') {
        !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())
    } else if let Some((project, number)) = token.split_once('-') {
        project.len() >= 2
            && project
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
            && project.as_bytes()[0].is_ascii_uppercase()
            && !number.is_empty()
            && number.bytes().all(|b| b.is_ascii_digit())
    } else {
        false
    };
    if is_ticket {
        (true, subject[first.len()..].trim_start())
    } else {
        (false, subject)
    }
}

/// A heuristic: the first word is a bare verb, not a past tense (`added`), a gerund
/// (`adding`) or a third person (`adds`).
fn is_imperative(description: &str) -> bool {
    let Some(word) = description.split_whitespace().next() else {
        return false;
    };
    let word = word.to_lowercase();
    if !word.chars().all(char::is_alphabetic) || NOT_IMPERATIVE.contains(&word.as_str()) {
        return false;
    }
    let third_person =
        word.ends_with('s') && !["ss", "us", "is"].iter().any(|end| word.ends_with(end));
    !(word.ends_with("ed") || word.ends_with("ing") || third_person)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conventional_subjects_parse() {
        assert_eq!(
            conventional_type("feat(api)!: add paging"),
            Some(("feat", "add paging"))
        );
        assert_eq!(conventional_type("fix: typo"), Some(("fix", "typo")));
        assert_eq!(conventional_type("Note: this is prose"), None);
        assert_eq!(conventional_type("See http://x: y"), None);
    }

    #[test]
    fn tickets_and_mood() {
        assert_eq!(strip_ticket("ABC-12 Add x"), (true, "Add x"));
        assert_eq!(strip_ticket("[OPS-7] Add x"), (true, "Add x"));
        assert_eq!(strip_ticket("#42: Add x"), (true, "Add x"));
        assert_eq!(strip_ticket("Add x-1"), (false, "Add x-1"));
        assert!(is_imperative("Add paging"));
        assert!(is_imperative("Process queue"));
        assert!(!is_imperative("Added paging"));
        assert!(!is_imperative("Adds paging"));
        assert!(!is_imperative("Initial commit"));
    }
}
