-- Tokens the LLM spent on each repository per UTC day (input plus output, as the provider
-- reports them), against the daily budget.
CREATE TABLE llm_spend (
    repo_id BIGINT NOT NULL,
    day     TEXT COLLATE "C" NOT NULL,
    tokens  BIGINT NOT NULL,
    PRIMARY KEY (repo_id, day)
);
