//! GitHub App authentication (behaviour §7): an RS256 JWT signed with the App's key (`iat` 60 s in the
//! past for clock drift, `exp` 9 minutes ahead — GitHub allows at most 10), exchanged for
//! installation tokens that are cached per installation until shortly before they expire.
//! Tokens and keys are `Secret`s: never printed, never logged.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{Context, Result};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde::Serialize;

use crate::domain::{InstallationId, Secret, UnixMs};

/// How far in the past the JWT's `iat` is, in seconds: GitHub's advice against clock drift.
const JWT_BACKDATE_S: i64 = 60;
/// How long the JWT lives, in seconds from now: under GitHub's 10-minute maximum.
const JWT_LIFETIME_S: i64 = 9 * 60;
/// A cached token is renewed this long before it expires, so that a request never
/// starts with a token about to die.
const RENEW_BEFORE_EXPIRY: Duration = Duration::from_secs(5 * 60);

#[derive(Serialize)]
struct Claims {
    iat: i64,
    exp: i64,
    iss: String,
}

/// The App's identity: its id and private key.
pub struct AppKey {
    app_id: i64,
    key: EncodingKey,
}

impl std::fmt::Debug for AppKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AppKey {{ app_id: {}, key: [redacted] }}", self.app_id)
    }
}

impl AppKey {
    /// Reads the App's PEM key (PKCS#1 as GitHub issues it, or PKCS#8).
    pub fn new(app_id: i64, pem: &Secret) -> Result<AppKey> {
        let key = EncodingKey::from_rsa_pem(pem.expose().as_bytes())
            .context("The App's private key is not a valid RSA PEM key")?;
        Ok(AppKey { app_id, key })
    }

    pub fn app_id(&self) -> i64 {
        self.app_id
    }

    /// A JWT authenticating as the App at `now`.
    pub fn jwt(&self, now: UnixMs) -> Result<Secret> {
        let now = now.as_secs();
        let claims = Claims {
            iat: now - JWT_BACKDATE_S,
            exp: now + JWT_LIFETIME_S,
            iss: self.app_id.to_string(),
        };
        let token = jsonwebtoken::encode(&Header::new(Algorithm::RS256), &claims, &self.key)
            .context("Cannot sign the App's JWT")?;
        Ok(Secret::new(token))
    }
}

/// An installation token and when it expires.
#[derive(Debug, Clone)]
pub struct InstallationToken {
    pub token: Secret,
    pub expires_at: UnixMs,
}

/// Installation tokens by installation id. Each installation has its own; none is ever shared.
#[derive(Debug, Default)]
pub struct TokenCache {
    tokens: Mutex<HashMap<InstallationId, InstallationToken>>,
}

impl TokenCache {
    /// The cached token of `installation`, unless it expires within the renewal margin.
    pub fn fresh(&self, installation: InstallationId, now: UnixMs) -> Option<Secret> {
        let tokens = self.tokens.lock().unwrap_or_else(|p| p.into_inner());
        tokens
            .get(&installation)
            .filter(|t| t.expires_at - RENEW_BEFORE_EXPIRY > now)
            .map(|t| t.token.clone())
    }

    pub fn store(&self, installation: InstallationId, token: InstallationToken) {
        let mut tokens = self.tokens.lock().unwrap_or_else(|p| p.into_inner());
        tokens.insert(installation, token);
    }

    /// Forgets an installation's token (GitHub refused it).
    pub fn forget(&self, installation: InstallationId) {
        let mut tokens = self.tokens.lock().unwrap_or_else(|p| p.into_inner());
        tokens.remove(&installation);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_renewed_before_they_expire() {
        let cache = TokenCache::default();
        let token = InstallationToken {
            token: Secret::new("t"),
            expires_at: UnixMs(3_600_000),
        };
        cache.store(InstallationId(7), token);
        assert!(cache.fresh(InstallationId(7), UnixMs(0)).is_some());
        assert!(
            cache
                .fresh(
                    InstallationId(7),
                    UnixMs(3_600_000) - RENEW_BEFORE_EXPIRY - Duration::from_millis(1)
                )
                .is_some()
        );
        assert!(
            cache
                .fresh(InstallationId(7), UnixMs(3_600_000) - RENEW_BEFORE_EXPIRY)
                .is_none()
        );
        assert!(
            cache.fresh(InstallationId(8), UnixMs(0)).is_none(),
            "never another installation's token"
        );
    }

    #[test]
    fn the_key_is_never_printed() {
        let pem = Secret::new(include_str!("../../tests/fixtures/test-app-key.pem"));
        let key = AppKey::new(12, &pem).unwrap();
        assert_eq!(format!("{key:?}"), "AppKey { app_id: 12, key: [redacted] }");
        let jwt = key.jwt(UnixMs(1_700_000_000_000)).unwrap();
        assert_eq!(jwt.expose().split('.').count(), 3);
        assert!(!format!("{jwt:?}").contains(jwt.expose()));
    }
}
