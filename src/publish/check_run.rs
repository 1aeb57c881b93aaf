//! Publishes the `gitlore` check run of a pull request's head commit (behaviour §5.2): the findings
//! that apply to the files it changes, neutral, with annotations where past review comments
//! cluster and a Refresh button. Created once per commit, updated only when its output changed.

use anyhow::Result;
use sha2::{Digest, Sha256};

use crate::domain::findings::Finding;
use crate::domain::{PrNumber, RepoId, UnixMs};
use crate::github::ops::checks::{CheckAction, CheckAnnotation, CheckOutput, CheckRunFields};
use crate::github::repo::RepoClient;
use crate::render::check_run::{
    self as render, Annotation, CheckRunOutput, CheckRunView, PastComment,
};
use crate::render::links::LinkStyle;
use crate::store::Store;
use crate::store::publications::{self, PublishedCheckRun};

/// What a check run is computed from.
pub struct CheckRunInput<'a> {
    pub pr_number: PrNumber,
    pub head_sha: &'a str,
    pub findings: &'a [Finding],
    pub past_comments: &'a [PastComment],
    pub comment_links: &'a std::collections::HashMap<i64, String>,
    pub commit_link_base: &'a str,
    pub issue_url: Option<&'a str>,
    pub links: &'a LinkStyle,
    /// The repository's gitlore web page, when the server has a public URL.
    pub details_url: Option<&'a str>,
    /// A line shown above the summary (why the Refresh button did nothing).
    pub note: Option<&'a str>,
}

/// What publishing did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckRunOutcome {
    Unchanged,
    Published { id: i64, applicable: usize },
}

/// Computes and publishes the check run of `input.head_sha`.
pub async fn publish(
    github: &RepoClient<'_>,
    store: &Store,
    repo_id: RepoId,
    input: &CheckRunInput<'_>,
    now: UnixMs,
) -> Result<CheckRunOutcome> {
    let changed: Vec<String> = github
        .pull_request_files(input.pr_number)
        .await?
        .into_iter()
        .map(|file| file.filename)
        .collect();
    let couplings = publications::couplings(&store.reader()?, repo_id)?;
    let applicable = render::applicable_findings(input.findings, &changed, &couplings);
    let annotations = render::annotations(input.past_comments, &changed);
    let mut output = render::render_check_run(&CheckRunView {
        applicable: &applicable,
        annotations: &annotations,
        issue_url: input.issue_url,
        comment_links: input.comment_links,
        commit_link_base: input.commit_link_base,
        links: input.links,
    });
    if let Some(note) = input.note {
        output.summary = format!("{note}\n\n{}", output.summary);
    }
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
        .filter(|(_, place)| known_hash.as_ref().is_none_or(|k| !k.shows(place)))
        .map(|(annotation, _)| annotation.clone())
        .collect();
    let action = render::refresh_action();
    let mut batches = render::annotation_batches(&annotations);
    let first = batches.next().unwrap_or(&[]);
    let fields = fields(&output, first, &action, input.details_url);
    let published = match &known {
        Some(known) => github.update_check_run(known.check_run_id, &fields).await?,
        None => github.create_check_run(input.head_sha, &fields).await?,
    };
    for batch in batches {
        let more = self::fields(&output, batch, &action, input.details_url);
        github.update_check_run(published.id, &more).await?;
    }
    let record = PublishedCheckRun {
        check_run_id: published.id,
        output_hash: hash.published_over(known_hash).to_string(),
    };
    store.write_derived(|tx| {
        publications::save_check_run(tx, repo_id, input.head_sha, input.pr_number, &record, now)
    })?;
    Ok(CheckRunOutcome::Published {
        id: published.id,
        applicable: applicable.len(),
    })
}

/// A completed, neutral check run with `output`, one batch of its annotations, and the details
/// link.
fn fields<'a>(
    output: &'a CheckRunOutput,
    annotations: &'a [Annotation],
    action: &'a render::Action,
    details_url: Option<&'a str>,
) -> CheckRunFields<'a> {
    CheckRunFields {
        status: Some("completed"),
        conclusion: Some("neutral"),
        details_url,
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

/// What a check run shows, to skip unchanged updates: the hash of its text (title, summary,
/// details), and the place of each annotation, stored as `TEXT:P1,P2,…`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct OutputHash {
    text: String,
    annotations: Vec<Place>,
}

/// Where an annotation sits: a short hash of its file and its lines. GitHub keeps every
/// annotation ever sent and cannot change one, so a place annotated once is never annotated
/// again, even when its cluster of comments grew (a new one would show twice).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Place {
    path: String,
    start_line: u32,
    end_line: u32,
}

/// Hex digits kept of a path's hash: short, and enough to tell a few hundred apart.
const PATH_HASH_LEN: usize = 16;

impl Place {
    fn of(annotation: &Annotation) -> Place {
        let mut path = hex::encode(Sha256::digest(annotation.path.as_bytes()));
        path.truncate(PATH_HASH_LEN);
        Place {
            path,
            start_line: annotation.start_line,
            end_line: annotation.end_line,
        }
    }

    /// Whether the two share a file and at least one line.
    fn overlaps(&self, other: &Place) -> bool {
        self.path == other.path
            && self.start_line <= other.end_line
            && other.start_line <= self.end_line
    }

    /// `PATH@START-END`; `None` for anything else (a hash stored in an older form).
    fn parse(stored: &str) -> Option<Place> {
        let (path, lines) = stored.split_once('@')?;
        let (start, end) = lines.split_once('-')?;
        Some(Place {
            path: path.to_string(),
            start_line: start.parse().ok()?,
            end_line: end.parse().ok()?,
        })
    }
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}@{}-{}", self.path, self.start_line, self.end_line)
    }
}

impl OutputHash {
    fn of(output: &CheckRunOutput) -> OutputHash {
        let mut text = Sha256::new();
        for part in [&output.title, &output.summary] {
            text.update(part.as_bytes());
            text.update([0]);
        }
        text.update(output.text.as_deref().unwrap_or("").as_bytes());
        OutputHash {
            text: hex::encode(text.finalize()),
            annotations: output.annotations.iter().map(Place::of).collect(),
        }
    }

    /// Whether a check run published as `self` already has an annotation at `place` (or on
    /// one of its lines).
    fn shows(&self, place: &Place) -> bool {
        self.annotations.iter().any(|shown| shown.overlaps(place))
    }

    /// Whether a check run published as `self` shows `other`: the same text, and every
    /// annotation place of `other` already annotated (GitHub keeps every annotation ever sent).
    fn covers(&self, other: &OutputHash) -> bool {
        self.text == other.text && other.annotations.iter().all(|place| self.shows(place))
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
            annotations: annotations.split(',').filter_map(Place::parse).collect(),
        }
    }
}

impl std::fmt::Display for OutputHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let places: Vec<String> = self.annotations.iter().map(Place::to_string).collect();
        write!(f, "{}:{}", self.text, places.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(path: &str, start_line: u32, end_line: u32) -> Place {
        Place {
            path: path.into(),
            start_line,
            end_line,
        }
    }

    fn hash(text: &str, annotations: &[Place]) -> OutputHash {
        OutputHash {
            text: text.into(),
            annotations: annotations.to_vec(),
        }
    }

    #[test]
    fn a_stored_hash_reads_back() {
        let stored = hash("t", &[place("a", 1, 3), place("b", 7, 7)]);
        assert_eq!(OutputHash::parse(&stored.to_string()), stored);
        assert_eq!(OutputHash::parse("t:"), hash("t", &[]));
        assert_eq!(OutputHash::parse("t:0123abcd"), hash("t", &[]));
        assert!(!OutputHash::parse("old-form").covers(&hash("t", &[])));
    }

    #[test]
    fn a_place_annotated_once_counts_as_shown_even_when_its_cluster_grew() {
        let published = hash("t", &[place("a", 10, 17), place("b", 1, 2)]);
        assert!(
            published.covers(&hash("t", &[place("b", 1, 2)])),
            "one went away: nothing to send"
        );
        assert!(
            published.covers(&hash("t", &[place("a", 8, 17)])),
            "grew at its start: still the same lines"
        );
        assert!(!published.covers(&hash("t", &[place("a", 30, 31)])));
        assert!(!published.covers(&hash("t", &[place("c", 10, 17)])));
        assert!(!published.covers(&hash("u", &[place("b", 1, 2)])));
        let next = hash("u", &[place("c", 5, 6)]).published_over(Some(published));
        assert_eq!(
            next,
            hash(
                "u",
                &[place("c", 5, 6), place("a", 10, 17), place("b", 1, 2)]
            )
        );
    }
}
