-- Steps of multi-stage batches (an orchestration batch's file chunks spawn
-- its domain chunks). item_key names what a chunk works on within its step;
-- a batch holds at most one chunk per step and non-empty key, which is what
-- lets a retried file chunk spawn the same domains again without adding
-- them twice. Existing chunks keep '' for both and stay outside the index.
-- Both columns are COLLATE "C" as in 0002: keys compare byte by byte, as on
-- SQLite.
ALTER TABLE batch_chunks
    ADD COLUMN step     text COLLATE "C" NOT NULL DEFAULT '',
    ADD COLUMN item_key text COLLATE "C" NOT NULL DEFAULT '';

CREATE UNIQUE INDEX batch_chunks_step_key ON batch_chunks (batch_id, step, item_key) WHERE item_key <> '';
