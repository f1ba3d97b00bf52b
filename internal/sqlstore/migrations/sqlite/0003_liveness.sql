-- Liveness results: the history of every probe of every liveness batch, and
-- the latest verdict of each registrable domain.

-- One row per domain per batch: a retried chunk replaces its rows through
-- the unique (batch_id, domain). domain_id is NULL when the input was not
-- tied to a domain_id. verdict is '' for a probe that gave none. result is
-- the full seedengine.LivenessResult as JSON.
CREATE TABLE liveness_results (
    id         INTEGER PRIMARY KEY,
    batch_id   TEXT NOT NULL,
    domain_id  TEXT,
    domain     TEXT NOT NULL,
    verdict    TEXT NOT NULL,
    reason     TEXT NOT NULL,
    checked_at TEXT NOT NULL,
    result     TEXT NOT NULL,
    UNIQUE (batch_id, domain)
);

-- Results of a batch are paged in domain order, filtered by verdict.
CREATE INDEX liveness_results_batch_verdict ON liveness_results (batch_id, verdict, domain);
-- The history of one domain.
CREATE INDEX liveness_results_domain ON liveness_results (domain, checked_at);

-- The latest verdict per registrable domain. Keyed by the domain rather
-- than a column of domains: a batch may probe domains the registry does
-- not hold, and one registrable domain may be registered under several
-- domain_ids (countries), which all show the same site's liveness.
CREATE TABLE domain_liveness (
    domain     TEXT PRIMARY KEY,
    batch_id   TEXT NOT NULL,
    verdict    TEXT NOT NULL,
    reason     TEXT NOT NULL,
    detail     TEXT NOT NULL DEFAULT '',
    checked_at TEXT NOT NULL
) WITHOUT ROWID;
