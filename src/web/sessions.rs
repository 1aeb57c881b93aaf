//! Signed-in people: a random session id (the signed cookie's value) names a row of the store's
//! `web_sessions` (`store/web_sessions.rs` says what the row holds and how the token is sealed),
//! so any replica on the database serves any signed-in person. The token never leaves the
//! server. Lifetimes are wall-clock Unix seconds, shared by every process.

use std::time::Duration;

use anyhow::Result;

use super::WebState;
use crate::domain::Secret;
use crate::store::web_sessions::{self, Session};

/// How long a session lasts: a working day, as long as GitHub's expiring user tokens.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(8 * 3600);
/// Random bytes in a session id and an OAuth `state`.
const TOKEN_BYTES: usize = 32;

/// A new session for `login`; returns its id. Sessions that have expired are deleted on the way.
pub async fn start(state: &WebState, login: String, token: Secret) -> Result<String> {
    let id = random_token()?;
    let now = now_secs(state);
    let expires_at = now + SESSION_LIFETIME.as_secs() as i64;
    let saved = id.clone();
    state
        .on_store(move |store| {
            store.write(|tx| {
                web_sessions::delete_expired(tx, now)?;
                web_sessions::insert(tx, &saved, &login, &token, expires_at)
            })
        })
        .await?;
    Ok(id)
}

/// The live session with this id.
pub async fn find(state: &WebState, id: String) -> Result<Option<Session>> {
    let now = now_secs(state);
    state
        .on_store(move |store| web_sessions::find(&store.reader()?, &id, now))
        .await
}

/// Ends the session with this id.
pub async fn end(state: &WebState, id: String) -> Result<()> {
    state
        .on_store(move |store| store.write(|tx| web_sessions::delete(tx, &id)))
        .await
}

fn now_secs(state: &WebState) -> i64 {
    state.clock.now().as_secs()
}

/// 32 random bytes as hex: a session id, an OAuth `state`.
pub fn random_token() -> Result<String> {
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("Cannot draw random bytes: {e}"))?;
    Ok(hex::encode(bytes))
}
