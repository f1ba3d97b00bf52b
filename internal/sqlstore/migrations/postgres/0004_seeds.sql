-- Seeds: retrieval contracts, one per (domain_id, content_type), with their
-- contract versions, status transitions and the counts that list totals
-- are read from. Identifier columns are COLLATE "C" as in 0002, so pages
-- sort alike on both engines and the seed_id prefix range below works.

-- One row per seed. The filter columns (country, category, status,
-- source_type, fetch_type) are copies of what the JSON documents hold, so
-- lists filter and page on indexes; the *_json columns hold the JSON of
-- the seedengine types (source, fetch, ...). proposed_version is 0
-- when no proposal is pending.
CREATE TABLE seeds (
    seed_id          text COLLATE "C" PRIMARY KEY,
    domain_id        text COLLATE "C" NOT NULL,
    country          text COLLATE "C" NOT NULL,
    category         text COLLATE "C" NOT NULL,
    content_type     text COLLATE "C" NOT NULL,
    source_type      text COLLATE "C" NOT NULL,
    fetch_type       text COLLATE "C" NOT NULL,
    status           text COLLATE "C" NOT NULL CHECK (status IN ('draft', 'active', 'suspended', 'archived')),
    version          integer NOT NULL CHECK (version >= 1),
    proposed_version integer NOT NULL DEFAULT 0,
    confidence       double precision NOT NULL DEFAULT 0,
    source_json      jsonb NOT NULL,
    fetch_json       jsonb NOT NULL,
    policy_json      jsonb NOT NULL,
    evidence_json    jsonb NOT NULL,
    metadata_json    jsonb,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    promoted_at      timestamptz
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
    seed_id    text COLLATE "C" NOT NULL REFERENCES seeds (seed_id),
    version    integer NOT NULL,
    state      text NOT NULL CHECK (state IN ('current', 'superseded', 'proposed')),
    contract   jsonb NOT NULL,
    confidence double precision NOT NULL DEFAULT 0,
    evidence   jsonb NOT NULL,
    actor      text NOT NULL,
    batch_id   text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    PRIMARY KEY (seed_id, version)
);

-- Status changes, in the order they happened (id).
CREATE TABLE seed_transitions (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    seed_id     text COLLATE "C" NOT NULL REFERENCES seeds (seed_id),
    action      text NOT NULL,
    from_status text NOT NULL DEFAULT '',
    to_status   text NOT NULL,
    at          timestamptz NOT NULL,
    actor       text NOT NULL,
    reason      text NOT NULL DEFAULT ''
);

CREATE INDEX seed_transitions_seed ON seed_transitions (seed_id, id);

-- Seeds counted by every filter column but domain_id, kept exact by the
-- seed service in the transaction of each write. A list's total is a sum
-- over the few rows matching its filters, instead of a count over up to
-- every seed on every request.
CREATE TABLE seed_counts (
    country     text COLLATE "C" NOT NULL,
    category    text COLLATE "C" NOT NULL,
    status      text COLLATE "C" NOT NULL,
    source_type text COLLATE "C" NOT NULL,
    fetch_type  text COLLATE "C" NOT NULL,
    n           integer NOT NULL,
    PRIMARY KEY (country, category, status, source_type, fetch_type)
);
