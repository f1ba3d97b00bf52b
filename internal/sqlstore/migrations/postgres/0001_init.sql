CREATE TABLE api_keys (
    id         text PRIMARY KEY,
    name       text NOT NULL,
    scope      text NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
    prefix     text NOT NULL,
    token_hash text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL,
    revoked_at timestamptz
);

-- Revoking by name must be unambiguous, so at most one active key has a name.
CREATE UNIQUE INDEX api_keys_active_name_key ON api_keys (name) WHERE revoked_at IS NULL;

CREATE TABLE batches (
    id              text PRIMARY KEY,
    kind            text NOT NULL,
    status          text NOT NULL,
    country         text NOT NULL DEFAULT '',
    category        text NOT NULL DEFAULT '',
    chunk_size      integer NOT NULL DEFAULT 0,
    chunks_total    integer NOT NULL DEFAULT 0,
    chunks_done     integer NOT NULL DEFAULT 0,
    chunks_failed   integer NOT NULL DEFAULT 0,
    items_total     integer NOT NULL DEFAULT 0,
    items_succeeded integer NOT NULL DEFAULT 0,
    items_failed    integer NOT NULL DEFAULT 0,
    params          jsonb,
    result          jsonb,
    created_at      timestamptz NOT NULL,
    started_at      timestamptz,
    finished_at     timestamptz,
    updated_at      timestamptz NOT NULL
);

-- Lists are newest first by id (UUIDv7 sorts by time) within a filter.
CREATE INDEX batches_kind_id ON batches (kind, id);
CREATE INDEX batches_status_id ON batches (status, id);

CREATE TABLE batch_chunks (
    batch_id    text NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
    chunk_index integer NOT NULL,
    status      text NOT NULL,
    input       jsonb,
    items       integer NOT NULL DEFAULT 0,
    result      jsonb,
    succeeded   integer NOT NULL DEFAULT 0,
    failed      integer NOT NULL DEFAULT 0,
    attempts    integer NOT NULL DEFAULT 0,
    last_error  text NOT NULL DEFAULT '',
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (batch_id, chunk_index)
);
