-- Review at scale (issue 23): a draft can be rejected (status rejected,
-- with a reason code in its transition) and reopened; lists search by
-- domain or name and sort by domain, confidence or age.

ALTER TABLE seeds DROP CONSTRAINT seeds_status_check;
ALTER TABLE seeds ADD CONSTRAINT seeds_status_check CHECK (status IN ('draft', 'active', 'suspended', 'rejected', 'archived'));

-- A transition's reason from the short list (seedengine.RejectReasons);
-- reason stays the free text.
ALTER TABLE seed_transitions ADD COLUMN reason_code text NOT NULL DEFAULT '';

-- The seed's registrable domain (sorting) and its domain and source name
-- in lower case (searching), copies of source_json like the other filter
-- columns.
ALTER TABLE seeds ADD COLUMN domain text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE seeds ADD COLUMN search text NOT NULL DEFAULT '';
UPDATE seeds SET domain = source_json->>'domain',
    search = lower((source_json->>'domain') || ' ' || coalesce(source_json->>'name', ''));

-- A reviewer's lists: drafts by confidence, age or domain.
CREATE INDEX seeds_status_confidence ON seeds (status, confidence, seed_id);
CREATE INDEX seeds_status_created ON seeds (status, created_at, seed_id);
CREATE INDEX seeds_status_domain ON seeds (status, domain, seed_id);
