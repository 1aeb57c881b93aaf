-- What the last analysis of a repository reported besides its findings (figures, repo config
-- problems, notes), for the repository's web page. JSON, written by the job runner.
ALTER TABLE analysis_runs ADD COLUMN report TEXT COLLATE "C";
