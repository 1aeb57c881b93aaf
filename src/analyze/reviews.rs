//! The `--reviews FILE.jsonl` input of `gitlore analyze` (behaviour §8): one review comment per line,
//! turned into the same events webhooks produce, so they reach the store through `ingest`.
//!
//! Input ids are arbitrary strings; the store needs numeric GitHub ids, so each input id gets a
//! number in order of appearance, and [`Reviews::input_id`] maps a stored comment back.

use std::collections::HashMap;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use crate::domain::{Author, Comment, CommentKind, PrNumber, PullRequest, Repo, RepoId, RepoName};
use crate::events::{Event, Origin};

/// One line of the file. Only `id`, `pr`, `author` and `body` are required; other fields
/// (exports carry more, e.g. reactions) are ignored.
#[derive(Debug, Deserialize)]
struct Line {
    id: String,
    pr: i64,
    #[serde(default)]
    kind: Option<String>,
    author: String,
    #[serde(default)]
    author_type: Option<String>,
    body: String,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    line: Option<i64>,
    #[serde(default)]
    diff_hunk: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    in_reply_to: Option<String>,
    #[serde(default)]
    pr_title: Option<String>,
    /// The login of who opened the pull request; one line of the PR saying it is enough.
    #[serde(default)]
    pr_author: Option<String>,
    #[serde(default)]
    review_state: Option<String>,
}

/// The comments of a reviews file, as events for one repository.
#[derive(Debug)]
pub struct Reviews {
    pub events: Vec<Event>,
    /// Input ids by assigned GitHub id.
    input_ids: HashMap<(CommentKind, i64), String>,
    /// Unix seconds of the newest comment, if any has a date.
    pub newest_at: Option<i64>,
}

impl Reviews {
    /// The input id of the stored comment (`kind`, `github_id`).
    pub fn input_id(&self, kind: CommentKind, github_id: i64) -> Option<&str> {
        self.input_ids.get(&(kind, github_id)).map(String::as_str)
    }

    /// Dates the comments that have no `created_at` at `at` (unix s), so that an undated
    /// comment counts as current instead of as written in 1970, outside every window.
    pub fn date_undated(&mut self, at: i64) {
        for event in &mut self.events {
            if let Event::CommentUpserted { comment, .. } = event
                && comment.created_at.is_none()
            {
                comment.created_at = Some(at);
                comment.updated_at = at;
            }
        }
    }
}

/// Parses a reviews file for `repo`: UTF-8 (a byte-order mark is skipped). A bad line is an
/// error naming its line number (once); a duplicate id too (it would silently merge two
/// comments), and a `pr_author` that differs from the one an earlier line gave the same pull
/// request.
pub fn parse(bytes: &[u8], repo: &Repo) -> Result<Reviews> {
    let bytes = bytes.strip_prefix("\u{FEFF}".as_bytes()).unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|error| {
        let line = bytes[..error.valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        anyhow::anyhow!("line {line}: not UTF-8 text (save the file as UTF-8)")
    })?;
    let origin = Origin {
        installation_id: None,
        repo: repo.clone(),
    };
    let mut numbers: HashMap<String, i64> = HashMap::new();
    let mut pr_authors: HashMap<i64, String> = HashMap::new();
    let mut lines = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        let line: Line = serde_json::from_str(raw).map_err(|error| {
            // serde_json says "at line 1 column N" of the one line: the column is what helps.
            let position = format!(" at line {} column {}", error.line(), error.column());
            let message = error.to_string();
            let message = message.strip_suffix(&position).unwrap_or(&message);
            anyhow::anyhow!(
                "line {}: not a review comment object: {message} (column {})",
                index + 1,
                error.column()
            )
        })?;
        let number = numbers.len() as i64 + 1;
        if numbers.insert(line.id.clone(), number).is_some() {
            bail!("line {}: the id `{}` appears twice", index + 1, line.id);
        }
        if let Some(author) = line.pr_author.as_deref().map(str::trim)
            && !author.is_empty()
        {
            let known = pr_authors
                .entry(line.pr)
                .or_insert_with(|| author.to_string());
            if !known.eq_ignore_ascii_case(author) {
                bail!(
                    "line {}: pr_author `{author}` of PR {}, which an earlier line says `{known}` opened",
                    index + 1,
                    line.pr
                );
            }
        }
        lines.push((index + 1, number, line));
    }
    let mut reviews = Reviews {
        events: Vec::with_capacity(lines.len()),
        input_ids: HashMap::new(),
        newest_at: None,
    };
    for (line_number, number, line) in lines {
        let at = |what: &str| format!("line {line_number}: {what}");
        let kind = match line.kind.as_deref() {
            None if line.path.is_some() => CommentKind::Inline,
            None | Some("conversation") => CommentKind::Conversation,
            Some("inline") => CommentKind::Inline,
            Some("review") => CommentKind::Review,
            Some(other) => bail!(at(&format!(
                "kind `{other}` is not inline, review or conversation"
            ))),
        };
        let created_at = match &line.created_at {
            Some(text) => Some(timestamp(text).with_context(|| {
                at(&format!(
                    "created_at `{text}` is not RFC 3339 (2025-01-02T03:04:05Z) or a date (2025-01-02)"
                ))
            })?),
            None => None,
        };
        let in_reply_to = match &line.in_reply_to {
            Some(parent) => Some(*numbers.get(parent).with_context(|| {
                at(&format!("in_reply_to `{parent}` is not an id of the file"))
            })?),
            None => None,
        };
        reviews.newest_at = reviews.newest_at.max(created_at);
        reviews.input_ids.insert((kind, number), line.id.clone());
        let comment = Comment {
            kind,
            github_id: number,
            node_id: None,
            author: Author {
                is_bot_account: line.author_type.as_deref() == Some("Bot"),
                login: line.author,
                association: None,
                via_app: None,
            },
            body: line.body,
            path: line.path.filter(|_| kind == CommentKind::Inline),
            line: line.line,
            diff_hunk: line.diff_hunk,
            in_reply_to: in_reply_to.filter(|_| kind == CommentKind::Inline),
            review_id: None,
            review_state: line.review_state,
            created_at,
            updated_at: created_at.unwrap_or(0),
            html_url: line.url,
        };
        let pr = PullRequest {
            number: PrNumber(line.pr),
            title: line.pr_title.unwrap_or_default(),
            state: "closed".to_string(),
            merged: true,
            head_sha: None,
            updated_at: 0,
            author: pr_authors.get(&line.pr).cloned(),
        };
        reviews.events.push(Event::CommentUpserted {
            origin: origin.clone(),
            pr,
            comment,
            is_edit: false,
            previous_body: None,
        });
    }
    Ok(reviews)
}

/// Unix seconds of an RFC 3339 time, or of midnight UTC of a date.
fn timestamp(text: &str) -> Option<i64> {
    let text = text.trim();
    match chrono::DateTime::parse_from_rfc3339(text) {
        Ok(time) => Some(time.timestamp()),
        Err(_) => chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .ok()
            .and_then(|date| date.and_hms_opt(0, 0, 0))
            .map(|time| time.and_utc().timestamp()),
    }
}

/// The repository `analyze` files a clone without a GitHub remote under: a fixed id, named
/// `local/<directory>`.
pub fn local_repo(directory: &str) -> Repo {
    let name = RepoName::parse(&format!("local/{directory}"))
        .unwrap_or_else(|| RepoName::parse("local/repository").expect("a valid name"));
    repo_named(name)
}

/// The repository `analyze` files its input under, named `name`: the fixed id of `local_repo`.
pub fn repo_named(name: RepoName) -> Repo {
    Repo {
        id: RepoId(1),
        name,
        default_branch: None,
        private: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comment(event: &Event) -> &Comment {
        match event {
            Event::CommentUpserted { comment, .. } => comment,
            other => panic!("not a comment: {other:?}"),
        }
    }

    #[test]
    fn minimal_and_full_lines_become_comments() {
        let text = r#"{"id": "a", "pr": 3, "author": "ana", "body": "Use a guard here."}

{"id": "b", "pr": 3, "kind": "inline", "author": "bo", "author_type": "Bot", "body": "x", "path": "src/x.rs", "line": 4, "created_at": "2025-01-02T03:04:05Z", "in_reply_to": "a"}
"#;
        let reviews = parse(text.as_bytes(), &local_repo("demo")).unwrap();
        assert_eq!(reviews.events.len(), 2);
        let first = comment(&reviews.events[0]);
        assert_eq!(first.kind, CommentKind::Conversation);
        assert_eq!(first.created_at, None);
        let second = comment(&reviews.events[1]);
        assert_eq!(second.kind, CommentKind::Inline);
        assert!(second.author.is_bot_account);
        assert_eq!(second.in_reply_to, Some(1));
        assert_eq!(second.created_at, Some(1_735_787_045));
        assert_eq!(reviews.newest_at, Some(1_735_787_045));
        assert_eq!(reviews.input_id(CommentKind::Inline, 2), Some("b"));
        assert_eq!(reviews.input_id(CommentKind::Conversation, 2), None);
    }

    #[test]
    fn undated_comments_take_the_date_given() {
        let text = r#"{"id": "a", "pr": 3, "author": "ana", "body": "Use a guard here."}
{"id": "b", "pr": 3, "author": "bo", "body": "x", "created_at": "2025-01-02T03:04:05Z"}
"#;
        let mut reviews = parse(text.as_bytes(), &local_repo("demo")).unwrap();
        reviews.date_undated(1_800_000_000);
        let dates: Vec<_> = reviews
            .events
            .iter()
            .map(|e| (comment(e).created_at, comment(e).updated_at))
            .collect();
        assert_eq!(
            dates,
            [
                (Some(1_800_000_000), 1_800_000_000),
                (Some(1_735_787_045), 1_735_787_045)
            ]
        );
    }

    #[test]
    fn bad_lines_are_reported_with_their_number() {
        let repo = local_repo("demo");
        let missing = r#"{"id": "a", "pr": 3, "body": "no author"}"#;
        let error = format!("{:#}", parse(missing.as_bytes(), &repo).unwrap_err());
        assert!(error.starts_with("line 1:"), "{error}");
        let twice = "{\"id\": \"a\", \"pr\": 1, \"author\": \"x\", \"body\": \"y\"}\n".repeat(2);
        let error = format!("{:#}", parse(twice.as_bytes(), &repo).unwrap_err());
        assert!(
            error.contains("line 2: the id `a` appears twice"),
            "{error}"
        );
        let kind = r#"{"id": "a", "pr": 3, "author": "x", "body": "y", "kind": "issue"}"#;
        assert!(
            format!("{:#}", parse(kind.as_bytes(), &repo).unwrap_err()).contains("kind `issue`")
        );
        let date = r#"{"id": "a", "pr": 3, "author": "x", "body": "y", "created_at": "yesterday"}"#;
        assert!(
            format!("{:#}", parse(date.as_bytes(), &repo).unwrap_err()).contains("not RFC 3339")
        );
    }

    #[test]
    fn exports_with_a_bom_extra_fields_and_dates_are_read() {
        let text = "\u{FEFF}{\"id\": \"a\", \"pr\": 3, \"author\": \"ana\", \"body\": \"x\", \
                    \"reactions\": {\"+1\": 2}, \"created_at\": \"2025-01-02\"}\n";
        let reviews = parse(text.as_bytes(), &local_repo("demo")).unwrap();
        assert_eq!(comment(&reviews.events[0]).created_at, Some(1_735_776_000));
    }

    #[test]
    fn each_error_names_one_line() {
        let repo = local_repo("demo");
        let text = b"{\"id\": \"a\", \"pr\": 3, \"author\": \"x\", \"body\": \"y\"}\n{\"id\": \"b\", \"pr\": 3, \"author\": \"x\", \"body\": \"caf\xE9\"}\n";
        let error = format!("{:#}", parse(text, &repo).unwrap_err());
        assert!(error.starts_with("line 2: not UTF-8"), "{error}");
        let text = "{\"id\": \"a\", \"pr\": 3}\n\n{\"id\": 7}";
        let error = format!("{:#}", parse(text.as_bytes(), &repo).unwrap_err());
        assert_eq!(error.matches("line").count(), 1, "{error}");
        assert!(
            error.starts_with("line 1: ") && error.contains("(column "),
            "{error}"
        );
    }

    #[test]
    fn a_pr_author_given_once_names_the_author_of_every_line_of_that_pr() {
        let text = r#"{"id": "a", "pr": 3, "author": "bo", "body": "x"}
{"id": "b", "pr": 3, "author": "ana", "body": "done", "pr_author": "ana"}
{"id": "d", "pr": 3, "author": "ana", "body": "z", "pr_author": "Ana"}
{"id": "c", "pr": 4, "author": "ana", "body": "y"}
"#;
        let reviews = parse(text.as_bytes(), &local_repo("demo")).unwrap();
        let authors: Vec<_> = reviews
            .events
            .iter()
            .map(|event| match event {
                Event::CommentUpserted { pr, .. } => pr.author.clone(),
                other => panic!("not a comment: {other:?}"),
            })
            .collect();
        assert_eq!(
            authors,
            [
                Some("ana".into()),
                Some("ana".into()),
                Some("ana".into()),
                None
            ]
        );
        let conflict = r#"{"id": "a", "pr": 3, "author": "bo", "body": "x", "pr_author": "ana"}
{"id": "b", "pr": 3, "author": "ana", "body": "y", "pr_author": "bo"}"#;
        let error = format!(
            "{:#}",
            parse(conflict.as_bytes(), &local_repo("demo")).unwrap_err()
        );
        assert!(error.starts_with("line 2: pr_author `bo`"), "{error}");
    }
}
