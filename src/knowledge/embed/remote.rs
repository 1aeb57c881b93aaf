//! The remote embedder (behaviour §3.1): any OpenAI-compatible `POST {base}/embeddings`, batched, with
//! every vector cached by (model, text hash) so that an unchanged comment is embedded once.

use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::Vector;
use crate::domain::Secret;
use crate::domain::cache::ModelCache;

/// Texts per request: OpenAI accepts up to 2048 inputs; smaller batches keep one failure cheap.
pub const BATCH: usize = 96;

/// How to reach the embedding model.
#[derive(Debug, Clone)]
pub struct RemoteSettings {
    /// e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    pub api_key: Option<Secret>,
    pub model: String,
    pub timeout: Duration,
}

/// What a run did, for logs and tests.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct EmbedStats {
    pub requests: usize,
    pub cached: usize,
    pub embedded: usize,
}

pub struct RemoteEmbedder {
    settings: RemoteSettings,
    http: reqwest::Client,
}

#[derive(Deserialize)]
struct Response {
    data: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    index: usize,
    embedding: Vec<f32>,
}

impl RemoteEmbedder {
    pub fn new(settings: RemoteSettings) -> Result<RemoteEmbedder> {
        let http = reqwest::Client::builder()
            .timeout(settings.timeout)
            .build()
            .context("Cannot build the embeddings HTTP client")?;
        Ok(RemoteEmbedder { settings, http })
    }

    /// Embeds `texts`, in order, from the cache where possible. Any failure fails the whole call:
    /// the caller falls back to the built-in embedder for the run (vectors of two models never
    /// mix in one clustering).
    pub async fn embed(
        &self,
        cache: &dyn ModelCache,
        texts: &[&str],
    ) -> Result<(Vec<Vector>, EmbedStats)> {
        let hashes: Vec<String> = texts
            .iter()
            .map(|t| hex::encode(Sha256::digest(t.as_bytes())))
            .collect();
        let mut stats = EmbedStats::default();
        let mut vectors: Vec<Option<Vector>> = Vec::with_capacity(texts.len());
        for cached in cache.embeddings(&self.settings.model, &hashes)? {
            stats.cached += usize::from(cached.is_some());
            vectors.push(cached);
        }
        let missing: Vec<usize> = (0..texts.len()).filter(|i| vectors[*i].is_none()).collect();
        for batch in missing.chunks(BATCH) {
            stats.requests += 1;
            let inputs: Vec<&str> = batch.iter().map(|i| texts[*i]).collect();
            let fresh = self.request(&inputs).await?;
            let entries: Vec<(&str, &[f32])> = batch
                .iter()
                .zip(&fresh)
                .map(|(index, vector)| (hashes[*index].as_str(), vector.as_slice()))
                .collect();
            cache.put_embeddings(&self.settings.model, &entries)?;
            for (index, vector) in batch.iter().zip(fresh) {
                vectors[*index] = Some(vector);
                stats.embedded += 1;
            }
        }
        Ok((vectors.into_iter().flatten().collect(), stats))
    }

    async fn request(&self, inputs: &[&str]) -> Result<Vec<Vector>> {
        let url = format!(
            "{}/embeddings",
            self.settings.base_url.trim_end_matches('/')
        );
        let mut request = self
            .http
            .post(&url)
            .json(&serde_json::json!({ "model": self.settings.model, "input": inputs }));
        if let Some(key) = &self.settings.api_key {
            request = request.bearer_auth(key.expose());
        }
        let response = request
            .send()
            .await
            .with_context(|| format!("cannot reach the embedding model at {url}"))?;
        let status = response.status();
        if !status.is_success() {
            let text = response.text().await.unwrap_or_default();
            let excerpt: String = text.chars().take(300).collect();
            bail!("the embedding provider answered {status}: {excerpt}");
        }
        let mut body: Response = response
            .json()
            .await
            .context("the embedding answer is not the expected JSON")?;
        body.data.sort_by_key(|item| item.index);
        let complete = body.data.len() == inputs.len()
            && body
                .data
                .iter()
                .enumerate()
                .all(|(i, item)| item.index == i);
        if !complete {
            bail!(
                "the embedding answer has {} vectors for {} inputs",
                body.data.len(),
                inputs.len()
            );
        }
        let dimension = body.data[0].embedding.len();
        if dimension == 0
            || body
                .data
                .iter()
                .any(|item| item.embedding.len() != dimension)
        {
            bail!("the embedding answer has vectors of different or zero length");
        }
        Ok(body.data.into_iter().map(|item| item.embedding).collect())
    }
}
