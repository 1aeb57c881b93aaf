//! What gitlore learns from review comments: noise filtering, classification, and (later)
//! embedding, clustering and synthesis.

pub mod classify;
pub mod filter;
