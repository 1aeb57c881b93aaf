//! A theme analysis's result: the recurring themes of a repository's review comments, as the
//! analysis finds them and the synthesizers read them.

use serde::{Deserialize, Serialize};

use crate::domain::classification::Label;

/// A recurring theme found by a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    /// `t-` + hex, stable across runs while the theme continues.
    pub id: String,
    /// A short name: its first distinctive terms.
    pub label: String,
    /// Up to `analysis::theme_run::TERMS_PER_THEME` terms, most distinctive first.
    pub terms: Vec<String>,
    /// Store ids of its comments, in (kind, GitHub id) order.
    pub members: Vec<i64>,
    /// Store id of its most central comment.
    pub medoid: i64,
    /// Comments per built-in label, most frequent first (ties in canonical label order).
    pub labels: Vec<(Label, usize)>,
    /// Distinct pull request numbers, ascending.
    pub prs: Vec<i64>,
    /// Distinct comment authors (logins), sorted.
    pub reviewers: Vec<String>,
    /// Up to `analysis::theme_run::TOP_PATHS` files with their comment counts, most frequent first (ties by path).
    pub paths: Vec<(String, usize)>,
    /// Creation time of its oldest and newest comment, unix seconds.
    pub first_comment_at: i64,
    pub last_comment_at: i64,
    /// Share (0..=1) of its inline comments whose thread is resolved; `None` without inline
    /// comments (only review threads can be resolved).
    pub resolved_share: Option<f64>,
    /// The run that first found it, unix seconds.
    pub first_seen: i64,
    /// This run, unix seconds.
    pub last_seen: i64,
}

/// What a run found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ThemeRun {
    /// Largest first (ties by id).
    pub themes: Vec<Theme>,
    /// Store ids of notable singletons, in (kind, GitHub id) order.
    pub singletons: Vec<i64>,
    /// Comments analysed.
    pub comments: usize,
    /// What fell back to a built-in component, and why (empty when nothing did).
    pub notes: Vec<String>,
    /// Who judged the comments, when a model did.
    pub model_labels: Option<ModelLabels>,
}

/// How many of a run's comments a model judged (noise or labels); the built-in filter and
/// classifier judged the rest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelLabels {
    /// The model's tag: provider/model/prompt version.
    pub model: String,
    /// Comments it was asked about.
    pub asked: usize,
    /// Comments it answered for (now or from its cache).
    pub judged: usize,
}
