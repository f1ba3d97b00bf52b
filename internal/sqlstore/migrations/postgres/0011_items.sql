-- Harvested items (issue 22): every article URL an active seed's entry
-- lists becomes one item the first time it is seen. An item's full record
-- is item_json (seedengine.Item, its id aside); the columns beside it are
-- what queries filter and order by.

-- The dedupe window: one row per normalized URL seen, by a 16-byte key
-- (4 bytes of its host's SHA-256, 12 of its own: one site's URLs side by
-- side), with the last read that listed it. Rows not seen
-- for the window are pruned, so the table holds what the entries list
-- now, not everything ever seen.
CREATE TABLE harvest_seen (
    url_key bytea PRIMARY KEY,
    seen_at timestamptz NOT NULL
);
CREATE INDEX harvest_seen_at ON harvest_seen (seen_at);

-- The items, in first-seen order: ids are taken under a transaction
-- lock (sqlstore's recordItems), so they commit in id order and a cursor
-- (GET /api/v1/items?since=) never skips one committed late.
CREATE TABLE items (
    id            bigserial PRIMARY KEY,
    country       text COLLATE "C" NOT NULL,
    category      text COLLATE "C" NOT NULL,
    day           text COLLATE "C" NOT NULL,
    seed_id       text COLLATE "C" NOT NULL,
    domain_id     text COLLATE "C" NOT NULL,
    first_seen_at timestamptz NOT NULL,
    file          integer,
    item_json     text NOT NULL
);
CREATE INDEX items_partition ON items (country, category, day, id);
CREATE INDEX items_seed ON items (seed_id, id);

-- Counts per partition, kept as items are recorded and files written.
CREATE TABLE item_partitions (
    country  text COLLATE "C" NOT NULL,
    category text COLLATE "C" NOT NULL,
    day      text COLLATE "C" NOT NULL,
    items    bigint NOT NULL DEFAULT 0,
    filed    bigint NOT NULL DEFAULT 0,
    files    integer NOT NULL DEFAULT 0,
    bytes    bigint NOT NULL DEFAULT 0,
    oldest_pending_at timestamptz,
    PRIMARY KEY (country, category, day)
);

-- The files of each partition: a file's items are fixed when the row is
-- made (items.file), then the object is written and written_at set.
CREATE TABLE item_files (
    country    text COLLATE "C" NOT NULL,
    category   text COLLATE "C" NOT NULL,
    day        text COLLATE "C" NOT NULL,
    file       integer NOT NULL,
    items      integer NOT NULL,
    bytes      bigint NOT NULL DEFAULT 0,
    first_id   bigint NOT NULL,
    last_id    bigint NOT NULL,
    created_at timestamptz NOT NULL,
    written_at timestamptz,
    PRIMARY KEY (country, category, day, file)
);
CREATE INDEX item_files_unwritten ON item_files (created_at) WHERE written_at IS NULL;

-- What each seed's last read listed (the 16-byte keys of its items, at
-- most 2,000): how many items of a read are new to the seed, which the
-- pace goes by, whatever other seeds recorded first.
CREATE TABLE seed_windows (
    seed_id text COLLATE "C" PRIMARY KEY,
    url_keys bytea NOT NULL
);

-- Running counts of the harvest for metrics, in 16 rows a read picks by
-- its seed, so concurrent reads seldom wait on one row.
CREATE TABLE harvest_counts (
    shard       integer PRIMARY KEY,
    reads       bigint NOT NULL DEFAULT 0,
    items       bigint NOT NULL DEFAULT 0,
    gaps        bigint NOT NULL DEFAULT 0,
    dedupe_hits bigint NOT NULL DEFAULT 0
);
