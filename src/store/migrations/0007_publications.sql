-- What gitlore published and when it last analysed, so that publishing is idempotent (behaviour §5)
-- and the scheduler and the refresh cooldown survive restarts (behaviour §6).

-- The findings issue of a repository, with the body last published (to skip unchanged edits and
-- to see which dismiss boxes an edit ticked).
CREATE TABLE findings_issues (
    repo_id    INTEGER PRIMARY KEY REFERENCES repos (id) ON DELETE CASCADE,
    number     INTEGER NOT NULL,
    node_id    TEXT,
    body       TEXT    NOT NULL,
    pinned     INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER NOT NULL                        -- unix ms
);

-- The check run of a pull request's head commit, with a hash of its last output.
CREATE TABLE check_runs (
    repo_id      INTEGER NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    head_sha     TEXT    NOT NULL,
    pr_number    INTEGER NOT NULL,
    check_run_id INTEGER NOT NULL,
    output_hash  TEXT    NOT NULL,
    updated_at   INTEGER NOT NULL,                     -- unix ms
    PRIMARY KEY (repo_id, head_sha)
);

-- Per repository: the last analysis (for the scheduler's thresholds) and the last refresh command
-- (for its cooldown).
CREATE TABLE analysis_runs (
    repo_id          INTEGER PRIMARY KEY REFERENCES repos (id) ON DELETE CASCADE,
    last_run_at      INTEGER,                          -- unix ms
    last_comment_id  INTEGER NOT NULL DEFAULT 0,       -- the newest comments.id it read
    last_refresh_at  INTEGER,                          -- unix ms
    refresh_job_id   INTEGER,                          -- the job that took the refresh slot
    -- The schedule of the repo config the last analysis read (NULL: the defaults).
    interval_hours   INTEGER,
    min_new_comments INTEGER
);

-- The co-change couplings the last analysis found, so that a check run between analyses knows
-- which files go together.
CREATE TABLE couplings (
    repo_id    INTEGER NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    a          TEXT    NOT NULL,
    b          TEXT    NOT NULL,
    support    REAL    NOT NULL,
    confidence REAL    NOT NULL,
    lift       REAL    NOT NULL,
    commits    INTEGER NOT NULL,
    PRIMARY KEY (repo_id, a, b)
);
