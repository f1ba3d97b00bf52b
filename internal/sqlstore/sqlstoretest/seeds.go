package sqlstoretest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
)

var seedCountries = []string{"sg", "jp", "fr", "de", "us", "gb", "br", "in", "id", "my", "th", "vn", "ph", "au", "nz", "ca", "mx", "es", "it", "intl"}

// FillSeeds writes n seeds (ids gov:sg:site000000.example::news and on) spread over 20 countries, 5 categories, 8
// authorities, 7 fetch types and 4 statuses (60% draft, 30% active, 5%
// suspended, 5% archived) straight into the tables, in one transaction:
// through CreateSeed it would take 100,000 transactions.
func FillSeeds(b testing.TB, db *sqlstore.DB, n int) {
	b.Helper()
	ctx := context.Background()
	authorities := []seedengine.Authority{"gov", "mil", "edu", "ngo", "org", "media", "com", "other"}
	categories := []string{"news", "policy", "press_release", "statistics", "events"}
	fetchTypes := []seedengine.FetchType{"rss", "atom", "json_feed", "news_sitemap", "sitemap", "html", "api"}
	now := time.Now().UTC()
	ts := func(t time.Time) any {
		if db.Engine() == sqlstore.EngineSQLite {
			return t.Format("2006-01-02T15:04:05.000000Z")
		}
		return t
	}
	tx, err := db.Writer().BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	seedStmt, err := tx.PrepareContext(ctx, `INSERT INTO seeds (seed_id, domain_id, country, category, content_type,
		source_type, fetch_type, status, version, proposed_version, confidence, source_json, fetch_json, policy_json,
		evidence_json, metadata_json, created_at, updated_at, promoted_at)
		VALUES ($1, $2, $3, $4, 'news', $5, $6, $7, 1, 0, 0.8, $8, $9, $10, $11, $12, $13, $13, NULL)`)
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		a := authorities[i%len(authorities)]
		country := seedCountries[(i/7)%len(seedCountries)]
		domain := fmt.Sprintf("site%06d.example", i)
		domainID := seedengine.DomainID(a, country, domain)
		status := seedengine.SeedDraft
		switch r := (i * 7919) % 100; {
		case r < 30:
			status = seedengine.SeedActive
		case r < 35:
			status = seedengine.SeedSuspended
		case r < 40:
			status = seedengine.SeedArchived
		}
		ft := fetchTypes[(i/3)%len(fetchTypes)]
		sd := seedengine.Seed{
			Source: seedengine.SeedSource{Domain: domain, Name: "Site " + domain, SourceType: seedengine.SourceType(a.SourceType())},
			Fetch:  seedengine.SeedFetch{Type: ft, EntryURL: "https://www." + domain + "/feed.xml", Schedule: "@hourly"},
			Policy: seedengine.SeedPolicy{RobotsURL: "https://www." + domain + "/robots.txt", CrawlAllowed: true},
			Evidence: seedengine.SeedEvidence{Key: "prod/contracts/" + domain + "/2026-01-28T101500Z.json",
				Method: string(ft) + " via link_alternate", Candidates: 6, Items: 20, CheckedAt: &now},
		}
		docs := make([]any, 4)
		for j, v := range []any{sd.Source, sd.Fetch, sd.Policy, sd.Evidence} {
			raw, err := json.Marshal(v)
			if err != nil {
				b.Fatal(err)
			}
			docs[j] = string(raw)
		}
		if _, err := seedStmt.ExecContext(ctx, seedengine.SeedID(domainID, "news"), domainID, country,
			categories[(i/11)%len(categories)], a.SourceType(), string(ft), string(status),
			docs[0], docs[1], docs[2], docs[3], `{"owner":"bench"}`, ts(now)); err != nil {
			b.Fatal(err)
		}
	}
	_ = seedStmt.Close()
	if _, err := tx.ExecContext(ctx, `INSERT INTO seed_counts (country, category, status, source_type, fetch_type, n)
		SELECT country, category, status, source_type, fetch_type, COUNT(*) FROM seeds
		GROUP BY country, category, status, source_type, fetch_type`); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Writer().ExecContext(ctx, `ANALYZE`); err != nil {
		b.Fatal(err)
	}
}
