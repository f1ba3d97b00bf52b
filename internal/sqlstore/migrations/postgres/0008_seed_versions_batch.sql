-- The seeds a contract batch recorded a version of (GET /api/v1/seeds
-- ?batch_id=), found without reading every version.
CREATE INDEX seed_versions_batch_id ON seed_versions (batch_id, seed_id);
