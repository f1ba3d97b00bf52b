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
    url_key BLOB PRIMARY KEY,
    seen_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX harvest_seen_at ON harvest_seen (seen_at);

-- The items, in first-seen order. AUTOINCREMENT: an id is never reused,
-- so a cursor (GET /api/v1/items?since=) never sees an old id twice.
CREATE TABLE items (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    country       TEXT NOT NULL,
    category      TEXT NOT NULL,
    day           TEXT NOT NULL,
    seed_id       TEXT NOT NULL,
    domain_id     TEXT NOT NULL,
    first_seen_at TEXT NOT NULL,
    file          INTEGER,
    item_json     TEXT NOT NULL
);
CREATE INDEX items_partition ON items (country, category, day, id);
CREATE INDEX items_seed ON items (seed_id, id);

-- Counts per partition, kept as items are recorded and files written.
CREATE TABLE item_partitions (
    country  TEXT NOT NULL,
    category TEXT NOT NULL,
    day      TEXT NOT NULL,
    items    INTEGER NOT NULL DEFAULT 0,
    filed    INTEGER NOT NULL DEFAULT 0,
    files    INTEGER NOT NULL DEFAULT 0,
    bytes    INTEGER NOT NULL DEFAULT 0,
    oldest_pending_at TEXT,
    PRIMARY KEY (country, category, day)
) WITHOUT ROWID;

-- The files of each partition: a file's items are fixed when the row is
-- made (items.file), then the object is written and written_at set.
CREATE TABLE item_files (
    country    TEXT NOT NULL,
    category   TEXT NOT NULL,
    day        TEXT NOT NULL,
    file       INTEGER NOT NULL,
    items      INTEGER NOT NULL,
    bytes      INTEGER NOT NULL DEFAULT 0,
    first_id   INTEGER NOT NULL,
    last_id    INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    written_at TEXT,
    PRIMARY KEY (country, category, day, file)
) WITHOUT ROWID;
CREATE INDEX item_files_unwritten ON item_files (created_at) WHERE written_at IS NULL;

-- What each seed's last read listed (the 16-byte keys of its items, at
-- most 2,000): how many items of a read are new to the seed, which the
-- pace goes by, whatever other seeds recorded first.
CREATE TABLE seed_windows (
    seed_id TEXT PRIMARY KEY,
    url_keys BLOB NOT NULL
) WITHOUT ROWID;

-- Running counts of the harvest for metrics, in 16 rows a read picks by
-- its seed, so concurrent reads seldom wait on one row.
CREATE TABLE harvest_counts (
    shard       integer PRIMARY KEY,
    reads       INTEGER NOT NULL DEFAULT 0,
    items       INTEGER NOT NULL DEFAULT 0,
    gaps        INTEGER NOT NULL DEFAULT 0,
    dedupe_hits INTEGER NOT NULL DEFAULT 0
);
