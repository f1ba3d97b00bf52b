-- Review at scale (issue 23): a draft can be rejected (status rejected,
-- with a reason code in its transition) and reopened; lists search by
-- domain or name and sort by domain, confidence or age.

-- A transition's reason from the short list (seedengine.RejectReasons);
-- reason stays the free text.
ALTER TABLE seed_transitions ADD COLUMN reason_code TEXT NOT NULL DEFAULT '';

-- The seed's registrable domain (sorting) and its domain and source name
-- in lower case (searching), copies of source_json like the other filter
-- columns.
ALTER TABLE seeds ADD COLUMN domain TEXT NOT NULL DEFAULT '';
ALTER TABLE seeds ADD COLUMN search TEXT NOT NULL DEFAULT '';
UPDATE seeds SET domain = json_extract(source_json, '$.domain'),
    search = lower(json_extract(source_json, '$.domain') || ' ' || coalesce(json_extract(source_json, '$.name'), ''));

-- A reviewer's lists: drafts by confidence, age or domain.
CREATE INDEX seeds_status_confidence ON seeds (status, confidence, seed_id);
CREATE INDEX seeds_status_created ON seeds (status, created_at, seed_id);
CREATE INDEX seeds_status_domain ON seeds (status, domain, seed_id);

-- The status CHECK gains 'rejected'. SQLite cannot alter a CHECK; a
-- rebuild of seeds would trip the foreign keys of its child tables
-- inside this transaction, so the table's stored definition is edited in
-- place, which SQLite documents as safe for loosening a CHECK (no stored
-- row changes). The migrator bumps schema_version and turns
-- writable_schema off after this file (see applyMigration).
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql, '''suspended'', ''archived'')', '''suspended'', ''rejected'', ''archived'')')
    WHERE type = 'table' AND name = 'seeds';
