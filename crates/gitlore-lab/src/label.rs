//! A review comment's labels (behaviour §2): the ten labels, one with a classifier's confidence,
//! and a comment's set. The service re-exports them as `gitlore::domain::classification`.

use serde::{Deserialize, Serialize};

/// The ten labels of behaviour §2, in their canonical order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    Bug,
    Security,
    Performance,
    Architecture,
    Convention,
    Testing,
    Documentation,
    Nitpick,
    Question,
    Praise,
}

impl Label {
    /// Whether a comment with this label can teach a lesson: questions and praise cannot on
    /// their own.
    pub fn teaches(self) -> bool {
        !matches!(self, Label::Question | Label::Praise)
    }

    /// Every label, in canonical order.
    pub const ALL: [Label; 10] = [
        Label::Bug,
        Label::Security,
        Label::Performance,
        Label::Architecture,
        Label::Convention,
        Label::Testing,
        Label::Documentation,
        Label::Nitpick,
        Label::Question,
        Label::Praise,
    ];

    /// The label's name as stored and as the LLM prompt spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Label::Bug => "bug",
            Label::Security => "security",
            Label::Performance => "performance",
            Label::Architecture => "architecture",
            Label::Convention => "convention",
            Label::Testing => "testing",
            Label::Documentation => "documentation",
            Label::Nitpick => "nitpick",
            Label::Question => "question",
            Label::Praise => "praise",
        }
    }

    /// Parses a label name (case-insensitive, surrounding whitespace ignored).
    pub fn parse(name: &str) -> Option<Label> {
        let name = name.trim();
        Label::ALL
            .into_iter()
            .find(|label| label.as_str().eq_ignore_ascii_case(name))
    }
}

/// One label with the classifier's confidence in it, in `0.0..=1.0`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Scored {
    pub label: Label,
    pub confidence: f32,
}

/// The labels of one comment, most confident first. Empty when nothing applies.
pub type Classification = Vec<Scored>;
