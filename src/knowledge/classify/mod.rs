//! Multi-label classification of review comments (behaviour §2).
//!
//! The built-in classifier is the default: offline, deterministic and fast. Other classifiers
//! (LLM) produce the same [`Classification`](crate::domain::classification::Classification) so the rest of the pipeline does not care which one
//! ran.

pub mod builtin;
pub mod llm;

/// What a classifier may look at: the comment and, for inline comments, where it was made.
#[derive(Debug, Clone, Copy, Default)]
pub struct CommentText<'a> {
    /// The comment body (markdown), already stripped of text addressed to AI agents.
    pub body: &'a str,
    /// The file the comment is on, for inline comments.
    pub path: Option<&'a str>,
    /// The diff hunk the comment is on, for inline comments.
    pub diff_hunk: Option<&'a str>,
}
