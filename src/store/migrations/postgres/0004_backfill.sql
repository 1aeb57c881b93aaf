-- Backfill progress per repository (behaviour §6): the window it reads, the cursor of the last pull
-- request page whose rows are committed, and what it has done so far. A page's rows and the
-- advanced cursor commit in one transaction, so a crash resumes after the last committed page.
CREATE TABLE backfills (
    repo_id       BIGINT PRIMARY KEY REFERENCES repos (id) ON DELETE CASCADE,
    window_start  BIGINT NOT NULL,                   -- unix s: PRs updated before are not read
    cursor        TEXT COLLATE "C",                               -- endCursor of the last committed PR page
    prs_done      BIGINT NOT NULL DEFAULT 0,
    comments_done BIGINT NOT NULL DEFAULT 0,
    state         TEXT COLLATE "C"    NOT NULL CHECK (state IN ('running', 'done', 'failed')),
    last_error    TEXT COLLATE "C",
    updated_at    BIGINT NOT NULL                    -- unix ms
);
