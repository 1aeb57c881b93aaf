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
    let annotations = render::annotations(input.past_comments, &changed, input.links);
    let output = render::render_check_run(&CheckRunView {
        applicable: &applicable,
        annotations: &annotations,
        issue_url: input.issue_url,
        comment_links: input.comment_links,
        commit_link_base: input.commit_link_base,
        links: input.links,
    });
    let hash = output_hash(&output);
    let known = publications::check_run(&store.reader()?, repo_id, input.head_sha)?;
    if known.as_ref().is_some_and(|k| k.output_hash == hash) {
        return Ok(CheckRunOutcome::Unchanged);
    }
    let action = render::refresh_action();
    let mut batches = render::annotation_batches(&output.annotations);
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
    // GitHub adds the annotations of each update to those already there.
    for batch in batches {
        let more = self::fields(&output, batch, &action);
        github
            .update_check_run(installation, repo, published.id, &more)
            .await?;
    }
    let record = PublishedCheckRun {
        check_run_id: published.id,
        output_hash: hash,
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

/// A hash of everything the check run shows, to skip unchanged updates.
fn output_hash(output: &CheckRunOutput) -> String {
    let mut hasher = Sha256::new();
    for part in [&output.title, &output.summary] {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    hasher.update(output.text.as_deref().unwrap_or("").as_bytes());
    hasher.update([0]);
    for annotation in &output.annotations {
        hasher.update(serde_json::to_vec(annotation).unwrap_or_default());
    }
    hex::encode(hasher.finalize())
}
