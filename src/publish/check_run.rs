//! Publishes the `gitlore` check run of a pull request's head commit (SPEC §5.2): the findings
//! that apply to the files it changes, neutral, with annotations where past review comments
//! cluster and a Refresh button. Created once per commit, updated only when its output changed.

use anyhow::Result;
use sha2::{Digest, Sha256};

use crate::domain::RepoName;
use crate::github::client::GitHub;
use crate::github::ops::checks::{CheckAction, CheckAnnotation, CheckOutput, CheckRunFields};
use crate::knowledge::findings::Finding;
use crate::render::check_run::{
    self as render, Annotation, CheckRunOutput, CheckRunView, PastComment,
};
use crate::render::links::LinkStyle;
use crate::store::Store;
use crate::store::publications::{self, PublishedCheckRun};

/// What a check run is computed from.
pub struct CheckRunInput<'a> {
    pub pr_number: i64,
    pub head_sha: &'a str,
    pub findings: &'a [Finding],
    pub past_comments: &'a [PastComment],
    pub comment_links: &'a std::collections::HashMap<i64, String>,
    pub commit_link_base: &'a str,
    pub issue_url: Option<&'a str>,
    pub links: &'a LinkStyle,
}

/// What publishing did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckRunOutcome {
    Unchanged,
    Published { id: i64, applicable: usize },
}

/// Computes and publishes the check run of `input.head_sha`.
pub async fn publish(
    github: &GitHub,
    store: &Store,
    installation: i64,
    repo_id: i64,
    repo: &RepoName,
    input: &CheckRunInput<'_>,
    now_ms: i64,
) -> Result<CheckRunOutcome> {
    let changed: Vec<String> = github
        .pull_request_files(installation, repo, input.pr_number)
        .await?
        .into_iter()
        .map(|file| file.filename)
        .collect();
    let couplings = publications::couplings(&store.reader()?, repo_id)?;
    let applicable = render::applicable_findings(input.findings, &changed, &couplings);
    let annotations = render::annotations(input.past_comments, &changed);
    let output = render::render_check_run(&CheckRunView {
        applicable: &applicable,
        annotations: &annotations,
        issue_url: input.issue_url,
        comment_links: input.comment_links,
        commit_link_base: input.commit_link_base,
        links: input.links,
    });
    let hash = OutputHash::of(&output);
    let known = publications::check_run(&store.reader()?, repo_id, input.head_sha)?;
    let known_hash = known.as_ref().map(|k| OutputHash::parse(&k.output_hash));
    if known_hash.as_ref().is_some_and(|known| known.covers(&hash)) {
        return Ok(CheckRunOutcome::Unchanged);
    }
    // GitHub appends the annotations of every request to those already there and cannot take
    // one back: only annotations not published before are sent.
    let annotations: Vec<Annotation> = output
        .annotations
        .iter()
        .zip(&hash.annotations)
        .filter(|(_, h)| {
            known_hash
                .as_ref()
                .is_none_or(|k| !k.annotations.contains(h))
        })
        .map(|(annotation, _)| annotation.clone())
        .collect();
    let action = render::refresh_action();
    let mut batches = render::annotation_batches(&annotations);
    let first = batches.next().unwrap_or(&[]);
    let fields = fields(&output, first, &action);
    let published = match &known {
        Some(known) => {
            github
                .update_check_run(installation, repo, known.check_run_id, &fields)
                .await?
        }
        None => {
            github
                .create_check_run(installation, repo, input.head_sha, &fields)
                .await?
        }
    };
    for batch in batches {
        let more = self::fields(&output, batch, &action);
        github
            .update_check_run(installation, repo, published.id, &more)
            .await?;
    }
    let record = PublishedCheckRun {
        check_run_id: published.id,
        output_hash: hash.published_over(known_hash).to_string(),
    };
    store.write_derived(|tx| {
        publications::save_check_run(
            tx,
            repo_id,
            input.head_sha,
            input.pr_number,
            &record,
            now_ms,
        )
    })?;
    Ok(CheckRunOutcome::Published {
        id: published.id,
        applicable: applicable.len(),
    })
}

/// A completed, neutral check run with `output` and one batch of its annotations.
fn fields<'a>(
    output: &'a CheckRunOutput,
    annotations: &'a [Annotation],
    action: &'a render::Action,
) -> CheckRunFields<'a> {
    CheckRunFields {
        status: Some("completed"),
        conclusion: Some("neutral"),
        details_url: None,
        output: Some(CheckOutput {
            title: &output.title,
            summary: &output.summary,
            text: output.text.as_deref(),
            annotations: annotations
                .iter()
                .map(|a| CheckAnnotation {
                    path: &a.path,
                    start_line: a.start_line,
                    end_line: a.end_line,
                    annotation_level: a.annotation_level,
                    message: &a.message,
                    title: Some(&a.title),
                })
                .collect(),
        }),
        actions: vec![CheckAction {
            label: action.label,
            description: action.description,
            identifier: action.identifier,
        }],
    }
}

/// Hashes of what a check run shows, to skip unchanged updates: its text (title, summary,
/// details), and each annotation, stored as `TEXT:A1,A2,…`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct OutputHash {
    text: String,
    annotations: Vec<String>,
}

/// Hex digits kept of an annotation's hash: short, and enough to tell a few hundred apart.
const ANNOTATION_HASH_LEN: usize = 16;

impl OutputHash {
    fn of(output: &CheckRunOutput) -> OutputHash {
        let mut text = Sha256::new();
        for part in [&output.title, &output.summary] {
            text.update(part.as_bytes());
            text.update([0]);
        }
        text.update(output.text.as_deref().unwrap_or("").as_bytes());
        let annotations = output
            .annotations
            .iter()
            .map(|annotation| {
                let json = serde_json::to_vec(annotation).unwrap_or_default();
                let mut hex = hex::encode(Sha256::digest(json));
                hex.truncate(ANNOTATION_HASH_LEN);
                hex
            })
            .collect();
        OutputHash {
            text: hex::encode(text.finalize()),
            annotations,
        }
    }

    /// Whether a check run published as `self` shows `other`: the same text, and every
    /// annotation of `other` already there (GitHub keeps every annotation ever sent).
    fn covers(&self, other: &OutputHash) -> bool {
        self.text == other.text
            && other
                .annotations
                .iter()
                .all(|h| self.annotations.contains(h))
    }

    /// What the check run shows once `self` is published over `before`: this text, and the
    /// annotations of both.
    fn published_over(mut self, before: Option<OutputHash>) -> OutputHash {
        for old in before.map(|b| b.annotations).unwrap_or_default() {
            if !self.annotations.contains(&old) {
                self.annotations.push(old);
            }
        }
        self
    }

    /// A stored hash; one in another form matches nothing.
    fn parse(stored: &str) -> OutputHash {
        let (text, annotations) = stored.split_once(':').unwrap_or((stored, ""));
        OutputHash {
            text: text.to_string(),
            annotations: annotations
                .split(',')
                .filter(|h| !h.is_empty())
                .map(str::to_string)
                .collect(),
        }
    }
}

impl std::fmt::Display for OutputHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.text, self.annotations.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(text: &str, annotations: &[&str]) -> OutputHash {
        OutputHash {
            text: text.into(),
            annotations: annotations.iter().map(|a| a.to_string()).collect(),
        }
    }

    #[test]
    fn a_stored_hash_reads_back() {
        let stored = hash("t", &["a1", "a2"]);
        assert_eq!(OutputHash::parse(&stored.to_string()), stored);
        assert_eq!(OutputHash::parse("t:"), hash("t", &[]));
        assert!(!OutputHash::parse("old-form").covers(&hash("t", &[])));
    }

    #[test]
    fn annotations_ever_sent_count_as_shown() {
        let published = hash("t", &["a1", "a2"]);
        assert!(
            published.covers(&hash("t", &["a2"])),
            "one went away: nothing to send"
        );
        assert!(!published.covers(&hash("t", &["a2", "a3"])));
        assert!(!published.covers(&hash("u", &["a1"])));
        let next = hash("u", &["a3", "a1"]).published_over(Some(published));
        assert_eq!(next, hash("u", &["a3", "a1", "a2"]));
    }
}
