-- What gitlore published and when it last analysed, so that publishing is idempotent (behaviour §5)
-- and the scheduler and the refresh cooldown survive restarts (behaviour §6).

-- The findings issue of a repository, with the body last published (to skip unchanged edits and
-- to see which dismiss boxes an edit ticked).
CREATE TABLE findings_issues (
    repo_id    BIGINT PRIMARY KEY REFERENCES repos (id) ON DELETE CASCADE,
    number     BIGINT NOT NULL,
    node_id    TEXT COLLATE "C",
    body       TEXT COLLATE "C"    NOT NULL,
    pinned     BIGINT NOT NULL DEFAULT 0,
    updated_at BIGINT NOT NULL                        -- unix ms
);

-- The check run of a pull request's head commit, with a hash of its last output.
CREATE TABLE check_runs (
    repo_id      BIGINT NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    head_sha     TEXT COLLATE "C"    NOT NULL,
    pr_number    BIGINT NOT NULL,
    check_run_id BIGINT NOT NULL,
    output_hash  TEXT COLLATE "C"    NOT NULL,
    updated_at   BIGINT NOT NULL,                     -- unix ms
    PRIMARY KEY (repo_id, head_sha)
);

-- Per repository: the last analysis (for the scheduler's thresholds) and the last refresh command
-- (for its cooldown).
CREATE TABLE analysis_runs (
    repo_id          BIGINT PRIMARY KEY REFERENCES repos (id) ON DELETE CASCADE,
    last_run_at      BIGINT,                          -- unix ms
    last_comment_id  BIGINT NOT NULL DEFAULT 0,       -- the newest comments.id it read
    last_refresh_at  BIGINT,                          -- unix ms
    refresh_job_id   BIGINT,                          -- the job that took the refresh slot
    -- The schedule of the repo config the last analysis read (NULL: the defaults).
    interval_hours   BIGINT,
    min_new_comments BIGINT
);

-- The co-change couplings the last analysis found, so that a check run between analyses knows
-- which files go together.
CREATE TABLE couplings (
    repo_id    BIGINT NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    a          TEXT COLLATE "C"    NOT NULL,
    b          TEXT COLLATE "C"    NOT NULL,
    support    DOUBLE PRECISION    NOT NULL,
    confidence DOUBLE PRECISION    NOT NULL,
    lift       DOUBLE PRECISION    NOT NULL,
    commits    BIGINT NOT NULL,
    PRIMARY KEY (repo_id, a, b)
);
