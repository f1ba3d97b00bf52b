-- Page retrieval (issue 24): a seed's contract says whether its items'
-- pages are fetched (harvest); each such item has a page row, the queue
-- of its fetch and, once its WARC file is stored, where its record is.

ALTER TABLE seeds ADD COLUMN harvest_json TEXT NOT NULL DEFAULT '{"pages":false}';

-- One row per item whose page is fetched. state: queued, fetched (in a
-- WARC file of process spool, not stored yet), stored, skipped, failed.
-- warc_file, record_offset and record_length are set when the file is
-- stored, in the transaction that records it.
CREATE TABLE pages (
    item_id        INTEGER PRIMARY KEY REFERENCES items (id),
    seed_id        TEXT NOT NULL,
    url            TEXT NOT NULL,
    country        TEXT NOT NULL,
    category       TEXT NOT NULL,
    day            TEXT NOT NULL,
    state          TEXT NOT NULL CHECK (state IN ('queued', 'fetched', 'stored', 'skipped', 'failed')),
    status         INTEGER NOT NULL DEFAULT 0,
    reason         TEXT NOT NULL DEFAULT '',
    mime           TEXT NOT NULL DEFAULT '',
    spool          TEXT NOT NULL DEFAULT '',
    warc_file      TEXT NOT NULL DEFAULT '',
    record_offset  INTEGER NOT NULL DEFAULT 0,
    record_length  INTEGER NOT NULL DEFAULT 0,
    payload_digest TEXT NOT NULL DEFAULT '',
    revisit        INTEGER NOT NULL DEFAULT 0,
    fetched_at     TEXT,
    queued_at      TEXT NOT NULL
);
CREATE INDEX pages_state ON pages (state, item_id);
CREATE INDEX pages_spool ON pages (spool) WHERE spool <> '';

-- The first stored capture of each payload: a later page with the same
-- payload is a revisit record referring to it.
CREATE TABLE page_digests (
    payload_digest TEXT PRIMARY KEY,
    target_uri     TEXT NOT NULL,
    warc_date      TEXT NOT NULL,
    record_id      TEXT NOT NULL
) WITHOUT ROWID;

-- The stored WARC files, by partition.
CREATE TABLE warc_files (
    object_key TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    country    TEXT NOT NULL,
    category   TEXT NOT NULL,
    day        TEXT NOT NULL,
    records    INTEGER NOT NULL,
    revisits   INTEGER NOT NULL,
    bytes      INTEGER NOT NULL,
    stored_at  TEXT NOT NULL
);
CREATE INDEX warc_files_partition ON warc_files (country, category, day, stored_at);
