-- Git history (behaviour §3.2): what each commit changed, read once per repository, so that a
-- re-analysis reads only the commits that arrived since the last one.
CREATE TABLE commits (
    repo_id      BIGINT NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    seq          BIGINT NOT NULL,                  -- read order: an older commit has a lower seq
    sha          TEXT COLLATE "C"    NOT NULL,
    parents      TEXT COLLATE "C"    NOT NULL,                  -- space-separated shas
    author_name  TEXT COLLATE "C"    NOT NULL,
    author_email TEXT COLLATE "C"    NOT NULL,
    authored_at  BIGINT NOT NULL,                  -- unix s
    committed_at BIGINT NOT NULL,                  -- unix s
    subject      TEXT COLLATE "C"    NOT NULL,
    body         TEXT COLLATE "C"    NOT NULL,
    complete     BIGINT NOT NULL,                  -- 0: read from its file list, no line counts
    PRIMARY KEY (repo_id, seq)
);
CREATE UNIQUE INDEX commits_sha ON commits (repo_id, sha);

CREATE TABLE commit_files (
    repo_id  BIGINT NOT NULL,
    seq      BIGINT NOT NULL,
    path     TEXT COLLATE "C"    NOT NULL,                      -- the path after the commit
    old_path TEXT COLLATE "C",                                  -- the path before, for a rename
    added    BIGINT,                               -- NULL: binary, or commit read without contents
    deleted  BIGINT,
    PRIMARY KEY (repo_id, seq, path),
    FOREIGN KEY (repo_id, seq) REFERENCES commits (repo_id, seq) ON DELETE CASCADE
);

-- The head the stored commits lead to: the next run reads `head..HEAD`.
CREATE TABLE history_heads (
    repo_id BIGINT PRIMARY KEY REFERENCES repos (id) ON DELETE CASCADE,
    head    TEXT COLLATE "C"    NOT NULL
);
