-- Git history (behaviour §3.2): what each commit changed, read once per repository, so that a
-- re-analysis reads only the commits that arrived since the last one.
CREATE TABLE commits (
    repo_id      INTEGER NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL,                  -- read order: an older commit has a lower seq
    sha          TEXT    NOT NULL,
    parents      TEXT    NOT NULL,                  -- space-separated shas
    author_name  TEXT    NOT NULL,
    author_email TEXT    NOT NULL,
    authored_at  INTEGER NOT NULL,                  -- unix s
    committed_at INTEGER NOT NULL,                  -- unix s
    subject      TEXT    NOT NULL,
    body         TEXT    NOT NULL,
    complete     INTEGER NOT NULL,                  -- 0: read from its file list, no line counts
    PRIMARY KEY (repo_id, seq)
) WITHOUT ROWID;
CREATE UNIQUE INDEX commits_sha ON commits (repo_id, sha);

CREATE TABLE commit_files (
    repo_id  INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    path     TEXT    NOT NULL,                      -- the path after the commit
    old_path TEXT,                                  -- the path before, for a rename
    added    INTEGER,                               -- NULL: binary, or commit read without contents
    deleted  INTEGER,
    PRIMARY KEY (repo_id, seq, path),
    FOREIGN KEY (repo_id, seq) REFERENCES commits (repo_id, seq) ON DELETE CASCADE
) WITHOUT ROWID;

-- The head the stored commits lead to: the next run reads `head..HEAD`.
CREATE TABLE history_heads (
    repo_id INTEGER PRIMARY KEY REFERENCES repos (id) ON DELETE CASCADE,
    head    TEXT    NOT NULL
);
