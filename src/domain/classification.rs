//! A review comment's labels (behaviour §2), as every classifier produces them and the store keeps
//! them.

pub use gitlore_lab::label::{Classification, Label, Scored};

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
