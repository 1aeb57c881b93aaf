-- Findings: the lessons a synthesis run found (behaviour §3.3), kept per repository so that a finding
-- keeps its first-seen date and a maintainer's dismissal across runs.
CREATE TABLE findings (
    repo_id      BIGINT NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    id           TEXT COLLATE "C"    NOT NULL,                     -- 'f-' + theme id, or 'f-' + hash of its subject
    category     TEXT COLLATE "C"    NOT NULL,
    severity     TEXT COLLATE "C"    NOT NULL,
    title        TEXT COLLATE "C"    NOT NULL,
    insight      TEXT COLLATE "C"    NOT NULL,
    evidence     TEXT COLLATE "C"    NOT NULL,                     -- JSON: [{"kind", "id", "text"}, …]
    files        TEXT COLLATE "C"    NOT NULL,                     -- JSON: ["src/x.rs", "src/y/", …]
    first_seen   BIGINT NOT NULL,                     -- unix s: the run that first found it
    last_seen    BIGINT NOT NULL,                     -- unix s: the last run that found it
    status       TEXT COLLATE "C"    NOT NULL CHECK (status IN ('active', 'dismissed', 'resolved')),
    dismissed_at BIGINT,                              -- unix s
    dismissed_by TEXT COLLATE "C",                                 -- login of who dismissed it
    resolved_at  BIGINT,                              -- unix s: the run that resolved it
    PRIMARY KEY (repo_id, id)
);

-- The last synthesis run per repository: findings resolved by that run are "newly resolved".
CREATE TABLE finding_runs (
    repo_id BIGINT PRIMARY KEY REFERENCES repos (id) ON DELETE CASCADE,
    run_at  BIGINT NOT NULL                           -- unix s
);
