//! gitlore: a GitHub App that learns a team's tribal knowledge from pull-request reviews.
//!
//! The flow: `server` verifies and `ingress` stores webhook deliveries; the `worker` parses them
//! (`events`) and applies them (`ingest`) to the `store`, classifying comments with `knowledge`.
//! `docs/design.md` tells the whole story.

pub mod analysis;
pub mod analyze;
pub mod app;
pub mod backfill_cli;
pub mod clock;
pub mod commands;
pub mod config;
pub mod domain;
pub mod events;
pub mod export;
pub mod github;
pub mod health;
pub mod ingest;
pub mod ingress;
pub mod knowledge;
pub mod lessons;
pub mod llm;
pub mod log_sink;
pub mod mcp;
pub mod publish;
pub mod redelivery;
pub mod render;
pub mod replay;
pub mod repo_config;
pub mod runner;
pub mod scheduler;
pub mod server;
pub mod setup;
pub mod store;
pub mod web;
pub mod worker;
