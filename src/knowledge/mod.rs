//! What gitlore learns from review comments: noise filtering, classification, embedding,
//! clustering into themes, theme runs over the store, git history, and findings.

pub mod classify;
pub mod cluster;
pub mod corpus;
pub mod effect;
pub mod embed;
pub mod exclude;
pub mod filter;
pub mod history;
pub mod quality;
pub mod synthesize;
pub mod themes;
