//! `gitlore analyze --example NAME`: the main job on a bundled example, offline and without a key.
//!
//! An example is the real review comments of one public project, taken verbatim from the labelled
//! corpus's training split (`tests/fixtures/corpus/`, whose README gives their provenance: public
//! pull-request threads, collected November 2026; notice in `tests/fixtures/NOTICE`) and embedded
//! in the binary. They are read as a `--reviews` file, with the paths they name and no git
//! history, and go through the same ingestion, noise filter, classifier, themes, synthesis and
//! findings issue as the App's.
//! The corpus's labels are ignored: the comments are read as any review comment is. The analysis
//! runs with the built-in components even when a model is configured, so the example prints the
//! same findings everywhere; `--recorded DIR` replays a capable model's recorded answers instead
//! (`llm::cassettes`), and the note says so.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result, bail};

use super::reviews;
use crate::config::Settings;
use crate::domain::{Repo, RepoName};
use crate::llm::LlmClient;
use crate::llm::cassettes::{self, Recorded};

/// The bundled projects, by the name `--example` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Example {
    /// home-assistant/core: code review of device integrations (exceptions, unique ids, tests).
    HomeAssistant,
    /// rails/rails: what the maintainers tell contributors (`[ci skip]`, cosmetic changes, API).
    Rails,
}

impl Example {
    /// The project the comments were written on, `owner/name`.
    pub fn repo(self) -> &'static str {
        match self {
            Example::HomeAssistant => "home-assistant/core",
            Example::Rails => "rails/rails",
        }
    }

    /// The project as `analyze` files it in its store: its real name, the local repository's id.
    pub fn local_repo(self) -> Repo {
        Repo {
            name: RepoName::parse(self.repo()).expect("a valid name"),
            ..reviews::local_repo("example")
        }
    }

    /// The comments, one corpus record a line (a `--reviews` file: extra fields are ignored).
    pub fn reviews(self) -> &'static str {
        match self {
            Example::HomeAssistant => {
                include_str!("../../tests/fixtures/corpus/home-assistant__core.jsonl")
            }
            Example::Rails => include_str!("../../tests/fixtures/corpus/rails__rails.jsonl"),
        }
    }

    /// The findings issue's note on what this output is and where its comments come from.
    pub fn note(self, comments: usize, recorded: Option<&Path>) -> String {
        match recorded {
            None => format!(
                "gitlore learns a team's lessons from its pull-request reviews. This example is \
                 what it would publish for {} from {comments} of its real review comments (public \
                 threads, quoted from gitlore's corpus: tests/fixtures/corpus/README.md), offline, \
                 with the built-in components.",
                self.repo()
            ),
            Some(dir) => format!(
                "Recorded, not live: what gitlore would publish for {} from {comments} of its real \
                 review comments with a capable model, whose answers to gitlore's requests were \
                 recorded earlier and are replayed from {} (without --recorded: the built-in \
                 components).",
                self.repo(),
                dir.display()
            ),
        }
    }
}

/// A client of the recorded answers in `dir`, served on 127.0.0.1 (`llm::cassettes`) with the
/// App's default LLM settings; a request without an answer falls back as a model failure would.
pub async fn recorded_model(dir: &Path) -> Result<LlmClient> {
    let recorded = Recorded::load(dir, None)?;
    if recorded.is_empty() {
        bail!("{} holds no recorded answers", dir.display());
    }
    let url = cassettes::serve(Arc::new(recorded)).await?;
    let settings = Settings::from_sources(None, &|name| match name {
        "GITLORE_LLM_PROVIDER" => Some("openai".to_string()),
        "GITLORE_LLM_BASE_URL" => Some(url.clone()),
        "GITLORE_LLM_MODEL" => Some("recorded".to_string()),
        _ => None,
    })?;
    LlmClient::new(settings.llm.context("the recorded model has no settings")?)
}

/// The last line of the example's output: where to go next.
pub const NEXT: &str = "Next: your own repository's reviews with \
    `GITHUB_TOKEN=… gitlore analyze PATH --github owner/name`, or the App on GitHub with \
    `gitlore setup` (README: \"Register the app\").";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_example_is_a_reviews_file_of_its_project() {
        for example in [Example::HomeAssistant, Example::Rails] {
            let parsed =
                reviews::parse(example.reviews().as_bytes(), &example.local_repo()).unwrap();
            assert!(parsed.events.len() > 50, "{example:?}");
            let own = format!("\"repo\": \"{}\"", example.repo());
            assert!(
                example.reviews().lines().all(|line| line.contains(&own)),
                "{example:?}"
            );
        }
    }
}
