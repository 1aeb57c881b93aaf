//! Everything gitlore does on GitHub goes through here: App authentication (`auth`) and one
//! client façade (`client`) with one method per operation, one retry layer, rate-limit handling
//! and a cap on content-creating requests.

pub mod auth;
pub mod client;
pub mod ops;
