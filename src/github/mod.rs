//! Everything gitlore does on GitHub goes through here: App authentication (`auth`) and one
//! client façade (`client`) with one method per operation, one retry layer, rate-limit handling
//! and a cap on content-creating requests; `backfill` reads a repository's review history.

pub mod auth;
pub mod backfill;
pub mod client;
pub mod ops;
