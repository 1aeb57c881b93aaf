//! Collaborator permissions, asked of GitHub and trusted for a few minutes, so that a burst of
//! commands by one person costs one request.

use std::collections::HashMap;
use std::sync::Mutex;

use anyhow::Result;

use crate::domain::RepoName;
use crate::github::client::GitHub;
use crate::github::ops::permission::Permission;

/// Permissions by (repository, lower-cased login), with when they were read (unix ms).
pub(super) struct PermissionCache {
    ttl_ms: i64,
    entries: Mutex<HashMap<(String, String), (Permission, i64)>>,
}

impl PermissionCache {
    pub(super) fn new(ttl_ms: i64) -> PermissionCache {
        PermissionCache {
            ttl_ms,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `login` may write to `repo`, from the cache or GitHub.
    pub(super) async fn can_write(
        &self,
        github: &GitHub,
        installation: i64,
        repo: &RepoName,
        login: &str,
        now_ms: i64,
    ) -> Result<bool> {
        let key = (
            repo.as_str().to_ascii_lowercase(),
            login.to_ascii_lowercase(),
        );
        let cached = self.lock().get(&key).copied();
        if let Some((permission, at)) = cached.filter(|(_, at)| now_ms - at < self.ttl_ms) {
            tracing::debug!(%repo, login, ?permission, age_ms = now_ms - at, "permission from the cache");
            return Ok(permission.can_write());
        }
        let permission = github
            .collaborator_permission(installation, repo, login)
            .await?;
        self.lock().insert(key, (permission, now_ms));
        Ok(permission.can_write())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), (Permission, i64)>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }
}
