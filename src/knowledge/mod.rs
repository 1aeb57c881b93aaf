//! What gitlore learns from review comments: noise filtering, classification, embedding,
//! clustering into themes, and theme runs over the store (synthesis comes later).

pub mod classify;
pub mod cluster;
pub mod embed;
pub mod filter;
pub mod theme_run;
pub mod themes;
