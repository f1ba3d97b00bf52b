package sqlstore_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// BenchmarkSnapshot100k computes the metadata snapshot of a store with
// 100,000 partitions (50 countries × 5 categories × 400 dates) holding
// 200,000 chunks, 150,000 domain links over 10,000 domains, the liveness of
// two thirds of them and 10,000 seeds; then one country's slice, and the
// JSON of the snapshot.
//
//	go test -run '^$' -bench Snapshot100k -benchtime 20x ./internal/sqlstore/
func BenchmarkSnapshot100k(b *testing.B) {
	benchEngines(b, func(b *testing.B, db *sqlstore.DB) {
		fillPartitions(b, db)
		sqlstoretest.FillSeeds(b, db, 10_000)
		s := sqlstore.NewMetadataService(db)
		snap, err := s.Snapshot(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		if snap.Totals.Partitions != benchPartitions {
			b.Fatalf("snapshot has %d partitions, want %d", snap.Totals.Partitions, benchPartitions)
		}

		b.Run("snapshot", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if snap, err = s.Snapshot(b.Context()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(snap.Totals.Partitions), "partitions")
		})
		b.Run("country", func(b *testing.B) {
			b.ReportAllocs()
			var m *seedengine.CountryMetadata
			for b.Loop() {
				if m, err = s.CountryMetadata(b.Context(), "sg"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(m.Totals.Partitions), "partitions")
		})
		b.Run("marshal", func(b *testing.B) {
			b.ReportAllocs()
			var out []byte
			for b.Loop() {
				if out, err = json.Marshal(snap); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(out)), "bytes")
		})
	})
}

const (
	benchDates           = 400
	benchDomainsPerCount = 200
	benchPartitions      = 50 * 5 * benchDates
)

var benchCountries = strings.Fields(`sg jp fr de us gb br in id my th vn ph au nz ca mx es it nl
	be ch at se no dk fi pl cz pt ie gr tr il ae sa eg za ng ke ar cl co pe ru ua kr cn tw hk`)

// fillPartitions writes benchPartitions partitions straight into the
// tables in one transaction, with multi-row inserts: partition i has
// i%3+1 chunks (the second of each unknown records) and links to i%4 of
// its country's 200 domains; two domains in three have a liveness verdict.
func fillPartitions(b *testing.B, db *sqlstore.DB) {
	b.Helper()
	if len(benchCountries) != 50 {
		b.Fatalf("%d bench countries, want 50", len(benchCountries))
	}
	ctx := context.Background()
	categories := []string{"news", "policy", "press_release", "statistics", "events"}
	authorities := []seedengine.Authority{"gov", "mil", "edu", "ngo", "org", "media", "com", "other"}
	verdicts := []seedengine.Verdict{seedengine.VerdictAlive, seedengine.VerdictDead, seedengine.VerdictBlocked, seedengine.VerdictParked}
	now := time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)
	ts := any(now)
	if db.Engine() == sqlstore.EngineSQLite {
		ts = now.Format("2006-01-02T15:04:05.000000Z")
	}
	domainID := func(country string, k int) (id, registrable string) {
		registrable = fmt.Sprintf("site%03d.%s.example", k, country)
		return seedengine.DomainID(authorities[k%len(authorities)], country, registrable), registrable
	}

	tx, err := db.Writer().BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	chunks := newBulkInsert(tx, db.Engine(), `INSERT INTO dataset_chunks
		(country, category, date, chunk, key, bytes, records, completed, indexed_at)`, 9)
	links := newBulkInsert(tx, db.Engine(), `INSERT INTO domain_partitions (domain_id, country, category, date, first_seen)`, 5)
	domains := newBulkInsert(tx, db.Engine(), `INSERT INTO domains (domain_id, registrable_domain, authority,
		authority_rule, source_type, country, first_seen, last_seen, partition_count)`, 9)
	liveness := newBulkInsert(tx, db.Engine(), `INSERT INTO domain_liveness
		(domain, batch_id, verdict, reason, detail, checked_at)`, 6)

	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	dates := make([]string, benchDates)
	for d := range dates {
		dates[d] = start.AddDate(0, 0, d).Format(seedengine.DateLayout)
	}
	i := 0
	for _, country := range benchCountries {
		partitionCount := make([]int, benchDomainsPerCount)
		for _, category := range categories {
			for _, date := range dates {
				for c := range i%3 + 1 {
					records := 100 + i%50
					if c == 1 {
						records = -1
					}
					key := fmt.Sprintf("raw/country=%s/category=%s/date=%s/raw_%04d.json", country, category, date, c+1)
					chunks.add(ctx, b, country, category, date, c+1, key, 1<<20, records, true, ts)
				}
				for l := range i % 4 {
					k := (i + l*37) % benchDomainsPerCount
					id, _ := domainID(country, k)
					partitionCount[k]++
					links.add(ctx, b, id, country, category, date, ts)
				}
				i++
			}
		}
		for k := range benchDomainsPerCount {
			id, registrable := domainID(country, k)
			a := authorities[k%len(authorities)]
			domains.add(ctx, b, id, registrable, string(a), "rule", a.SourceType(), country, ts, ts, partitionCount[k])
			if k%3 != 0 {
				liveness.add(ctx, b, registrable, "bench", string(verdicts[k%len(verdicts)]), "reason", "", ts)
			}
		}
	}
	for _, bi := range []*bulkInsert{chunks, links, domains, liveness} {
		bi.flush(ctx, b)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	// As autovacuum would by now: statistics for the planners, and on
	// PostgreSQL the visibility map that index-only scans rely on.
	analyze := `ANALYZE`
	if db.Engine() == sqlstore.EnginePostgres {
		analyze = `VACUUM ANALYZE`
	}
	if _, err := db.Writer().ExecContext(ctx, analyze); err != nil {
		b.Fatal(err)
	}
}

// bulkInsert buffers rows and writes them 1,000 to a statement.
type bulkInsert struct {
	tx     *sql.Tx
	engine sqlstore.Engine
	head   string
	cols   int
	args   []any
}

const bulkInsertRows = 1000

func newBulkInsert(tx *sql.Tx, engine sqlstore.Engine, head string, cols int) *bulkInsert {
	return &bulkInsert{tx: tx, engine: engine, head: head, cols: cols}
}

func (bi *bulkInsert) add(ctx context.Context, b *testing.B, row ...any) {
	bi.args = append(bi.args, row...)
	if len(bi.args) >= bulkInsertRows*bi.cols {
		bi.flush(ctx, b)
	}
}

func (bi *bulkInsert) flush(ctx context.Context, b *testing.B) {
	if len(bi.args) == 0 {
		return
	}
	var q strings.Builder
	q.WriteString(bi.head)
	q.WriteString(" VALUES ")
	for r := range len(bi.args) / bi.cols {
		if r > 0 {
			q.WriteByte(',')
		}
		q.WriteByte('(')
		for c := range bi.cols {
			if c > 0 {
				q.WriteByte(',')
			}
			if bi.engine == sqlstore.EngineSQLite {
				q.WriteByte('?')
			} else {
				q.WriteString("$" + strconv.Itoa(r*bi.cols+c+1))
			}
		}
		q.WriteByte(')')
	}
	if _, err := bi.tx.ExecContext(ctx, q.String(), bi.args...); err != nil {
		b.Fatal(err)
	}
	bi.args = bi.args[:0]
}
