-- Themes: recurring clusters of review comments found by analysis (behaviour §3.1), kept so that a
-- theme keeps its id and its first-seen date across runs.
CREATE TABLE themes (
    id         TEXT COLLATE "C"    PRIMARY KEY,                    -- 't-' + 10 hex digits, never reused
    repo_id    BIGINT NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    label      TEXT COLLATE "C"    NOT NULL,                       -- short name: its top distinctive terms
    terms      TEXT COLLATE "C"    NOT NULL,                       -- JSON: ["unwrap", "panic", …]
    first_seen BIGINT NOT NULL,                       -- unix s: the run that first found it
    last_seen  BIGINT NOT NULL,                       -- unix s: the last run that found it
    active     BIGINT NOT NULL DEFAULT 1              -- 0: the last run did not find it
);
CREATE INDEX themes_repo ON themes (repo_id, active);

-- A theme's comments as its last run found them; a retired theme keeps its last members, so that
-- it can be recognised if it comes back.
CREATE TABLE theme_members (
    theme_id   TEXT COLLATE "C"    NOT NULL REFERENCES themes (id) ON DELETE CASCADE,
    comment_id BIGINT NOT NULL REFERENCES comments (id) ON DELETE CASCADE,
    PRIMARY KEY (theme_id, comment_id)
);
-- Deleting comments (a repo's data purge) finds their memberships through this index.
CREATE INDEX theme_members_comment ON theme_members (comment_id);
