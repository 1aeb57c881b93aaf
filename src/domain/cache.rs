//! The cache of external models' answers, as the classifier and the embedder see it: the store
//! implements it, so that knowledge asks for answers without knowing where they are kept.

use anyhow::Result;

use crate::domain::classification::Classification;

/// What an LLM classification is cached under.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CacheKey {
    pub provider: String,
    pub model: String,
    pub prompt_version: String,
    /// The hash of everything the model reads of the comment (`classify::llm::content_hash`).
    pub content_hash: String,
}

/// LLM labels by [`CacheKey`], embeddings by (model, text hash). Only good answers are stored.
pub trait ModelCache: Sync {
    /// The cached labels of each key, in order (`None` for a miss), read in one snapshot.
    fn labels(&self, keys: &[CacheKey]) -> Result<Vec<Option<Classification>>>;

    /// Stores labels, in one write.
    fn put_labels(&self, entries: &[(CacheKey, Classification)]) -> Result<()>;

    /// The cached embedding of each text hash under `model`, in order, read in one snapshot.
    fn embeddings(&self, model: &str, text_hashes: &[String]) -> Result<Vec<Option<Vec<f32>>>>;

    /// Stores the embeddings of text hashes under `model`, in one write.
    fn put_embeddings(&self, model: &str, entries: &[(&str, &[f32])]) -> Result<()>;
}
