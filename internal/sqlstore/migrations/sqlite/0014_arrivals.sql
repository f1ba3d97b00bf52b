-- The pace of a harvest (issue 33): when the items new to each seed's
-- entry arrived over the last days, kept beside the window of its last
-- read. arrivals holds the times as varint deltas in milliseconds from
-- arrivals_since, oldest first; read_at is the last read's time.
ALTER TABLE seed_windows ADD COLUMN arrivals BLOB;
ALTER TABLE seed_windows ADD COLUMN arrivals_since TEXT;
ALTER TABLE seed_windows ADD COLUMN read_at TEXT;
