-- Tokens the LLM spent on each repository per UTC day (input plus output, as the provider
-- reports them), against the daily budget.
CREATE TABLE llm_spend (
    repo_id INTEGER NOT NULL,
    day     TEXT NOT NULL,
    tokens  INTEGER NOT NULL,
    PRIMARY KEY (repo_id, day)
) WITHOUT ROWID;
