//! Collaborator permissions, asked of GitHub and trusted for a few minutes, so that a burst of
//! commands by one person costs one request.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use anyhow::Result;

use super::RepoJob;
use crate::domain::UnixMs;
use crate::github::ops::permission::Permission;
use crate::github::repo::RepoClient;

/// Permissions by (repository, lower-cased login), with when they were read.
pub(super) struct PermissionCache {
    ttl: Duration,
    entries: Mutex<HashMap<(String, String), (Permission, UnixMs)>>,
}

impl PermissionCache {
    pub(super) fn new(ttl: Duration) -> PermissionCache {
        PermissionCache {
            ttl,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `login` may write to the repository of `github`, from the cache or GitHub.
    async fn can_write(&self, github: &RepoClient<'_>, login: &str, now: UnixMs) -> Result<bool> {
        let repo = github.name();
        let key = (
            repo.as_str().to_ascii_lowercase(),
            login.to_ascii_lowercase(),
        );
        let cached = self.lock().get(&key).copied();
        if let Some((permission, at)) = cached.filter(|(_, at)| now.since(*at) < self.ttl) {
            tracing::debug!(%repo, login, ?permission, age = ?now.since(at), "permission from the cache");
            return Ok(permission.can_write());
        }
        let permission = github.collaborator_permission(login).await?;
        self.lock().insert(key, (permission, now));
        Ok(permission.can_write())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), (Permission, UnixMs)>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl RepoJob<'_> {
    /// Whether `login` may write to the job's repository (and so run commands or dismiss
    /// findings).
    pub(super) async fn can_write(&self, login: &str) -> Result<bool> {
        let runner = self.runner;
        let now = runner.clock.now();
        runner.permissions.can_write(&self.github, login, now).await
    }
}
