-- Liveness results: the history of every probe of every liveness batch, and
-- the latest verdict of each registrable domain. Identifier columns are
-- COLLATE "C" as in 0002, so pages sort alike on both engines.

-- One row per domain per batch: a retried chunk replaces its rows through
-- the unique (batch_id, domain). domain_id is NULL when the input was not
-- tied to a domain_id. verdict is '' for a probe that gave none. result is
-- the full seedengine.LivenessResult.
CREATE TABLE liveness_results (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    batch_id   text COLLATE "C" NOT NULL,
    domain_id  text COLLATE "C",
    domain     text COLLATE "C" NOT NULL,
    verdict    text COLLATE "C" NOT NULL,
    reason     text NOT NULL,
    checked_at timestamptz NOT NULL,
    result     jsonb NOT NULL,
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
    domain     text COLLATE "C" PRIMARY KEY,
    batch_id   text COLLATE "C" NOT NULL,
    verdict    text NOT NULL,
    reason     text NOT NULL,
    detail     text NOT NULL DEFAULT '',
    checked_at timestamptz NOT NULL
);
