//! `gitlore analyze [PATH]`: the whole analysis on a local repository, without a GitHub App.

pub mod reviews;
