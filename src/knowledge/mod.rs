//! What gitlore learns from review comments: noise filtering, classification, embedding,
//! clustering into themes, theme runs over the store, git history, and findings.

pub mod classify;
pub mod cluster;
pub mod effect;
pub mod embed;
pub mod exclude;
pub mod filter;
pub mod history;
pub mod switches;
pub mod synthesize;
pub mod themes;

/// The labelled corpus of real review comments, read (never trained on) by the service's tests.
pub use gitlore_lab::corpus;
