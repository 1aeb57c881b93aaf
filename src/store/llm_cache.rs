//! Caches of external models' answers: LLM labels by (provider, model, prompt version, body
//! hash), embeddings by (model, text hash). Only good answers are stored.

use super::sql::{Connection, OptionalExtension, params};
use anyhow::Result;

use super::Store;
use crate::domain::cache::{CacheKey, ModelCache};
use crate::domain::classification::Classification;

/// The cached labels for `key`, if any.
pub fn get(conn: &Connection, key: &CacheKey) -> Result<Option<Classification>> {
    let json: Option<String> = conn
        .prepare_cached(
            "SELECT labels FROM llm_labels
              WHERE provider = ?1 AND model = ?2 AND prompt_version = ?3 AND body_hash = ?4",
        )?
        .query_row(
            params![
                key.provider,
                key.model,
                key.prompt_version,
                key.content_hash
            ],
            |row| row.get(0),
        )
        .optional()?;
    // A row that no longer parses (labels renamed) counts as a miss and is asked again.
    Ok(json.and_then(|json| serde_json::from_str(&json).ok()))
}

/// Stores the labels for `key`.
pub fn put(conn: &Connection, key: &CacheKey, labels: &Classification) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO llm_labels (provider, model, prompt_version, body_hash, labels)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (provider, model, prompt_version, body_hash)
         DO UPDATE SET labels = excluded.labels",
    )?
    .execute(params![
        key.provider,
        key.model,
        key.prompt_version,
        key.content_hash,
        serde_json::to_string(labels)?
    ])?;
    Ok(())
}

/// The cached embedding of a text under `model`, if any.
pub fn get_embedding(conn: &Connection, model: &str, text_hash: &str) -> Result<Option<Vec<f32>>> {
    let blob: Option<Vec<u8>> = conn
        .prepare_cached("SELECT vector FROM embeddings WHERE model = ?1 AND text_hash = ?2")?
        .query_row(params![model, text_hash], |row| row.get(0))
        .optional()?;
    Ok(blob.map(|bytes| {
        bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    }))
}

/// Stores the embedding of a text under `model`.
pub fn put_embedding(
    conn: &Connection,
    model: &str,
    text_hash: &str,
    vector: &[f32],
) -> Result<()> {
    let bytes: Vec<u8> = vector.iter().flat_map(|x| x.to_le_bytes()).collect();
    conn.prepare_cached(
        "INSERT INTO embeddings (model, text_hash, vector) VALUES (?1, ?2, ?3)
         ON CONFLICT (model, text_hash) DO UPDATE SET vector = excluded.vector",
    )?
    .execute(params![model, text_hash, bytes])?;
    Ok(())
}

/// The store's tables behind the classifier's and the embedder's cache.
impl ModelCache for Store {
    fn labels(&self, keys: &[CacheKey]) -> Result<Vec<Option<Classification>>> {
        let reader = self.reader()?;
        keys.iter().map(|key| get(&reader, key)).collect()
    }

    fn put_labels(&self, entries: &[(CacheKey, Classification)]) -> Result<()> {
        self.write(|tx| {
            for (key, labels) in entries {
                put(tx, key, labels)?;
            }
            Ok(())
        })
    }

    fn embeddings(&self, model: &str, text_hashes: &[String]) -> Result<Vec<Option<Vec<f32>>>> {
        let reader = self.reader()?;
        text_hashes
            .iter()
            .map(|hash| get_embedding(&reader, model, hash))
            .collect()
    }

    fn put_embeddings(&self, model: &str, entries: &[(&str, &[f32])]) -> Result<()> {
        self.write_derived(|tx| {
            for (hash, vector) in entries {
                put_embedding(tx, model, hash, vector)?;
            }
            Ok(())
        })
    }
}
