-- Operator console sessions (issue 13). id is the hex SHA-256 of the
-- cookie's secret; the secret and the key's token are never stored.
CREATE TABLE console_sessions (
    id         TEXT PRIMARY KEY,
    key_id     TEXT NOT NULL,
    csrf       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    seen_at    TEXT NOT NULL,
    expires_at TEXT NOT NULL
);

-- The cleanup deletes by either limit.
CREATE INDEX console_sessions_expires_at ON console_sessions (expires_at);
CREATE INDEX console_sessions_seen_at ON console_sessions (seen_at);
