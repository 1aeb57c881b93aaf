-- Answers of external models, cached so that an unchanged comment is never sent twice.
CREATE TABLE llm_labels (
    provider       TEXT    NOT NULL,
    model          TEXT    NOT NULL,
    prompt_version TEXT    NOT NULL,
    body_hash      TEXT    NOT NULL,
    labels         TEXT    NOT NULL,                   -- JSON, as in classifications.labels
    PRIMARY KEY (provider, model, prompt_version, body_hash)
);

CREATE TABLE embeddings (
    model     TEXT NOT NULL,
    text_hash TEXT NOT NULL,                           -- sha256 of the embedded text, hex
    vector    BLOB NOT NULL,                           -- little-endian f32s
    PRIMARY KEY (model, text_hash)
);
