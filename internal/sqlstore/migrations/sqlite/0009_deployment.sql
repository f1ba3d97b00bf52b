-- Scale-out (issue 14). The worker processes of the job queue and their
-- heartbeats: a process whose heartbeat stops is taken for dead, and its running jobs
-- are made available again by the others without waiting for River's
-- rescuer. Times are Unix milliseconds, the same on both engines.
CREATE TABLE queue_processes (
    id         TEXT PRIMARY KEY, -- the River client id, as in river_job.attempted_by
    host       TEXT NOT NULL,
    pid        BIGINT NOT NULL,
    started_ms BIGINT NOT NULL,
    seen_ms    BIGINT NOT NULL
);

CREATE INDEX queue_processes_seen_ms ON queue_processes (seen_ms);

-- The settings every working process must share (the metadata remote, the
-- job timeouts, what decides fetch verdicts), as the first process or the
-- last one started with --record-settings recorded them. A process whose
-- own differ refuses to start.
CREATE TABLE deployment_settings (
    name        TEXT PRIMARY KEY,
    value       TEXT NOT NULL, -- shown in errors; redacted for secrets
    digest      TEXT NOT NULL, -- SHA-256 of the value, what is compared
    recorded_by TEXT NOT NULL,
    recorded_ms BIGINT NOT NULL
);
