-- The installation each processed delivery came through, so that uninstalling can delete the
-- raw bodies it sent (they hold comment text). NULL for deliveries processed before this
-- migration, for events that name no installation, and until the worker has parsed it.
ALTER TABLE deliveries ADD COLUMN installation_id BIGINT;
CREATE INDEX deliveries_by_installation ON deliveries (installation_id)
    WHERE installation_id IS NOT NULL;
