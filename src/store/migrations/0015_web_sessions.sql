-- Sign-in sessions of the web pages, shared by every replica. A row holds nothing a database
-- reader could sign in with: the SHA-256 of the session id (the id itself is only in the
-- browser's signed cookie), and the person's GitHub token sealed under a key derived from that
-- id (store/web_sessions.rs). Not copied by migrate-store: people sign in again.
CREATE TABLE web_sessions (
    id_hash TEXT PRIMARY KEY,
    login TEXT NOT NULL,
    -- Nonce and ChaCha20-Poly1305 ciphertext of the token, the login as associated data.
    sealed_token BLOB NOT NULL,
    -- Unix seconds.
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE INDEX web_sessions_expiry ON web_sessions (expires_at);
