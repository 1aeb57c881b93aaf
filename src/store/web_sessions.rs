//! Sign-in sessions of the web pages (`web_sessions`), shared by every replica on the database.
//! A row holds nothing a database reader could sign in or call GitHub with: it is found by the
//! SHA-256 of the session id, and the person's GitHub token is sealed with ChaCha20-Poly1305
//! under a key derived from the id (HMAC-SHA256 of the id and a fixed label), which only the
//! browser's signed cookie holds. The login is the seal's associated data, so a row whose login
//! was changed opens no more. The CSRF token is derived from the id the same way.

use anyhow::{Result, anyhow};
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Nonce};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use super::sql::{Connection, OptionalExtension, params};
use crate::domain::Secret;

/// What the token's key is derived with.
const TOKEN_KEY_LABEL: &[u8] = b"gitlore web session token key v1";
/// What the CSRF token is derived with.
const CSRF_LABEL: &[u8] = b"gitlore web session csrf v1";
/// Bytes of a ChaCha20-Poly1305 nonce, stored before the ciphertext.
const NONCE_BYTES: usize = 12;

/// A signed-in person, as a live session's id opens them.
#[derive(Debug)]
pub struct Session {
    pub login: String,
    /// Their GitHub user token, for asking what they may read.
    pub token: Secret,
    /// Goes with every form that changes something (sign-out).
    pub csrf: String,
}

/// Saves the session `id` of `login`, live until `expires_at` (Unix seconds).
pub fn insert(
    conn: &Connection,
    id: &str,
    login: &str,
    token: &Secret,
    expires_at: i64,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO web_sessions (id_hash, login, sealed_token, expires_at)
         VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![
        id_hash(id),
        login,
        seal(id, login, token)?,
        expires_at
    ])?;
    Ok(())
}

/// The session `id` if it is live at `now` (Unix seconds).
pub fn find(conn: &Connection, id: &str, now: i64) -> Result<Option<Session>> {
    let row: Option<(String, Vec<u8>)> = conn
        .prepare_cached(
            "SELECT login, sealed_token FROM web_sessions WHERE id_hash = ?1 AND expires_at > ?2",
        )?
        .query_row(params![id_hash(id), now], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()?;
    let Some((login, sealed)) = row else {
        return Ok(None);
    };
    let Some(token) = open(id, &login, &sealed) else {
        tracing::warn!(%login, "a stored session does not open with its id; ignored");
        return Ok(None);
    };
    Ok(Some(Session {
        csrf: hex::encode(derive(id, CSRF_LABEL)),
        login,
        token,
    }))
}

/// Ends the session `id`.
pub fn delete(conn: &Connection, id: &str) -> Result<()> {
    conn.prepare_cached("DELETE FROM web_sessions WHERE id_hash = ?1")?
        .execute([id_hash(id)])?;
    Ok(())
}

/// Deletes the sessions no longer live at `now` (Unix seconds); returns how many.
pub fn delete_expired(conn: &Connection, now: i64) -> Result<usize> {
    Ok(conn
        .prepare_cached("DELETE FROM web_sessions WHERE expires_at <= ?1")?
        .execute([now])?)
}

fn id_hash(id: &str) -> String {
    hex::encode(Sha256::digest(id.as_bytes()))
}

/// A key only the session id gives: HMAC-SHA256 of `label` under the id.
fn derive(id: &str, label: &[u8]) -> [u8; 32] {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(id.as_bytes())
        .expect("HMAC takes keys of any length");
    mac.update(label);
    mac.finalize().into_bytes().into()
}

fn cipher(id: &str) -> ChaCha20Poly1305 {
    ChaCha20Poly1305::new(&derive(id, TOKEN_KEY_LABEL).into())
}

/// A random nonce and the token sealed under the id's key, `login` as associated data.
fn seal(id: &str, login: &str, token: &Secret) -> Result<Vec<u8>> {
    let mut nonce = [0u8; NONCE_BYTES];
    getrandom::fill(&mut nonce).map_err(|e| anyhow!("Cannot draw random bytes: {e}"))?;
    let payload = Payload {
        msg: token.expose().as_bytes(),
        aad: login.as_bytes(),
    };
    let sealed = cipher(id)
        .encrypt(&Nonce::from(nonce), payload)
        .map_err(|_| anyhow!("Cannot seal a session's token"))?;
    Ok([nonce.as_slice(), &sealed].concat())
}

/// The token [`seal`] sealed, if `id` and `login` are those it was sealed with.
fn open(id: &str, login: &str, sealed: &[u8]) -> Option<Secret> {
    let (nonce, ciphertext) = sealed.split_at_checked(NONCE_BYTES)?;
    let payload = Payload {
        msg: ciphertext,
        aad: login.as_bytes(),
    };
    let token = cipher(id)
        .decrypt(&Nonce::try_from(nonce).ok()?, payload)
        .ok()?;
    String::from_utf8(token).ok().map(Secret::new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    const NOW: i64 = 1_795_381_200;
    const ID: &str = "5e551011d5e551011d5e551011d5e551011d5e551011d5e551011d5e551011d0";

    fn store(dir: &tempfile::TempDir) -> Store {
        Store::open(&dir.path().join("gitlore.db")).unwrap()
    }

    #[test]
    fn a_session_is_found_by_its_id_while_live_and_until_it_ends() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(&dir);
        let other = ID.replace('5', "6");
        store
            .write(|tx| {
                insert(tx, ID, "alice", &Secret::new("gho_alice"), NOW + 60)?;
                insert(tx, &other, "bob", &Secret::new("gho_bob"), NOW + 60)
            })
            .unwrap();
        let conn = store.reader().unwrap();
        let session = find(&conn, ID, NOW).unwrap().unwrap();
        assert_eq!(session.login, "alice");
        assert_eq!(session.token.expose(), "gho_alice");
        assert_eq!(session.csrf.len(), 64);
        assert!(!format!("{session:?}").contains("gho_alice"));
        let bob = find(&conn, &other, NOW).unwrap().unwrap();
        assert_eq!(bob.token.expose(), "gho_bob");
        assert_ne!(bob.csrf, session.csrf);
        assert!(find(&conn, &ID.replace('d', "e"), NOW).unwrap().is_none());

        assert!(find(&conn, ID, NOW + 60).unwrap().is_none(), "expired");
        store.write(|tx| delete(tx, ID)).unwrap();
        assert!(find(&conn, ID, NOW).unwrap().is_none(), "ended");
        assert!(find(&conn, &other, NOW).unwrap().is_some());
    }

    #[test]
    fn expired_sessions_are_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(&dir);
        let later = ID.replace('5', "7");
        store
            .write(|tx| {
                insert(tx, ID, "alice", &Secret::new("gho_a"), NOW)?;
                insert(tx, &later, "alice", &Secret::new("gho_b"), NOW + 1)
            })
            .unwrap();
        assert_eq!(store.write(|tx| delete_expired(tx, NOW)).unwrap(), 1);
        let conn = store.reader().unwrap();
        let left: i64 = conn
            .query_row("SELECT count(*) FROM web_sessions", [], |row| row.get(0))
            .unwrap();
        assert_eq!(left, 1);
        assert!(find(&conn, &later, NOW).unwrap().is_some());
    }

    #[test]
    fn the_stored_row_holds_neither_the_id_nor_the_token() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(&dir);
        let token = "gho_16C7e42F292c6912E7710c838347Ae178B4a";
        store
            .write(|tx| insert(tx, ID, "alice", &Secret::new(token), NOW + 60))
            .unwrap();
        let (id_hash, sealed): (String, Vec<u8>) = store
            .reader()
            .unwrap()
            .query_row(
                "SELECT id_hash, sealed_token FROM web_sessions",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .unwrap();
        assert_ne!(id_hash, ID);
        assert_eq!(id_hash.len(), 64);
        let file = std::fs::read(dir.path().join("gitlore.db")).unwrap();
        let wal = std::fs::read(dir.path().join("gitlore.db-wal")).unwrap_or_default();
        for bytes in [sealed.as_slice(), &file, &wal] {
            for secret in [ID, token, "16C7e42F292c6912"] {
                assert!(
                    !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                    "{secret} is stored in the clear"
                );
            }
        }
        assert!(
            wal.windows(5).any(|w| w == b"alice") || file.windows(5).any(|w| w == b"alice"),
            "the files searched are those the row is in"
        );
    }

    #[test]
    fn a_row_whose_login_was_changed_does_not_open() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(&dir);
        store
            .write(|tx| insert(tx, ID, "bob", &Secret::new("gho_bob"), NOW + 60))
            .unwrap();
        store
            .write(|tx| {
                tx.execute("UPDATE web_sessions SET login = 'alice'", [])?;
                Ok(())
            })
            .unwrap();
        assert!(find(&store.reader().unwrap(), ID, NOW).unwrap().is_none());
    }
}
