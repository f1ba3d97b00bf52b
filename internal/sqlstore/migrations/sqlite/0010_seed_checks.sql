-- Checks of promoted seeds (issue 15): every look at a seed's entry, and
-- the seed's health derived from them. A check's full record is
-- check_json (seedengine.SeedCheck); the columns beside it are what
-- queries filter and order by.
CREATE TABLE seed_checks (
    id         INTEGER PRIMARY KEY,
    seed_id    TEXT NOT NULL REFERENCES seeds (seed_id),
    checked_at TEXT NOT NULL,
    outcome    TEXT NOT NULL,
    check_json TEXT NOT NULL
);

-- A seed's checks, newest first (paged by id); retention by time.
CREATE INDEX seed_checks_seed ON seed_checks (seed_id, id DESC);
CREATE INDEX seed_checks_checked_at ON seed_checks (checked_at);

-- One row per checked seed: its health and when it is next due.
CREATE TABLE seed_health (
    seed_id              TEXT PRIMARY KEY REFERENCES seeds (seed_id),
    state                TEXT NOT NULL,
    since                TEXT,
    reason               TEXT NOT NULL DEFAULT '',
    last_check_at        TEXT,
    success_rate_7d      REAL NOT NULL DEFAULT 0,
    median_items_per_day REAL NOT NULL DEFAULT 0,
    next_check_at        TEXT NOT NULL,
    updated_at           TEXT NOT NULL
) WITHOUT ROWID;

CREATE INDEX seed_health_next ON seed_health (next_check_at);
CREATE INDEX seed_health_state ON seed_health (state, seed_id);
