-- Findings: the lessons a synthesis run found (behaviour §3.3), kept per repository so that a finding
-- keeps its first-seen date and a maintainer's dismissal across runs.
CREATE TABLE findings (
    repo_id      INTEGER NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    id           TEXT    NOT NULL,                     -- 'f-' + theme id, or 'f-' + hash of its subject
    category     TEXT    NOT NULL,
    severity     TEXT    NOT NULL,
    title        TEXT    NOT NULL,
    insight      TEXT    NOT NULL,
    evidence     TEXT    NOT NULL,                     -- JSON: [{"kind", "id", "text"}, …]
    files        TEXT    NOT NULL,                     -- JSON: ["src/x.rs", "src/y/", …]
    first_seen   INTEGER NOT NULL,                     -- unix s: the run that first found it
    last_seen    INTEGER NOT NULL,                     -- unix s: the last run that found it
    status       TEXT    NOT NULL CHECK (status IN ('active', 'dismissed', 'resolved')),
    dismissed_at INTEGER,                              -- unix s
    dismissed_by TEXT,                                 -- login of who dismissed it
    resolved_at  INTEGER,                              -- unix s: the run that resolved it
    PRIMARY KEY (repo_id, id)
);

-- The last synthesis run per repository: findings resolved by that run are "newly resolved".
CREATE TABLE finding_runs (
    repo_id INTEGER PRIMARY KEY REFERENCES repos (id) ON DELETE CASCADE,
    run_at  INTEGER NOT NULL                           -- unix s
);
