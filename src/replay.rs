//! `gitlore replay FILES|DIR`: feeds saved webhook payloads through the same path as live ones
//! (the deliveries table, then the worker).
//!
//! The event name comes from a sidecar file `<payload>.event` when there is one, otherwise from
//! the file name up to its first dot (`pull_request_review_comment.created.0.json`). The delivery
//! id is derived from the event and the bytes, so replaying a file twice stores it once.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

use crate::domain::UnixMs;
use crate::store::Store;
use crate::store::deliveries::{self, Inserted, NewDelivery};
use crate::worker::{BatchStats, Worker};

/// What a replay did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ReplaySummary {
    pub files: usize,
    pub new: usize,
    pub duplicates: usize,
    pub processed: BatchStats,
}

/// Reads the payload files under `paths`, stores them as deliveries, and drains the worker.
pub fn replay(
    store: &Store,
    worker: &Worker,
    paths: &[PathBuf],
    now: UnixMs,
) -> Result<ReplaySummary> {
    let files = payload_files(paths)?;
    let mut batch = Vec::with_capacity(files.len());
    for file in &files {
        batch.push(read_delivery(file)?);
    }
    let inserted = store.write(|tx| deliveries::insert(tx, &batch, now))?;
    let new = inserted.iter().filter(|i| **i == Inserted::New).count();
    let processed = worker.drain()?;
    Ok(ReplaySummary {
        files: files.len(),
        new,
        duplicates: inserted.len() - new,
        processed,
    })
}

/// The `.json` files named, or found (sorted, not recursively) in the directories named.
fn payload_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .with_context(|| format!("Cannot list {}", path.display()))?
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|ext| ext == "json"))
                .collect();
            found.sort();
            files.extend(found);
        } else if path.is_file() {
            files.push(path.clone());
        } else {
            bail!("{} is neither a file nor a directory", path.display());
        }
    }
    Ok(files)
}

fn read_delivery(file: &Path) -> Result<NewDelivery> {
    let body = std::fs::read(file).with_context(|| format!("Cannot read {}", file.display()))?;
    let event = event_name(file)?;
    let digest = Sha256::new()
        .chain_update(event.as_bytes())
        .chain_update(b"\n")
        .chain_update(&body)
        .finalize();
    Ok(NewDelivery::new(
        format!("replay-{}", &hex::encode(digest)[..32]),
        event,
        &body,
    ))
}

fn event_name(file: &Path) -> Result<String> {
    let mut sidecar = file.as_os_str().to_owned();
    sidecar.push(".event");
    let sidecar = PathBuf::from(sidecar);
    let name = if sidecar.is_file() {
        std::fs::read_to_string(&sidecar)
            .with_context(|| format!("Cannot read {}", sidecar.display()))?
            .trim()
            .to_string()
    } else {
        let file_name = file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        file_name.split('.').next().unwrap_or_default().to_string()
    };
    let valid = !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
    if !valid {
        bail!(
            "Cannot tell the event of {}: name the file `<event>.….json` or put the event name in {}",
            file.display(),
            sidecar.display()
        );
    }
    Ok(name)
}
