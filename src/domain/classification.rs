//! A review comment's labels (behaviour §2), as every classifier produces them and the store keeps
//! them.

use serde::{Deserialize, Serialize};

/// The name the built-in classifier's results are stored under.
pub const BUILTIN_NAME: &str = "builtin";

/// The name the LLM classifier's verdicts are stored under. Its key is the model's tag
/// (provider/model/prompt version), `:` and the body's hash; an empty label set is the model's
/// verdict that the comment is noise.
pub const LLM_NAME: &str = "llm";

/// Which stored LLM verdicts a reader of the analysable comments takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LlmVerdicts<'a> {
    /// None: the built-in noise filter and labels alone.
    Ignored,
    /// Those of the model with this tag, for the current bodies.
    Of(&'a str),
    /// The latest of any model, for the current bodies (what the last analysis used, to show it).
    Latest,
}

impl LlmVerdicts<'_> {
    /// The SQL condition joining `lc` (the `llm` classification) to comment `c`, with the model's
    /// tag as parameter `?tag`; a condition that matches nothing when verdicts are ignored.
    pub fn join_condition(&self) -> &'static str {
        match self {
            LlmVerdicts::Ignored => "FALSE",
            LlmVerdicts::Of(_) => "lc.body_hash = ?3 || ':' || c.body_hash",
            LlmVerdicts::Latest => "substr(lc.body_hash, length(lc.body_hash) - 63) = c.body_hash",
        }
    }

    /// The model tag, for the `?3` parameter.
    pub fn tag(&self) -> &str {
        match self {
            LlmVerdicts::Of(tag) => tag,
            _ => "",
        }
    }
}

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
