-- Page retrieval (issue 24): a seed's contract says whether its items'
-- pages are fetched (harvest); each such item has a page row, the queue
-- of its fetch and, once its WARC file is stored, where its record is.

ALTER TABLE seeds ADD COLUMN harvest_json jsonb NOT NULL DEFAULT '{"pages":false}';

-- One row per item whose page is fetched. state: queued, fetched (in a
-- WARC file of process spool, not stored yet), stored, skipped, failed.
-- warc_file, record_offset and record_length are set when the file is
-- stored, in the transaction that records it.
CREATE TABLE pages (
    item_id        bigint PRIMARY KEY REFERENCES items (id),
    seed_id        text COLLATE "C" NOT NULL,
    url            text NOT NULL,
    country        text COLLATE "C" NOT NULL,
    category       text COLLATE "C" NOT NULL,
    day            text COLLATE "C" NOT NULL,
    state          text COLLATE "C" NOT NULL CHECK (state IN ('queued', 'fetched', 'stored', 'skipped', 'failed')),
    status         integer NOT NULL DEFAULT 0,
    reason         text NOT NULL DEFAULT '',
    mime           text NOT NULL DEFAULT '',
    spool          text COLLATE "C" NOT NULL DEFAULT '',
    warc_file      text COLLATE "C" NOT NULL DEFAULT '',
    record_offset  bigint NOT NULL DEFAULT 0,
    record_length  bigint NOT NULL DEFAULT 0,
    payload_digest text COLLATE "C" NOT NULL DEFAULT '',
    revisit        boolean NOT NULL DEFAULT false,
    fetched_at     timestamptz,
    queued_at      timestamptz NOT NULL
);
CREATE INDEX pages_state ON pages (state, item_id);
CREATE INDEX pages_spool ON pages (spool) WHERE spool <> '';

-- The first stored capture of each payload: a later page with the same
-- payload is a revisit record referring to it.
CREATE TABLE page_digests (
    payload_digest text COLLATE "C" PRIMARY KEY,
    target_uri     text NOT NULL,
    warc_date      timestamptz NOT NULL,
    record_id      text NOT NULL
);

-- The stored WARC files, by partition.
CREATE TABLE warc_files (
    object_key text COLLATE "C" PRIMARY KEY,
    name       text NOT NULL,
    country    text COLLATE "C" NOT NULL,
    category   text COLLATE "C" NOT NULL,
    day        text COLLATE "C" NOT NULL,
    records    integer NOT NULL,
    revisits   integer NOT NULL,
    bytes      bigint NOT NULL,
    stored_at  timestamptz NOT NULL
);
CREATE INDEX warc_files_partition ON warc_files (country, category, day, stored_at);
