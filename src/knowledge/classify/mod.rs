//! Multi-label classification of review comments (behaviour §2).
//!
//! The built-in classifier is the default: offline, deterministic and fast. Other classifiers
//! (LLM) produce the same [`Classification`](crate::domain::classification::Classification) so the rest of the pipeline does not care which one
//! ran.

pub mod llm;

pub use gitlore_lab::CommentText;

/// The built-in classifier's reading with the shipped models. It lives in the `gitlore-lab`
/// crate with its trainer, which the service never calls (`tests/layers.rs`).
pub mod builtin {
    pub use gitlore_lab::builtin::{Reading, classify, read, version};
}
