-- Times are TEXT in one fixed-width UTC layout (2006-01-02T15:04:05.000000Z)
-- written by the store, so they sort as text and SQLite's date functions
-- still understand them. JSON documents are TEXT.

CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    scope      TEXT NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
    prefix     TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);

-- Revoking by name must be unambiguous, so at most one active key has a name.
CREATE UNIQUE INDEX api_keys_active_name_key ON api_keys (name) WHERE revoked_at IS NULL;

CREATE TABLE batches (
    id              TEXT PRIMARY KEY,
    kind            TEXT NOT NULL,
    status          TEXT NOT NULL,
    country         TEXT NOT NULL DEFAULT '',
    category        TEXT NOT NULL DEFAULT '',
    chunk_size      INTEGER NOT NULL DEFAULT 0,
    chunks_total    INTEGER NOT NULL DEFAULT 0,
    chunks_done     INTEGER NOT NULL DEFAULT 0,
    chunks_failed   INTEGER NOT NULL DEFAULT 0,
    items_total     INTEGER NOT NULL DEFAULT 0,
    items_succeeded INTEGER NOT NULL DEFAULT 0,
    items_failed    INTEGER NOT NULL DEFAULT 0,
    params          TEXT,
    result          TEXT,
    created_at      TEXT NOT NULL,
    started_at      TEXT,
    finished_at     TEXT,
    updated_at      TEXT NOT NULL
);

-- Lists are newest first by id (UUIDv7 sorts by time) within a filter.
CREATE INDEX batches_kind_id ON batches (kind, id);
CREATE INDEX batches_status_id ON batches (status, id);

CREATE TABLE batch_chunks (
    batch_id    TEXT NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
    chunk_index INTEGER NOT NULL,
    status      TEXT NOT NULL,
    input       TEXT,
    items       INTEGER NOT NULL DEFAULT 0,
    result      TEXT,
    succeeded   INTEGER NOT NULL DEFAULT 0,
    failed      INTEGER NOT NULL DEFAULT 0,
    attempts    INTEGER NOT NULL DEFAULT 0,
    last_error  TEXT NOT NULL DEFAULT '',
    updated_at  TEXT NOT NULL,
    PRIMARY KEY (batch_id, chunk_index)
);
