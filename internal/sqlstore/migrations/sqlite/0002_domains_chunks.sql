-- The domain registry and the dataset chunk index. Partition dates are TEXT
-- (YYYY-MM-DD) on both engines: they compare and range as text, and the
-- store hands them back exactly as they came in.

CREATE TABLE domains (
    domain_id          TEXT PRIMARY KEY,
    registrable_domain TEXT NOT NULL,
    authority          TEXT NOT NULL,
    authority_rule     TEXT NOT NULL DEFAULT '',
    source_type        TEXT NOT NULL,
    country            TEXT NOT NULL,
    first_seen         TEXT NOT NULL,
    last_seen          TEXT NOT NULL,
    -- Kept equal to the domain's rows in domain_partitions by
    -- RegisterDomains, so lists need no join to show it.
    partition_count    INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

-- Lists page in domain_id order. A domain_id starts with its authority
-- ("gov:sg:mom.gov.sg"), so the primary key also serves the authority
-- filter as a prefix range, and authority and country together as a
-- longer one; only the country alone needs an index.
CREATE INDEX domains_country_id ON domains (country, domain_id);

-- The primary key serves "partitions of a domain"; the index serves
-- "domains of a partition" (lists, counts, the authorities breakdown).
-- There is no foreign key to domains: RegisterDomains writes a link and its
-- domain in one transaction (the link first, to learn whether it is new),
-- nothing deletes domains, and a per-row check would add a lookup (a
-- trigger on PostgreSQL) to each of the thousands of links a research
-- chunk writes.
CREATE TABLE domain_partitions (
    domain_id  TEXT NOT NULL,
    country    TEXT NOT NULL,
    category   TEXT NOT NULL,
    date       TEXT NOT NULL,
    first_seen TEXT NOT NULL,
    PRIMARY KEY (domain_id, country, category, date)
) WITHOUT ROWID;

CREATE INDEX domain_partitions_partition ON domain_partitions (country, category, date, domain_id);

-- One row per raw chunk. A row with an empty key is a placeholder that
-- ReserveChunk wrote for a chunk being written; IndexChunk fills it in.
-- The primary key's order serves partition lookups, prefix filters
-- (country, category) and the highest chunk of a partition.
CREATE TABLE dataset_chunks (
    country    TEXT NOT NULL,
    category   TEXT NOT NULL,
    date       TEXT NOT NULL,
    chunk      INTEGER NOT NULL CHECK (chunk >= 1),
    key        TEXT NOT NULL DEFAULT '',
    bytes      INTEGER NOT NULL DEFAULT 0 CHECK (bytes >= 0),
    records    INTEGER NOT NULL DEFAULT -1 CHECK (records >= -1), -- -1: not known
    completed  INTEGER NOT NULL DEFAULT 0 CHECK (completed IN (0, 1)),
    origin     TEXT,
    mod_time   TEXT,
    indexed_at TEXT NOT NULL,
    PRIMARY KEY (country, category, date, chunk)
) WITHOUT ROWID;

-- An origin ("batch:{id}:{chunk}") names at most one chunk: that is what
-- makes a retried write land on the chunk its first attempt reserved.
CREATE UNIQUE INDEX dataset_chunks_origin ON dataset_chunks (origin) WHERE origin IS NOT NULL;
