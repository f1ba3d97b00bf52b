-- Seeds: retrieval contracts, one per (domain_id, content_type), with their
-- contract versions, status transitions and the counts that list totals
-- are read from.

-- One row per seed. The filter columns (country, category, status,
-- source_type, fetch_type) are copies of what the JSON documents hold, so
-- lists filter and page on indexes; the *_json columns hold the JSON of
-- the seedengine types (source, fetch, ...). proposed_version is 0
-- when no proposal is pending.
CREATE TABLE seeds (
    seed_id          TEXT PRIMARY KEY,
    domain_id        TEXT NOT NULL,
    country          TEXT NOT NULL,
    category         TEXT NOT NULL,
    content_type     TEXT NOT NULL,
    source_type      TEXT NOT NULL,
    fetch_type       TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('draft', 'active', 'suspended', 'archived')),
    version          INTEGER NOT NULL CHECK (version >= 1),
    proposed_version INTEGER NOT NULL DEFAULT 0,
    confidence       REAL NOT NULL DEFAULT 0,
    source_json      TEXT NOT NULL,
    fetch_json       TEXT NOT NULL,
    policy_json      TEXT NOT NULL,
    evidence_json    TEXT NOT NULL,
    metadata_json    TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    promoted_at      TEXT
);

-- Lists page in seed_id order; each filter walks its own index in that
-- order, so a filtered page reads about as many index entries as it
-- returns (country and status together, the common "active seeds of a
-- country", has one too). A seed_id starts with its domain_id, so the
-- primary key serves the domain_id filter as a prefix range.
CREATE INDEX seeds_country ON seeds (country, seed_id);
CREATE INDEX seeds_country_status ON seeds (country, status, seed_id);
CREATE INDEX seeds_status ON seeds (status, seed_id);
CREATE INDEX seeds_category ON seeds (category, seed_id);
CREATE INDEX seeds_source_type ON seeds (source_type, seed_id);
CREATE INDEX seeds_fetch_type ON seeds (fetch_type, seed_id);

-- Every contract a seed has had (current, superseded) or was offered
-- (proposed). Versions are numbered per seed without gaps in creation
-- order; a proposal takes a number too.
CREATE TABLE seed_versions (
    seed_id    TEXT NOT NULL REFERENCES seeds (seed_id),
    version    INTEGER NOT NULL,
    state      TEXT NOT NULL CHECK (state IN ('current', 'superseded', 'proposed')),
    contract   TEXT NOT NULL,
    confidence REAL NOT NULL DEFAULT 0,
    evidence   TEXT NOT NULL,
    actor      TEXT NOT NULL,
    batch_id   TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    PRIMARY KEY (seed_id, version)
) WITHOUT ROWID;

-- Status changes, in the order they happened (id).
CREATE TABLE seed_transitions (
    id          INTEGER PRIMARY KEY,
    seed_id     TEXT NOT NULL REFERENCES seeds (seed_id),
    action      TEXT NOT NULL,
    from_status TEXT NOT NULL DEFAULT '',
    to_status   TEXT NOT NULL,
    at          TEXT NOT NULL,
    actor       TEXT NOT NULL,
    reason      TEXT NOT NULL DEFAULT ''
);

CREATE INDEX seed_transitions_seed ON seed_transitions (seed_id, id);

-- Seeds counted by every filter column but domain_id, kept exact by the
-- seed service in the transaction of each write. A list's total is a sum
-- over the few rows matching its filters, instead of a count over up to
-- every seed on every request.
CREATE TABLE seed_counts (
    country     TEXT NOT NULL,
    category    TEXT NOT NULL,
    status      TEXT NOT NULL,
    source_type TEXT NOT NULL,
    fetch_type  TEXT NOT NULL,
    n           INTEGER NOT NULL,
    PRIMARY KEY (country, category, status, source_type, fetch_type)
) WITHOUT ROWID;
