//! What `gitlore analyze` prints, whatever the format: the analysis's outcome with the input's
//! comments, and the input's id of every stored comment.

use std::collections::HashMap;

use crate::analysis::Outcome;
use crate::domain::findings::{Evidence, EvidenceKind};
use crate::store::inputs::InputComment;

/// The outcome of one `analyze` run and the ids to print.
pub struct Report<'a> {
    pub outcome: &'a Outcome,
    /// Every comment of the input, noise included.
    pub comments: &'a [InputComment],
    /// The input's id of each stored comment, by store id: the `--reviews` file's ids, or
    /// GitHub's ids for comments read with `--github`.
    pub input_ids: &'a HashMap<i64, String>,
}

impl Report<'_> {
    /// The input's id of the stored comment `store_id` (the store id itself if unknown).
    pub fn input_id(&self, store_id: i64) -> String {
        self.input_ids
            .get(&store_id)
            .cloned()
            .unwrap_or_else(|| store_id.to_string())
    }

    /// The id evidence is cited by outside the store: a comment's input id, otherwise its id.
    pub fn evidence_id(&self, evidence: &Evidence) -> String {
        match (evidence.kind, evidence.id.parse::<i64>()) {
            (EvidenceKind::Comment, Ok(store_id)) => self.input_id(store_id),
            _ => evidence.id.clone(),
        }
    }
}
