//! The LLM synthesizer's evidence check: once the model's findings have passed `validate`, one
//! more request (`prompts/check_evidence.md`) shows the model each finding with the review
//! comments it cites, quoted in full, and keeps only the comments the model says carry the
//! lesson. Commits and figures are not checked. A finding the answer does not mention keeps its
//! evidence; an answer that cannot be read leaves every finding as it was, and the notes say so.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, Result, bail};
use quick_xml::Reader;
use quick_xml::escape::escape;
use quick_xml::events::Event;

use super::answer::attributes;
use super::tools::comment_element;
use super::{Input, citable};
use crate::domain::findings::{EvidenceKind, Finding, SourceComment};
use crate::llm::{LlmClient, Message, prompt_tokens};

/// The check's system prompt; its first line is its version.
pub const PROMPT: &str = include_str!("../../../prompts/check_evidence.md");

/// The comment ids the model keeps, by finding id.
pub type Kept = BTreeMap<String, BTreeSet<String>>;

/// What a check did: the findings (with only kept comments when it ran), notes, and the tokens
/// it spent.
pub struct Checked {
    pub findings: Vec<Finding>,
    pub notes: Vec<String>,
    pub tokens: u64,
}

/// Asks the model which cited comments carry each finding, within `tokens_left`; on any failure
/// the findings are returned unchecked with a note.
pub async fn check(
    client: &LlmClient,
    findings: Vec<Finding>,
    input: &Input<'_>,
    tokens_left: u64,
) -> Checked {
    let Some(request) = request(&findings, input.comments) else {
        return Checked {
            findings,
            notes: Vec::new(),
            tokens: 0,
        };
    };
    let messages = [Message::user(request)];
    let estimate = prompt_tokens(PROMPT, &messages) + u64::from(client.settings().max_tokens);
    if estimate > tokens_left {
        return unchecked(
            findings,
            format!("about {estimate} tokens, more than the {tokens_left} left of the budget"),
            0,
        );
    }
    let completion = match client.chat(PROMPT, &messages).await {
        Ok(completion) => completion,
        Err(error) => return unchecked(findings, format!("{error:#}"), 0),
    };
    let tokens = completion.input_tokens + completion.output_tokens;
    match parse(&completion.text) {
        Ok(kept) => {
            let cited = cited_comments(&findings, input.comments);
            let (findings, set_aside) = apply(findings, &kept, input.comments);
            let notes = if set_aside > 0 {
                vec![format!(
                    "the model's evidence check set aside {set_aside} of {cited} cited review comments as not carrying their finding's lesson"
                )]
            } else {
                Vec::new()
            };
            Checked {
                findings,
                notes,
                tokens,
            }
        }
        Err(error) => unchecked(findings, format!("{error:#}"), tokens),
    }
}

fn unchecked(findings: Vec<Finding>, why: String, tokens: u64) -> Checked {
    tracing::warn!(reason = %why, "the evidence check did not run");
    Checked {
        findings,
        notes: vec![format!(
            "the model's evidence check did not run ({why}); its findings are shown unchecked"
        )],
        tokens,
    }
}

/// The comments a finding's evidence rule can count: those of the window, not by the PR author.
fn checked_comments<'a>(
    finding: &Finding,
    comments: &'a BTreeMap<i64, SourceComment>,
) -> Vec<&'a SourceComment> {
    citable(finding.evidence.clone(), comments)
        .iter()
        .filter(|e| e.kind == EvidenceKind::Comment)
        .filter_map(|e| comments.get(&e.id.parse::<i64>().ok()?))
        .collect()
}

fn cited_comments(findings: &[Finding], comments: &BTreeMap<i64, SourceComment>) -> usize {
    findings
        .iter()
        .map(|f| checked_comments(f, comments).len())
        .sum()
}

/// The check's user turn: each finding that cites a comment, with those comments quoted; `None`
/// when no finding cites one.
pub fn request(findings: &[Finding], comments: &BTreeMap<i64, SourceComment>) -> Option<String> {
    let mut data = String::new();
    for finding in findings {
        let cited = checked_comments(finding, comments);
        if cited.is_empty() {
            continue;
        }
        data.push_str(&format!(
            "<finding id=\"{}\" category=\"{}\">\n<title>{}</title>\n<insight>{}</insight>\n<files>{}</files>\n<cited>\n",
            escape(&finding.id),
            finding.category,
            escape(&finding.title),
            escape(&finding.insight),
            finding
                .files
                .iter()
                .map(|f| format!("<file>{}</file>", escape(f)))
                .collect::<String>(),
        ));
        for comment in cited {
            data.push_str(&cited_element(comment));
        }
        data.push_str("</cited>\n</finding>\n");
    }
    (!data.is_empty()).then(|| {
        format!(
            "Check the evidence of these findings. The data:\n<data>\n{data}</data>\nAnswer with the <checked> XML."
        )
    })
}

/// Lines of a comment's diff hunk shown with it: the commented line and a few above.
const HUNK_LINES: usize = 6;

/// A cited comment as the check shows it: as the synthesis quoted it, with the last lines of the
/// diff it was written on, so that a suggestion can be judged by what it replaces.
fn cited_element(comment: &SourceComment) -> String {
    let element = comment_element(comment);
    let Some(hunk) = comment
        .diff_hunk
        .as_deref()
        .filter(|h| !h.trim().is_empty())
    else {
        return element;
    };
    let lines: Vec<&str> = hunk.lines().collect();
    let tail = lines[lines.len().saturating_sub(HUNK_LINES)..].join("\n");
    let body_end = element.len() - "</comment>\n".len();
    format!(
        "{}\n<diff>\n{}\n</diff></comment>\n",
        &element[..body_end],
        escape(&tail)
    )
}

/// Reads the `<checked>` answer: the comment ids kept per finding id. Any XML error fails it.
pub fn parse(answer: &str) -> Result<Kept> {
    let Some(start) = answer.find("<checked") else {
        bail!("the answer has no <checked> element");
    };
    let rest = &answer[start..];
    let end = rest
        .find("</checked>")
        .map(|end| end + "</checked>".len())
        .or_else(|| {
            rest.find("/>")
                .filter(|end| !rest[..*end].contains('>'))
                .map(|end| end + 2)
        })
        .context("the <checked> element is not closed (truncated answer?)")?;
    let mut reader = Reader::from_str(&rest[..end]);
    let mut kept = Kept::new();
    let mut current: Option<String> = None;
    loop {
        let event = reader.read_event().with_context(|| {
            format!(
                "the <checked> XML is invalid at byte {}",
                reader.buffer_position()
            )
        })?;
        match event {
            Event::Start(ref e) | Event::Empty(ref e) if e.name().as_ref() == b"finding" => {
                let id = attributes(e)?.remove("id").unwrap_or_default();
                kept.entry(id.clone()).or_default();
                if matches!(event, Event::Start(_)) {
                    current = Some(id);
                }
            }
            Event::Start(ref e) | Event::Empty(ref e) if e.name().as_ref() == b"keep" => {
                if let (Some(finding), Some(id)) = (&current, attributes(e)?.remove("id")) {
                    kept.entry(finding.clone())
                        .or_default()
                        .insert(id.trim().to_string());
                }
            }
            Event::End(ref e) if e.name().as_ref() == b"finding" => current = None,
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(kept)
}

/// The findings with only the checked comments the model kept (commits, figures and comments
/// the check did not show stay); and how many comments were set aside. A finding the answer
/// does not mention is left as it was.
pub fn apply(
    findings: Vec<Finding>,
    kept: &Kept,
    comments: &BTreeMap<i64, SourceComment>,
) -> (Vec<Finding>, usize) {
    let mut set_aside = 0;
    let findings = findings
        .into_iter()
        .map(|mut finding| {
            let Some(keep) = kept.get(&finding.id) else {
                return finding;
            };
            let shown: BTreeSet<String> = checked_comments(&finding, comments)
                .iter()
                .map(|c| c.id.to_string())
                .collect();
            let before = finding.evidence.len();
            finding.evidence.retain(|e| {
                e.kind != EvidenceKind::Comment || !shown.contains(&e.id) || keep.contains(&e.id)
            });
            set_aside += before - finding.evidence.len();
            finding
        })
        .collect();
    (findings, set_aside)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::findings::{Category, Evidence, Severity, Status};

    fn comment(id: i64, pr: i64, body: &str) -> SourceComment {
        SourceComment {
            id,
            pr_number: pr,
            body: body.to_string(),
            ..SourceComment::default()
        }
    }

    fn finding(id: &str, cited: &[&str]) -> Finding {
        Finding {
            id: id.to_string(),
            category: Category::Convention,
            severity: Severity::Medium,
            title: "Keep try blocks small".to_string(),
            insight: "Only the call that can raise goes in the try.".to_string(),
            evidence: cited
                .iter()
                .map(|id| Evidence {
                    kind: EvidenceKind::Comment,
                    id: id.to_string(),
                    text: String::new(),
                })
                .chain([Evidence {
                    kind: EvidenceKind::Commit,
                    id: "abc1234".to_string(),
                    text: String::new(),
                }])
                .collect(),
            files: vec!["src/a.py".to_string()],
            first_seen: 0,
            last_seen: 0,
            status: Status::Active,
        }
    }

    fn window() -> BTreeMap<i64, SourceComment> {
        [
            comment(1, 10, "Keep the try to the line that raises."),
            comment(2, 11, "Thanks!"),
            SourceComment {
                path: Some("src/a.py".to_string()),
                diff_hunk: Some(
                    "@@ -1,3 +1,3 @@\n try:\n-    x = 1\n+    conn = connect()".to_string(),
                ),
                ..comment(3, 12, "Only `connect()` can raise here <b>.")
            },
        ]
        .into_iter()
        .map(|c| (c.id, c))
        .collect()
    }

    #[test]
    fn the_request_quotes_each_cited_comment_as_data() {
        let text = request(&[finding("f-t1", &["1", "3", "99"])], &window()).unwrap();
        assert!(text.contains("<finding id=\"f-t1\" category=\"convention\">"));
        assert!(text.contains("<comment id=\"1\" pr=\"10\""));
        assert!(text.contains("can raise here &lt;b&gt;.\n<diff>\n@@ -1,3 +1,3 @@\n try:\n-    x = 1\n+    conn = connect()\n</diff></comment>"));
        assert!(text.contains("Keep the try to the line that raises.</comment>"));
        assert!(!text.contains("id=\"99\""), "an unknown id is not shown");
        assert!(
            !text.contains("id=\"2\""),
            "an uncited comment is not shown"
        );
        assert!(request(&[finding("f-t2", &[])], &window()).is_none());
    }

    #[test]
    fn only_the_kept_comments_stay_and_a_finding_not_mentioned_is_left_alone() {
        let kept = parse(
            "Here:\n<checked>\n<finding id=\"f-t1\"><keep id=\"1\"/></finding>\n<finding id=\"f-t3\"/>\n</checked>",
        )
        .unwrap();
        let findings = vec![
            finding("f-t1", &["1", "2", "3"]),
            finding("f-t2", &["1", "2"]),
            finding("f-t3", &["3"]),
        ];
        let (out, set_aside) = apply(findings, &kept, &window());
        let ids = |f: &Finding| f.evidence.iter().map(|e| e.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&out[0]), ["1", "abc1234"]);
        assert_eq!(ids(&out[1]), ["1", "2", "abc1234"]);
        assert_eq!(ids(&out[2]), ["abc1234"]);
        assert_eq!(set_aside, 3);
    }

    #[test]
    fn an_answer_without_the_element_or_with_broken_xml_is_refused() {
        assert!(parse("All of them carry it.").is_err());
        assert!(parse("<checked><finding id=\"f\"><keep id=\"1\"></finding>").is_err());
        assert!(parse("<checked><finding id=\"f\"><keep id=\"1\"></finding></checked>").is_err());
        assert_eq!(parse("<checked/>").unwrap(), Kept::new());
    }
}
