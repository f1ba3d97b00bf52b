package jobs_test

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// wakeQueue starts a queue on db whose research chunks report when they
// start; listen gives it db's LISTEN pool (PostgreSQL).
func wakeQueue(tb testing.TB, db *sqlstore.DB, poll time.Duration, listen bool) (*jobs.Queue, <-chan time.Time) {
	tb.Helper()
	started := make(chan time.Time, 1)
	cfg := jobs.Config{Logger: slog.New(slog.DiscardHandler), PollInterval: poll, Notified: db.Notified()}
	if listen {
		l, err := db.Listener()
		require.NoError(tb, err)
		cfg.Listener = l
	}
	q, err := jobs.New(db.Writer(), string(db.Engine()), sqlstore.NewBatchService(db), cfg,
		kinds(map[seedengine.BatchKind]jobs.ChunkProcessor{
			seedengine.BatchResearch: func(_ context.Context, _ *seedengine.Batch, c *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
				started <- time.Now()
				return seedengine.ChunkOutcome{Succeeded: c.Items}, nil
			},
		})...)
	require.NoError(tb, err)
	require.NoError(tb, q.Start(context.Background()))
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		require.NoError(tb, q.Stop(ctx))
	})
	return q, started
}

// insertOne commits a one-chunk batch and returns when the commit did.
func insertOne(tb testing.TB, q *jobs.Queue) time.Time {
	tb.Helper()
	batch := &seedengine.Batch{Kind: seedengine.BatchResearch, Country: "sg", Category: "news", ChunkSize: 1}
	require.NoError(tb, q.CreateBatch(context.Background(), batch,
		[]*seedengine.BatchChunk{{Input: []byte(`["https://example.test/"]`), Items: 1}}))
	return time.Now()
}

// On PostgreSQL a job committed into an idle queue wakes the workers
// through LISTEN: it starts long before a poll would find it.
func TestPostgresWakesOnInsert(t *testing.T) {
	t.Parallel()
	db := sqlstoretest.OpenPostgres(t)
	const poll = 30 * time.Second
	q, started := wakeQueue(t, db, poll, true)
	time.Sleep(time.Second) // the listener is up and the first fetch done
	for range 3 {
		committed := insertOne(t, q)
		select {
		case at := <-started:
			require.Less(t, at.Sub(committed), poll/2, "woken by the insert, not by a poll")
		case <-time.After(poll / 2):
			t.Fatal("the job did not start before the next poll")
		}
		// An idle queue: River sends no wake for an insert within
		// FetchCooldown of the queue's last one (its insert notify
		// limiter), which a fast machine reaches here.
		time.Sleep(100 * time.Millisecond)
	}
}

// On SQLite a job this process commits wakes its workers at once: the
// store announces the commit, and the listener reads River's notification
// table then, not at its one-second poll; the job starts long before the
// queue's own poll (5 s, automatic as served) would find it.
func TestSQLiteWakesOnInsert(t *testing.T) {
	t.Parallel()
	q, started := wakeQueue(t, sqlstoretest.OpenSQLite(t), 0, false)
	for range 3 {
		committed := insertOne(t, q)
		select {
		case at := <-started:
			require.Less(t, at.Sub(committed), 500*time.Millisecond, "woken by the commit, not by a poll")
		case <-time.After(time.Minute):
			t.Fatal("the job never started")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// BenchmarkWakeOnInsert commits b.N one-chunk batches one at a time into
// an idle queue (a random pause of 20–70 ms after each job started) and
// reports the latency from commit to the chunk's start: p50 and p99.
//
//   - pg_listen: PostgreSQL with LISTEN (the default).
//
//   - pg_poll: PostgreSQL polling only, every 100 ms (before).
//
//   - sqlite: the store announces the commit to the listener.
//
//     go test -run '^$' -bench WakeOnInsert -benchtime 200x ./internal/jobs/
func BenchmarkWakeOnInsert(b *testing.B) {
	for _, tc := range []struct {
		name   string
		open   func(testing.TB) *sqlstore.DB
		listen bool
	}{
		{"pg_listen", sqlstoretest.OpenPostgres, true},
		{"pg_poll", sqlstoretest.OpenPostgres, false},
		{"sqlite", sqlstoretest.OpenSQLite, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			q, started := wakeQueue(b, tc.open(b), 100*time.Millisecond, tc.listen)
			time.Sleep(time.Second)
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				committed := insertOne(b, q)
				lat = append(lat, (<-started).Sub(committed))
				time.Sleep(time.Duration(20+rand.IntN(50)) * time.Millisecond)
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50_ms")
			b.ReportMetric(float64(lat[(len(lat)*99)/100].Microseconds())/1000, "p99_ms")
		})
	}
}

// deferOnce is a page fetcher that sends its first page away for wait
// (as the frontier does when the host's turn is far off) and reports
// when each fetch ran.
type deferOnce struct {
	wait time.Duration
	ran  chan time.Time
	n    atomic.Int32
}

type laterError struct{ wait time.Duration }

func (e laterError) Error() string            { return "later" }
func (e laterError) SnoozeFor() time.Duration { return e.wait }

func (f *deferOnce) FetchPage(context.Context, int64, bool) error {
	f.ran <- time.Now()
	if f.n.Add(1) == 1 {
		return laterError{f.wait}
	}
	return nil
}

// A page sent away comes back when its wait is over, not at the queue's
// next poll (2 s for pages, automatic): the queue wakes its producers
// when deferred pages come due.
func TestDeferredPageComesBackOnTime(t *testing.T) {
	t.Parallel()
	db := sqlstoretest.OpenSQLite(t)
	q, err := jobs.New(db.Writer(), string(db.Engine()), sqlstore.NewBatchService(db),
		jobs.Config{Logger: slog.New(slog.DiscardHandler), Notified: db.Notified(), ReadDB: db.Reader(), PageWorkers: 4},
		kinds(nil)...)
	require.NoError(t, err)
	f := &deferOnce{wait: 300 * time.Millisecond, ran: make(chan time.Time, 2)}
	q.RegisterPages(f)
	ctx := context.Background()
	require.NoError(t, q.Start(ctx))
	t.Cleanup(func() { require.NoError(t, q.Stop(ctx)) })
	tx, err := db.Writer().BeginTx(ctx, nil)
	require.NoError(t, err)
	require.NoError(t, q.QueuePageFetchesTx(ctx, tx, []int64{1}))
	require.NoError(t, tx.Commit())

	first := <-f.ran
	select {
	case second := <-f.ran:
		require.GreaterOrEqual(t, second.Sub(first), f.wait, "not before its wait is over")
		require.Less(t, second.Sub(first), f.wait+time.Second, "back when due, not at the 2 s poll")
	case <-time.After(10 * time.Second):
		t.Fatal("the deferred page never came back")
	}
}
