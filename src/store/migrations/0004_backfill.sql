-- Backfill progress per repository (behaviour §6): the window it reads, the cursor of the last pull
-- request page whose rows are committed, and what it has done so far. A page's rows and the
-- advanced cursor commit in one transaction, so a crash resumes after the last committed page.
CREATE TABLE backfills (
    repo_id       INTEGER PRIMARY KEY REFERENCES repos (id) ON DELETE CASCADE,
    window_start  INTEGER NOT NULL,                   -- unix s: PRs updated before are not read
    cursor        TEXT,                               -- endCursor of the last committed PR page
    prs_done      INTEGER NOT NULL DEFAULT 0,
    comments_done INTEGER NOT NULL DEFAULT 0,
    state         TEXT    NOT NULL CHECK (state IN ('running', 'done', 'failed')),
    last_error    TEXT,
    updated_at    INTEGER NOT NULL                    -- unix ms
);
