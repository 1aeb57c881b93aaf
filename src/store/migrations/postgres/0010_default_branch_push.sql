-- When the default branch was last pushed to (unix ms, as received), so that the scheduler
-- counts a push as a change since the last analysis. NULL until a push arrives.
ALTER TABLE repos ADD COLUMN pushed_at BIGINT;
