-- Deliveries: every verified webhook, stored before GitHub gets its 2xx.
CREATE TABLE deliveries (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    id               TEXT    NOT NULL UNIQUE,          -- X-GitHub-Delivery
    event            TEXT    NOT NULL,                 -- X-GitHub-Event
    received_at      INTEGER NOT NULL,                 -- unix ms
    state            TEXT    NOT NULL DEFAULT 'pending'
                     CHECK (state IN ('pending', 'done', 'ignored', 'failed')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  INTEGER NOT NULL,                 -- unix ms
    lease_owner      TEXT,
    lease_expires_at INTEGER,                          -- unix ms
    outcome          TEXT,                             -- what processing did, in a few words
    last_error       TEXT,
    processed_at     INTEGER                           -- unix ms
);
CREATE INDEX deliveries_pending ON deliveries (seq) WHERE state = 'pending';
-- Bodies apart: claiming and marking a delivery rewrites its row, which must not rewrite 25 KB.
CREATE TABLE delivery_bodies (
    seq  INTEGER PRIMARY KEY REFERENCES deliveries (seq) ON DELETE CASCADE,
    body BLOB    NOT NULL                              -- the body as signed, LZ4-compressed
);
CREATE INDEX deliveries_failed ON deliveries (seq) WHERE state = 'failed';

CREATE TABLE installations (
    id            INTEGER PRIMARY KEY,                 -- GitHub installation id
    account_login TEXT,
    account_type  TEXT,
    suspended     INTEGER NOT NULL DEFAULT 0,
    deleted       INTEGER NOT NULL DEFAULT 0            -- tombstone: its data is gone
);

CREATE TABLE repos (
    id              INTEGER PRIMARY KEY,               -- GitHub repository id
    installation_id INTEGER REFERENCES installations (id),
    full_name       TEXT    NOT NULL,                  -- owner/name, lower-cased
    default_branch  TEXT,
    private         INTEGER NOT NULL DEFAULT 0,
    removed         INTEGER NOT NULL DEFAULT 0,        -- tombstone: its data is gone
    mirror_stale    INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX repos_full_name ON repos (full_name);
CREATE INDEX repos_installation ON repos (installation_id);

CREATE TABLE pull_requests (
    repo_id    INTEGER NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    number     INTEGER NOT NULL,
    title      TEXT    NOT NULL,
    state      TEXT    NOT NULL,                       -- open / closed
    merged     INTEGER NOT NULL DEFAULT 0,
    head_sha   TEXT,
    updated_at INTEGER NOT NULL,                       -- unix s, GitHub's updated_at
    PRIMARY KEY (repo_id, number)
);

CREATE TABLE comments (
    id                 INTEGER PRIMARY KEY,
    repo_id            INTEGER NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    pr_number          INTEGER NOT NULL,
    kind               TEXT    NOT NULL CHECK (kind IN ('inline', 'review', 'conversation')),
    github_id          INTEGER NOT NULL,
    node_id            TEXT,
    author_login       TEXT    NOT NULL DEFAULT '',
    author_is_bot      INTEGER NOT NULL DEFAULT 0,
    author_association TEXT,
    body               TEXT    NOT NULL DEFAULT '',
    body_hash          TEXT,                           -- sha256 of body, hex
    path               TEXT,
    line               INTEGER,
    diff_hunk          TEXT,
    thread_root_id     INTEGER,                        -- GitHub id of the thread's first comment
    in_reply_to        INTEGER,
    review_id          INTEGER,
    resolved           INTEGER NOT NULL DEFAULT 0,
    review_state       TEXT,
    created_at         INTEGER,                        -- unix s
    updated_at         INTEGER NOT NULL,               -- unix s; older edits are ignored
    html_url           TEXT,
    deleted            INTEGER NOT NULL DEFAULT 0,     -- tombstone: a late create does not revive it
    noise              TEXT CHECK (noise IN ('own', 'bot', 'trivial')),
    UNIQUE (kind, github_id)
);
CREATE INDEX comments_repo ON comments (repo_id, pr_number);
CREATE INDEX comments_thread ON comments (repo_id, thread_root_id);

-- Thread resolution, kept apart from comments so that it converges whichever arrives first.
CREATE TABLE review_threads (
    repo_id        INTEGER NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    root_id        INTEGER NOT NULL,                   -- GitHub id of the thread's first comment
    node_id        TEXT,
    resolved       INTEGER NOT NULL,
    PRIMARY KEY (repo_id, root_id)
);

-- One row per comment and classifier, recomputed only when the body hash changes.
CREATE TABLE classifications (
    comment_id INTEGER NOT NULL REFERENCES comments (id) ON DELETE CASCADE,
    classifier TEXT    NOT NULL,
    body_hash  TEXT    NOT NULL,
    labels     TEXT    NOT NULL,                       -- JSON: [{"label": "bug", "confidence": 0.8}]
    PRIMARY KEY (comment_id, classifier)
);

-- Work that happens after a delivery: backfills, check runs, commands.
CREATE TABLE jobs (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    kind             TEXT    NOT NULL,
    repo_id          INTEGER REFERENCES repos (id) ON DELETE CASCADE,
    dedupe_key       TEXT    NOT NULL UNIQUE,          -- the same work is never queued twice
    payload          TEXT    NOT NULL,                 -- JSON
    state            TEXT    NOT NULL DEFAULT 'pending'
                     CHECK (state IN ('pending', 'done', 'failed')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    run_after        INTEGER NOT NULL,                 -- unix ms
    lease_owner      TEXT,
    lease_expires_at INTEGER,
    last_error       TEXT,
    created_at       INTEGER NOT NULL                  -- unix ms
);
CREATE INDEX jobs_pending ON jobs (run_after) WHERE state = 'pending';
