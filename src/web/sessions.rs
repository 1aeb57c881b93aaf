//! Signed-in people, kept in memory: a random session id (the signed cookie's value) maps to
//! the login, the person's GitHub token and the session's CSRF token. The token never leaves
//! the server. A restart signs everyone out.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::domain::Secret;

/// How long a session lasts: a working day, as long as GitHub's expiring user tokens.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(8 * 3600);
/// Random bytes in a session id and a CSRF token.
const TOKEN_BYTES: usize = 32;

/// A signed-in person.
#[derive(Debug)]
pub struct Session {
    pub login: String,
    /// Their GitHub user token, for asking what they may read.
    pub token: Secret,
    /// Goes with every form that changes something (sign-out).
    pub csrf: String,
    expires_at: Instant,
}

/// The sessions of this process.
#[derive(Default)]
pub struct Sessions {
    by_id: Mutex<HashMap<String, Arc<Session>>>,
}

impl Sessions {
    /// A new session for `login`; returns its id.
    pub fn start(&self, login: String, token: Secret) -> Result<String> {
        let id = random_token()?;
        let now = Instant::now();
        let session = Session {
            login,
            token,
            csrf: random_token()?,
            expires_at: now + SESSION_LIFETIME,
        };
        let mut sessions = self.lock();
        sessions.retain(|_, s| s.expires_at > now);
        sessions.insert(id.clone(), Arc::new(session));
        Ok(id)
    }

    /// The live session with this id.
    pub fn get(&self, id: &str) -> Option<Arc<Session>> {
        let sessions = self.lock();
        let session = sessions.get(id)?;
        (session.expires_at > Instant::now()).then(|| session.clone())
    }

    /// Ends the session with this id.
    pub fn end(&self, id: &str) {
        self.lock().remove(id);
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.by_id
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// 32 random bytes as hex: a session id, a CSRF token, an OAuth `state`.
pub fn random_token() -> Result<String> {
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("Cannot draw random bytes: {e}"))?;
    Ok(hex::encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_found_by_its_id_until_it_ends() {
        let sessions = Sessions::default();
        let id = sessions
            .start("alice".into(), Secret::new("gho_x"))
            .unwrap();
        let other = sessions.start("bob".into(), Secret::new("gho_y")).unwrap();
        assert_ne!(id, other);
        let session = sessions.get(&id).unwrap();
        assert_eq!(session.login, "alice");
        assert_eq!(session.csrf.len(), 64);
        assert!(!format!("{session:?}").contains("gho_x"));
        sessions.end(&id);
        assert!(sessions.get(&id).is_none());
        assert!(sessions.get(&other).is_some());
    }
}
