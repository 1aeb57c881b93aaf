-- The redelivery sweep: what it asked GitHub to deliver again (by delivery GUID, so it never asks
-- twice), and one row of sweep state: the lease that lets one sweep run at a time, how far back
-- the next sweep lists, and the counts of the last sweep (for /metrics).
CREATE TABLE redelivery_requests (
    guid TEXT COLLATE "C" PRIMARY KEY,
    -- GitHub's id of the failed attempt that was asked for again.
    attempt_id BIGINT NOT NULL,
    event TEXT COLLATE "C" NOT NULL,
    requested_at BIGINT NOT NULL
);

CREATE TABLE redelivery_sweep (
    id BIGINT PRIMARY KEY CHECK (id = 1),
    lease_owner TEXT COLLATE "C",
    lease_expires_at BIGINT,
    -- The next sweep lists deliveries GitHub made at or after this (ms); NULL before the first.
    list_since BIGINT,
    finished_at BIGINT,
    sweeps BIGINT NOT NULL DEFAULT 0,
    failed BIGINT NOT NULL DEFAULT 0,
    redelivered BIGINT NOT NULL DEFAULT 0,
    already_stored BIGINT NOT NULL DEFAULT 0
);

INSERT INTO redelivery_sweep (id) VALUES (1);
