-- Answers of external models, cached so that an unchanged comment is never sent twice.
CREATE TABLE llm_labels (
    provider       TEXT COLLATE "C"    NOT NULL,
    model          TEXT COLLATE "C"    NOT NULL,
    prompt_version TEXT COLLATE "C"    NOT NULL,
    body_hash      TEXT COLLATE "C"    NOT NULL,
    labels         TEXT COLLATE "C"    NOT NULL,                   -- JSON, as in classifications.labels
    PRIMARY KEY (provider, model, prompt_version, body_hash)
);

CREATE TABLE embeddings (
    model     TEXT COLLATE "C" NOT NULL,
    text_hash TEXT COLLATE "C" NOT NULL,                           -- sha256 of the embedded text, hex
    vector    BYTEA NOT NULL,                           -- little-endian f32s
    PRIMARY KEY (model, text_hash)
);
