package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/seedengine/seedengine"
)

// Articles (internal/article): each stored page's article, recorded by
// its article_extract job (RecordArticle), read by the API, written to
// files by the flusher and to Parquet once its day is over.

// ArticleService keeps the articles.
type ArticleService struct {
	db *DB
}

var _ seedengine.ArticleService = (*ArticleService)(nil)

// NewArticleService returns an ArticleService on db.
func NewArticleService(db *DB) *ArticleService { return &ArticleService{db: db} }

// articlesLock is the PostgreSQL advisory lock a transaction holds from
// taking an article id until it commits, so ids commit in order (the
// cursor's promise) and a copy's lookup of its original sees every
// article recorded before it.
const articlesLock = 0x5eedA271

// searchTextLimit bounds the bytes of text PostgreSQL indexes for search
// (a tsvector holds at most 1 MB).
const searchTextLimit = 200_000

// HasArticle reports whether an item's article is recorded.
func (s *ArticleService) HasArticle(ctx context.Context, itemID int64) (bool, error) {
	var one int
	err := s.db.reader.QueryRowContext(ctx, `SELECT 1 FROM articles WHERE item_id = $1`, itemID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("find article of item %d: %w", itemID, err)
	}
	return true, nil
}

// RecordArticle records a's article (a.ItemID's), setting a.ID and, when
// an earlier article's text is a copy of its own by copies (the first of
// the group: DuplicateOf), a.DuplicateOf. It reports false, changing
// nothing, when the item's article is already recorded (a job run twice).
func (s *ArticleService) RecordArticle(ctx context.Context, a *seedengine.Article, copies seedengine.CopyKey) (bool, error) {
	recorded := false
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		if s.db.engine == EnginePostgres {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(articlesLock)); err != nil {
				return err
			}
		}
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM articles WHERE item_id = $1`, a.ItemID).Scan(&one)
		if err == nil {
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		isArticle := a.NotArticle == ""
		grouped := isArticle && len(copies.Signature) > 0 && len(copies.Bands) > 0 && copies.Same != nil
		a.DuplicateOf = 0
		if grouped {
			if a.DuplicateOf, err = s.original(ctx, tx, copies); err != nil {
				return err
			}
		}
		body, err := json.Marshal(articleRecord(*a))
		if err != nil {
			return err
		}
		var dup, sig any
		if a.DuplicateOf != 0 {
			dup = a.DuplicateOf
		}
		if grouped {
			sig = copies.Signature
		}
		cols := `item_id, seed_id, country, category, day, language, not_article, minhash, duplicate_of, extracted_at, article_json`
		vals := `$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11`
		args := []any{a.ItemID, a.SeedID, a.Country, a.Category, a.Date, a.Language, a.NotArticle, sig, dup,
			s.db.timeArg(a.ExtractedAt), string(body)}
		if s.db.engine == EnginePostgres {
			cols += `, search`
			vals += `, setweight(to_tsvector('simple', $12), 'A') || to_tsvector('simple', $13)`
			args = append(args, articleSearchText(a.Title), articleSearchText(clip(a.Text, searchTextLimit)))
		}
		if err := tx.QueryRowContext(ctx, `INSERT INTO articles (`+cols+`) VALUES (`+vals+`) RETURNING id`, args...).Scan(&a.ID); err != nil {
			return err
		}
		if s.db.engine == EngineSQLite {
			if _, err := tx.ExecContext(ctx, `INSERT INTO articles_fts (rowid, title, text) VALUES ($1, $2, $3)`, a.ID, a.Title, a.Text); err != nil {
				return err
			}
		}
		if grouped {
			var b strings.Builder
			b.WriteString(`INSERT INTO article_bands (band_key, article_id) VALUES `)
			s.db.valueRows(&b, len(copies.Bands), 2, 0)
			bandArgs := make([]any, 0, 2*len(copies.Bands))
			for _, k := range copies.Bands {
				bandArgs = append(bandArgs, k, a.ID)
			}
			b.WriteString(` ON CONFLICT DO NOTHING`)
			if _, err := tx.ExecContext(ctx, b.String(), bandArgs...); err != nil {
				return err
			}
		}
		notArticle, duplicate := 0, 0
		if !isArticle {
			notArticle = 1
		}
		if a.DuplicateOf != 0 {
			duplicate = 1
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO article_partitions (country, category, day, articles, not_articles, duplicates, oldest_pending_at)
			VALUES ($1, $2, $3, 1, $4, $5, $6)
			ON CONFLICT (country, category, day) DO UPDATE SET articles = article_partitions.articles + 1,
				not_articles = article_partitions.not_articles + excluded.not_articles,
				duplicates = article_partitions.duplicates + excluded.duplicates,
				oldest_pending_at = COALESCE(article_partitions.oldest_pending_at, excluded.oldest_pending_at)`,
			a.Country, a.Category, a.Date, notArticle, duplicate, s.db.timeArg(a.ExtractedAt)); err != nil {
			return err
		}
		recorded = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("record article of item %d: %w", a.ItemID, err)
	}
	return recorded, nil
}

// maxCopyCandidates bounds the earlier articles a new one's bands bring
// to compare: the first ones, which hold the originals.
const maxCopyCandidates = 1000

// original returns the first article of the group whose text copies
// matches (0 when none): of the articles sharing a band key with it,
// those whose signature is the same text, each standing for its own
// original.
func (s *ArticleService) original(ctx context.Context, tx *sql.Tx, copies seedengine.CopyKey) (int64, error) {
	ph := make([]string, len(copies.Bands))
	args := make([]any, len(copies.Bands))
	for i, k := range copies.Bands {
		ph[i], args[i] = "$"+strconv.Itoa(i+1), k
	}
	rows, err := tx.QueryContext(ctx, `SELECT a.id, a.minhash, COALESCE(a.duplicate_of, 0) FROM articles a
		WHERE a.id IN (SELECT article_id FROM article_bands WHERE band_key IN (`+strings.Join(ph, ",")+`))
		ORDER BY a.id LIMIT `+strconv.Itoa(maxCopyCandidates), args...)
	if err != nil {
		return 0, fmt.Errorf("find copies: %w", err)
	}
	defer func() { _ = rows.Close() }()
	var best int64
	for rows.Next() {
		var id, of int64
		var sig []byte
		if err := rows.Scan(&id, &sig, &of); err != nil {
			return 0, fmt.Errorf("find copies: %w", err)
		}
		if !copies.Same(copies.Signature, sig) {
			continue
		}
		if of == 0 {
			of = id
		}
		if best == 0 || of < best {
			best = of
		}
	}
	return best, rows.Err()
}

// articleRecord is an article as article_json keeps it: without its id,
// which is the row's.
func articleRecord(a seedengine.Article) seedengine.Article {
	a.ID = 0
	return a
}

// clip cuts s to at most n bytes, at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// FindArticles implements seedengine.ArticleService.
func (s *ArticleService) FindArticles(ctx context.Context, f seedengine.ArticleFilter) ([]seedengine.Article, error) {
	if f.Limit <= 0 || f.Limit > seedengine.MaxArticlesPage {
		return nil, seedengine.FieldErrorf("limit", "limit must be between 1 and %d", seedengine.MaxArticlesPage)
	}
	where := []string{"a.id > $1"}
	args := []any{f.Since}
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "?", "$"+strconv.Itoa(len(args))))
	}
	for _, c := range []struct{ col, v string }{{"country", f.Country}, {"category", f.Category}, {"day", f.Date},
		{"seed_id", f.SeedID}, {"language", f.Language}} {
		if c.v != "" {
			add("a."+c.col+" = ?", c.v)
		}
	}
	if !f.NotArticles {
		where = append(where, "a.not_article = ''")
	}
	if f.Query != "" {
		q, err := seedengine.ParseSearch(f.Query)
		if err != nil {
			return nil, err
		}
		if s.db.engine == EnginePostgres {
			add("a.search @@ to_tsquery('simple', ?)", tsQuery(q))
		} else {
			add("a.id IN (SELECT rowid FROM articles_fts WHERE articles_fts MATCH ?)", fts5Query(q))
		}
	}
	rows, err := s.db.reader.QueryContext(ctx, `SELECT a.id, a.article_json FROM articles a WHERE `+strings.Join(where, " AND ")+
		` ORDER BY a.id LIMIT `+strconv.Itoa(f.Limit), args...)
	if err != nil {
		return nil, fmt.Errorf("find articles: %w", err)
	}
	defer func() { _ = rows.Close() }()
	out := []seedengine.Article{}
	for rows.Next() {
		a, err := scanArticle(rows)
		if err != nil {
			return nil, fmt.Errorf("find articles: %w", err)
		}
		out = append(out, *a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find articles: %w", err)
	}
	return out, nil
}

func scanArticle(row rowScanner) (*seedengine.Article, error) {
	var id int64
	var body string
	if err := row.Scan(&id, &body); err != nil {
		return nil, err
	}
	var a seedengine.Article
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		return nil, fmt.Errorf("article %d: %w", id, err)
	}
	a.ID = id
	return &a, nil
}

// FindItemArticle implements seedengine.ArticleService.
func (s *ArticleService) FindItemArticle(ctx context.Context, itemID int64) (*seedengine.Article, error) {
	a, err := scanArticle(s.db.reader.QueryRowContext(ctx, `SELECT id, article_json FROM articles WHERE item_id = $1`, itemID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, seedengine.Errorf(seedengine.ENOTFOUND,
			"item %d has no article (its seed does not fetch pages, its page is not stored yet, or no such item)", itemID)
	}
	if err != nil {
		return nil, fmt.Errorf("find article of item %d: %w", itemID, err)
	}
	return a, nil
}

// ArticleStats implements seedengine.ArticleService.
func (s *ArticleService) ArticleStats(ctx context.Context) (seedengine.ArticleStats, error) {
	var st seedengine.ArticleStats
	var all, stored int
	err := s.db.readTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(articles), 0), COALESCE(SUM(not_articles), 0), COALESCE(SUM(duplicates), 0),
			COALESCE(SUM(files), 0), COALESCE(SUM(bytes), 0) FROM article_partitions`).
			Scan(&all, &st.NotArticles, &st.Duplicates, &st.Files, &st.Bytes); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM pages WHERE state = 'stored'`).Scan(&stored)
	})
	if err != nil {
		return st, fmt.Errorf("count articles: %w", err)
	}
	st.Articles = all - st.NotArticles
	st.Pending = max(stored-all, 0)
	return st, nil
}

// Files are the article files as the flusher sees them.
func (s *ArticleService) Files() Files {
	return Files{set: articleSet.on(s.db), record: func(id int64, body string) (any, error) {
		// The stored JSON with the row's id first, as the API gives it.
		var a seedengine.Article
		if err := json.Unmarshal([]byte(body), &a); err != nil {
			return nil, err
		}
		a.ID = id
		return a, nil
	}}
}

// FindArticleFiles implements seedengine.ArticleService.
func (s *ArticleService) FindArticleFiles(ctx context.Context, p seedengine.Partition) ([]seedengine.ArticleFile, error) {
	files, err := articleSet.on(s.db).partitionFiles(ctx, p)
	if err != nil {
		return nil, err
	}
	out := make([]seedengine.ArticleFile, 0, len(files)+1)
	for _, f := range files {
		out = append(out, seedengine.ArticleFile{Partition: f.Partition, Format: seedengine.ArticleFileJSONL, File: f.File,
			Articles: f.Items, Bytes: f.Bytes, FirstID: f.FirstID, LastID: f.LastID, Written: f.WrittenAt != nil, WrittenAt: f.WrittenAt})
	}
	// The Parquet file is there once it holds any article (an object
	// written again is replaced whole: the one stored stays readable).
	var n int
	var bytes int64
	err = s.db.reader.QueryRowContext(ctx, `SELECT parquet_articles, parquet_bytes FROM article_partitions
		WHERE country = $1 AND category = $2 AND day = $3`, p.Country, p.Category, p.Date).Scan(&n, &bytes)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("find article files: %w", err)
	}
	if n > 0 {
		out = append(out, seedengine.ArticleFile{Partition: p, Format: seedengine.ArticleFileParquet, Articles: n, Bytes: bytes, Written: true})
	}
	return out, nil
}

// ArticlesOfPartition calls fn with partition p's articles (and pages that
// are not articles) in ID order, reading in pages so memory stays flat.
func (s *ArticleService) ArticlesOfPartition(ctx context.Context, p seedengine.Partition, fn func(*seedengine.Article) error) error {
	var after int64
	for {
		rows, err := s.db.reader.QueryContext(ctx, `SELECT id, article_json FROM articles
			WHERE country = $1 AND category = $2 AND day = $3 AND id > $4 ORDER BY id LIMIT 500`, p.Country, p.Category, p.Date, after)
		if err != nil {
			return fmt.Errorf("read a partition's articles: %w", err)
		}
		var page []*seedengine.Article
		for rows.Next() {
			a, err := scanArticle(rows)
			if err != nil {
				_ = rows.Close()
				return fmt.Errorf("read a partition's articles: %w", err)
			}
			page = append(page, a)
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("read a partition's articles: %w", err)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read a partition's articles: %w", err)
		}
		for _, a := range page {
			if err := fn(a); err != nil {
				return err
			}
			after = a.ID
		}
		if len(page) < 500 {
			return nil
		}
	}
}

// ParquetDue lists up to limit partitions of days before today whose
// articles are all in written files and whose Parquet file does not hold
// them all (none written yet, or late articles joined), with how many
// articles each holds.
func (s *ArticleService) ParquetDue(ctx context.Context, today string, limit int) ([]seedengine.Partition, error) {
	rows, err := s.db.reader.QueryContext(ctx, `SELECT p.country, p.category, p.day FROM article_partitions p
		WHERE p.day < $1 AND p.articles > p.parquet_articles AND p.filed = p.articles
		AND NOT EXISTS (SELECT 1 FROM article_files f WHERE f.country = p.country AND f.category = p.category AND f.day = p.day
			AND f.written_at IS NULL)
		ORDER BY p.day, p.country, p.category LIMIT `+strconv.Itoa(limit), today)
	if err != nil {
		return nil, fmt.Errorf("find parquet due: %w", err)
	}
	defer func() { _ = rows.Close() }()
	var out []seedengine.Partition
	for rows.Next() {
		var p seedengine.Partition
		if err := rows.Scan(&p.Country, &p.Category, &p.Date); err != nil {
			return nil, fmt.Errorf("find parquet due: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// MarkParquetWritten records that partition p's Parquet file holds its
// first n articles, bytes long.
func (s *ArticleService) MarkParquetWritten(ctx context.Context, p seedengine.Partition, n, bytes int64) error {
	if _, err := s.db.writer.ExecContext(ctx, `UPDATE article_partitions SET parquet_articles = $4, parquet_bytes = $5
		WHERE country = $1 AND category = $2 AND day = $3`, p.Country, p.Category, p.Date, n, bytes); err != nil {
		return fmt.Errorf("mark parquet written: %w", err)
	}
	return nil
}

// QueueMissing finds the stored pages that have no article, in item
// order, and calls queue with each batch of up to 1,000 of their item IDs
// in a transaction of its own (the queue's QueueArticleExtractsTx, whose
// jobs are unique: a page whose job still waits is not queued twice). It
// stops once it has passed on limit or more (whole batches) and returns
// how many it passed on.
// What it finds: pages whose job was discarded after its attempts, and
// pages stored before articles were extracted.
func (s *ArticleService) QueueMissing(ctx context.Context, limit int, queue func(context.Context, *sql.Tx, []int64) error) (int, error) {
	var after int64
	total := 0
	for total < limit {
		ids, err := queryIDs(ctx, s.db.reader, `SELECT p.item_id FROM pages p WHERE p.state = 'stored' AND p.item_id > $1
			AND NOT EXISTS (SELECT 1 FROM articles a WHERE a.item_id = p.item_id) ORDER BY p.item_id LIMIT 1000`, after)
		if err != nil {
			return total, fmt.Errorf("find pages without an article: %w", err)
		}
		if len(ids) == 0 {
			return total, nil
		}
		if err := s.db.inTx(ctx, func(tx *sql.Tx) error { return queue(ctx, tx, ids) }); err != nil {
			return total, fmt.Errorf("queue pages without an article: %w", err)
		}
		total += len(ids)
		after = ids[len(ids)-1]
		if len(ids) < 1000 {
			break
		}
	}
	return total, nil
}
