-- Articles (issue 35): every stored page is read back and made an
-- article (internal/article), one row per item, kept like items: the
-- full record in article_json (seedengine.Article, its id aside), the
-- columns beside it what queries filter and order by, and files per
-- partition (article_files) written by the flusher. A page that is not
-- an article has a row too, with its reason in not_article.
CREATE TABLE articles (
    id           bigserial PRIMARY KEY,
    item_id      bigint NOT NULL UNIQUE REFERENCES items (id),
    seed_id      text COLLATE "C" NOT NULL,
    country      text COLLATE "C" NOT NULL,
    category     text COLLATE "C" NOT NULL,
    day          text COLLATE "C" NOT NULL,
    language     text COLLATE "C" NOT NULL DEFAULT '',
    not_article  text COLLATE "C" NOT NULL DEFAULT '',
    -- The MinHash signature of the text's word shingles (60 uint32s,
    -- internal/article), NULL for a page that is not an article; its
    -- band keys are in article_bands.
    minhash      bytea,
    duplicate_of bigint,
    extracted_at timestamptz NOT NULL,
    file         integer,
    -- Full-text search over title and text ('simple': no stemming, as
    -- SQLite's unicode61), of the text split into the words that
    -- tokenizer finds, accents off; the text cut at 200,000 bytes.
    search       tsvector NOT NULL,
    article_json text NOT NULL
);
CREATE INDEX articles_partition ON articles (country, category, day, id);
CREATE INDEX articles_seed ON articles (seed_id, id);
CREATE INDEX articles_search ON articles USING gin (search);

-- The band keys of each article's MinHash signature (internal/article):
-- an earlier article sharing a key with a new one is compared with it.
CREATE TABLE article_bands (
    band_key   bigint NOT NULL,
    article_id bigint NOT NULL REFERENCES articles (id),
    PRIMARY KEY (band_key, article_id)
);

-- Counts per partition, kept as articles are recorded and files written;
-- parquet_articles is how many the partition's Parquet file holds (it is
-- written again when a late article joins a past day).
CREATE TABLE article_partitions (
    country      text COLLATE "C" NOT NULL,
    category     text COLLATE "C" NOT NULL,
    day          text COLLATE "C" NOT NULL,
    articles     bigint NOT NULL DEFAULT 0,
    not_articles bigint NOT NULL DEFAULT 0,
    duplicates   bigint NOT NULL DEFAULT 0,
    filed        bigint NOT NULL DEFAULT 0,
    files        integer NOT NULL DEFAULT 0,
    bytes        bigint NOT NULL DEFAULT 0,
    oldest_pending_at timestamptz,
    parquet_articles  bigint NOT NULL DEFAULT 0,
    parquet_bytes     bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (country, category, day)
);

-- The JSON Lines files of each partition, as item_files.
CREATE TABLE article_files (
    country    text COLLATE "C" NOT NULL,
    category   text COLLATE "C" NOT NULL,
    day        text COLLATE "C" NOT NULL,
    file       integer NOT NULL,
    articles   integer NOT NULL,
    bytes      bigint NOT NULL DEFAULT 0,
    first_id   bigint NOT NULL,
    last_id    bigint NOT NULL,
    created_at timestamptz NOT NULL,
    written_at timestamptz,
    PRIMARY KEY (country, category, day, file)
);
CREATE INDEX article_files_unwritten ON article_files (created_at) WHERE written_at IS NULL;
