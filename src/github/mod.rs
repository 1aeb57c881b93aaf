//! Everything gitlore does on GitHub goes through here: App authentication (`auth`), one
//! transport (`client`) with one retry layer, rate-limit handling and a cap on content-creating
//! requests, one error type (`error`), a client per repository (`repo`) whose operations are in
//! `ops`; `backfill` reads a repository's review history.

pub mod auth;
pub mod backfill;
pub mod client;
pub mod error;
pub mod ops;
pub mod repo;
