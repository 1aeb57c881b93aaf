//! gitlore's language lab: what reads review comments without the service. The built-in
//! classifier (`builtin`: tokenizer, lexicon, features, its rules, the shipped models and their
//! trainer), the labelled corpus of real review comments (`corpus`) and the labels (`label`).
//!
//! The service (`gitlore`) reads comments with [`builtin::read`] and never trains; the benches
//! (`gitlore-bench`) train and score. This crate knows neither.

pub mod builtin;
pub mod corpus;
pub mod label;

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
