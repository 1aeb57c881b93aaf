-- The history is now read along the head's first-parent line (merges diffed against their first
-- parent, merged branches' own commits left out) with file lists only: no analyzer used line
-- counts, and reading them made a whole-history read slow. `complete` now means "renames
-- detected". Histories stored the old way hold commits off that line, so they are dropped and
-- read again at the next analysis.
DELETE FROM commit_files;
DELETE FROM commits;
DELETE FROM history_heads;
ALTER TABLE commit_files DROP COLUMN added;
ALTER TABLE commit_files DROP COLUMN deleted;
