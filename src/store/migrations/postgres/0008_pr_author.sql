-- Who opened each pull request (its `user.login`, spelled as comment authors are), so that the
-- analysis can tell the PR author's own replies from reviewers' comments. NULL until a webhook or
-- a backfill brings a snapshot that names the author; rows stored before this migration stay
-- NULL until then.
ALTER TABLE pull_requests ADD COLUMN author_login TEXT COLLATE "C";
