-- Articles (issue 35): every stored page is read back and made an
-- article (internal/article), one row per item, kept like items: the
-- full record in article_json (seedengine.Article, its id aside), the
-- columns beside it what queries filter and order by, and files per
-- partition (article_files) written by the flusher. A page that is not
-- an article has a row too, with its reason in not_article.
CREATE TABLE articles (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    item_id      INTEGER NOT NULL UNIQUE REFERENCES items (id),
    seed_id      TEXT NOT NULL,
    country      TEXT NOT NULL,
    category     TEXT NOT NULL,
    day          TEXT NOT NULL,
    language     TEXT NOT NULL DEFAULT '',
    not_article  TEXT NOT NULL DEFAULT '',
    -- The MinHash signature of the text's word shingles (60 uint32s,
    -- internal/article), NULL for a page that is not an article; its
    -- band keys are in article_bands.
    minhash      BLOB,
    duplicate_of INTEGER,
    extracted_at TEXT NOT NULL,
    file         INTEGER,
    article_json TEXT NOT NULL
);
CREATE INDEX articles_partition ON articles (country, category, day, id);
CREATE INDEX articles_seed ON articles (seed_id, id);

-- Full-text search over title and text: FTS5, contentless (the text is
-- in article_json), rowid the article's id.
CREATE VIRTUAL TABLE articles_fts USING fts5 (title, text, content = '', tokenize = 'unicode61 remove_diacritics 2');

-- The band keys of each article's MinHash signature (internal/article):
-- an earlier article sharing a key with a new one is compared with it.
CREATE TABLE article_bands (
    band_key   INTEGER NOT NULL,
    article_id INTEGER NOT NULL REFERENCES articles (id),
    PRIMARY KEY (band_key, article_id)
) WITHOUT ROWID;

-- Counts per partition, kept as articles are recorded and files written;
-- parquet_articles is how many the partition's Parquet file holds (it is
-- written again when a late article joins a past day).
CREATE TABLE article_partitions (
    country      TEXT NOT NULL,
    category     TEXT NOT NULL,
    day          TEXT NOT NULL,
    articles     INTEGER NOT NULL DEFAULT 0,
    not_articles INTEGER NOT NULL DEFAULT 0,
    duplicates   INTEGER NOT NULL DEFAULT 0,
    filed        INTEGER NOT NULL DEFAULT 0,
    files        INTEGER NOT NULL DEFAULT 0,
    bytes        INTEGER NOT NULL DEFAULT 0,
    oldest_pending_at TEXT,
    parquet_articles  INTEGER NOT NULL DEFAULT 0,
    parquet_bytes     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (country, category, day)
) WITHOUT ROWID;

-- The JSON Lines files of each partition, as item_files.
CREATE TABLE article_files (
    country    TEXT NOT NULL,
    category   TEXT NOT NULL,
    day        TEXT NOT NULL,
    file       INTEGER NOT NULL,
    articles   INTEGER NOT NULL,
    bytes      INTEGER NOT NULL DEFAULT 0,
    first_id   INTEGER NOT NULL,
    last_id    INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    written_at TEXT,
    PRIMARY KEY (country, category, day, file)
) WITHOUT ROWID;
CREATE INDEX article_files_unwritten ON article_files (created_at) WHERE written_at IS NULL;
