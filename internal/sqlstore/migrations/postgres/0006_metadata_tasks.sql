-- Metadata sync tasks (DESIGN §8), and the indexes the metadata snapshot
-- reads through. Identifier columns are COLLATE "C" as in 0002.

-- One row per sync run. id is a UUIDv7, so id order is creation order.
-- commit_id, remote and error are '' when there is none.
CREATE TABLE metadata_tasks (
    id          text COLLATE "C" PRIMARY KEY,
    trigger     text COLLATE "C" NOT NULL,
    status      text COLLATE "C" NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'skipped_unchanged')),
    requests    integer NOT NULL DEFAULT 1 CHECK (requests >= 1),
    created_at  timestamptz NOT NULL,
    started_at  timestamptz,
    finished_at timestamptz,
    commit_id   text NOT NULL DEFAULT '',
    remote      text NOT NULL DEFAULT '',
    error       text NOT NULL DEFAULT ''
);

-- Lists are newest first by id within a status filter.
CREATE INDEX metadata_tasks_status_id ON metadata_tasks (status, id);
-- At most one task is queued (a new request joins it: the conflict target
-- of RequestMetadataTask's upsert, which makes concurrent requests wait on
-- each other instead of queueing two) and at most one runs.
CREATE UNIQUE INDEX metadata_tasks_one_queued ON metadata_tasks (status) WHERE status = 'queued';
CREATE UNIQUE INDEX metadata_tasks_one_running ON metadata_tasks (status) WHERE status = 'running';
-- The snapshot's last sync: the newest finished task of a status that
-- reached the remote, one backward seek per status.
CREATE INDEX metadata_tasks_status_finished ON metadata_tasks (status, finished_at);

-- The snapshot counts domains by country and authority, and the latest
-- liveness by verdict: covering indexes (index-only scans) instead of
-- reading the tables. Neither column of domains changes once a row is
-- written, so updates of domains can stay HOT.
CREATE INDEX domains_country_authority ON domains (country, authority);
CREATE INDEX domain_liveness_verdict ON domain_liveness (verdict);

-- The snapshot's chunk counts per partition: an index-only scan in
-- partition order, which a GroupAggregate streams through (the snapshot
-- turns hash aggregation off, see sqlstore.MetadataService). Without it
-- the choice is a hash table of every partition, spilling past work_mem,
-- or a sort of every chunk. Placeholders (key '') are left out as the
-- snapshot leaves them out. SQLite has no such index: its GROUP BY
-- streams through the table's own primary key order, and a partial index
-- there would cost a table lookup per row for the key.
CREATE INDEX dataset_chunks_counts ON dataset_chunks (country, category, date) INCLUDE (records)
    WHERE key <> '';
