-- The redelivery sweep: what it asked GitHub to deliver again (by delivery GUID, so it never asks
-- twice), and one row of sweep state: the lease that lets one sweep run at a time, how far back
-- the next sweep lists, and the counts of the last sweep (for /metrics).
CREATE TABLE redelivery_requests (
    guid TEXT PRIMARY KEY,
    -- GitHub's id of the failed attempt that was asked for again.
    attempt_id INTEGER NOT NULL,
    event TEXT NOT NULL,
    requested_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE redelivery_sweep (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    lease_owner TEXT,
    lease_expires_at INTEGER,
    -- The next sweep lists deliveries GitHub made at or after this (ms); NULL before the first.
    list_since INTEGER,
    finished_at INTEGER,
    sweeps INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    redelivered INTEGER NOT NULL DEFAULT 0,
    already_stored INTEGER NOT NULL DEFAULT 0
);

INSERT INTO redelivery_sweep (id) VALUES (1);
