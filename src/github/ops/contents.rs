//! A repository's default branch and the files on it.

use base64::Engine;
use base64::prelude::BASE64_STANDARD;
use serde::Deserialize;

use super::super::error::{Error, Result};
use super::super::repo::RepoClient;

/// A file as the contents API serves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileContent {
    Bytes(Vec<u8>),
    /// Over the 1 MB the contents API serves: only its size is known.
    TooLarge {
        size: u64,
    },
}

/// The part of `GET /repos/{repo}` the bot reads.
#[derive(Deserialize)]
struct Repository {
    default_branch: String,
}

/// A file's answer of the contents API.
#[derive(Deserialize)]
struct Contents {
    /// `base64`, or `none` for a file over 1 MB.
    encoding: Option<String>,
    #[serde(default)]
    size: u64,
    content: Option<String>,
}

impl RepoClient<'_> {
    /// The repository's default branch. A GET: retried.
    pub async fn default_branch(&self) -> Result<String> {
        Ok(self.get::<Repository>("").await?.default_branch)
    }

    /// A file's content on `git_ref`, or `None` when the file does not exist (or is gone). A
    /// file over 1 MB comes without its content (GitHub's contents API serves none). A GET:
    /// retried.
    pub async fn file(&self, path: &str, git_ref: &str) -> Result<Option<FileContent>> {
        let contents: Contents = match self.get(&format!("/contents/{path}?ref={git_ref}")).await {
            Ok(contents) => contents,
            Err(error) if error.is_gone() => return Ok(None),
            Err(error) => return Err(error),
        };
        if contents.encoding.as_deref() == Some("none") {
            return Ok(Some(FileContent::TooLarge {
                size: contents.size,
            }));
        }
        let unexpected = |reason: &str| Error::Unexpected {
            url: self.path(&format!("/contents/{path}")),
            reason: reason.to_string(),
        };
        let encoded: String = contents
            .content
            .ok_or_else(|| unexpected("the file has no content"))?
            .split_whitespace()
            .collect();
        let bytes = BASE64_STANDARD
            .decode(encoded)
            .map_err(|_| unexpected("the file's content is not base64"))?;
        Ok(Some(FileContent::Bytes(bytes)))
    }
}
