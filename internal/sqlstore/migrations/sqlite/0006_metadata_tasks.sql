-- Metadata sync tasks (DESIGN §8), and the indexes the metadata snapshot
-- reads through.

-- One row per sync run. id is a UUIDv7, so id order is creation order.
-- commit_id, remote and error are '' when there is none.
CREATE TABLE metadata_tasks (
    id          TEXT PRIMARY KEY,
    trigger     TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'skipped_unchanged')),
    requests    INTEGER NOT NULL DEFAULT 1 CHECK (requests >= 1),
    created_at  TEXT NOT NULL,
    started_at  TEXT,
    finished_at TEXT,
    commit_id   TEXT NOT NULL DEFAULT '',
    remote      TEXT NOT NULL DEFAULT '',
    error       TEXT NOT NULL DEFAULT ''
);

-- Lists are newest first by id within a status filter.
CREATE INDEX metadata_tasks_status_id ON metadata_tasks (status, id);
-- At most one task is queued (a new request joins it: the conflict target
-- of RequestMetadataTask's upsert) and at most one runs.
CREATE UNIQUE INDEX metadata_tasks_one_queued ON metadata_tasks (status) WHERE status = 'queued';
CREATE UNIQUE INDEX metadata_tasks_one_running ON metadata_tasks (status) WHERE status = 'running';
-- The snapshot's last sync: the newest finished task of a status that
-- reached the remote, one backward seek per status.
CREATE INDEX metadata_tasks_status_finished ON metadata_tasks (status, finished_at);

-- The snapshot counts domains by country and authority, and the latest
-- liveness by verdict. Both are covering indexes a GROUP BY streams
-- through in order, instead of reading the tables and sorting every row;
-- neither column of domains changes once a row is written.
CREATE INDEX domains_country_authority ON domains (country, authority);
CREATE INDEX domain_liveness_verdict ON domain_liveness (verdict);
