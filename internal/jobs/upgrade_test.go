package jobs_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// riverV031Version is the last River migration of River v0.31.0, the
// version the project started on.
const riverV031Version = 6

// migrator is River's migrator for the store's engine.
type migrator interface {
	AllVersions() []rivermigrate.Migration
	ExistingVersions(ctx context.Context) ([]rivermigrate.Migration, error)
	Migrate(ctx context.Context, direction rivermigrate.Direction, opts *rivermigrate.MigrateOpts) (*rivermigrate.MigrateResult, error)
}

func newMigrator(t *testing.T, engine sqlstore.Engine, db *sql.DB) migrator {
	t.Helper()
	var m migrator
	var err error
	if engine == sqlstore.EngineSQLite {
		m, err = rivermigrate.New(riversqlite.New(db), nil)
	} else {
		m, err = rivermigrate.New(riverdatabasesql.New(db), nil)
	}
	require.NoError(t, err)
	return m
}

func versions(ms []rivermigrate.Migration) []int {
	vs := make([]int, len(ms))
	for i, m := range ms {
		vs[i] = m.Version
	}
	return vs
}

func existingVersions(t *testing.T, m migrator) []int {
	t.Helper()
	ms, err := m.ExistingVersions(t.Context())
	require.NoError(t, err)
	return versions(ms)
}

// riverSchema describes River's tables: their columns, indexes and (on
// PostgreSQL) constraints and types, one line each, sorted.
func riverSchema(t *testing.T, engine sqlstore.Engine, db *sql.DB) []string {
	t.Helper()
	query := `SELECT 'column ' || m.name || '.' || p.name || ' ' || p.type || ' notnull=' || p."notnull" || ' default=' || coalesce(p.dflt_value, '') || ' pk=' || p.pk
		FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name LIKE 'river%'
		UNION ALL SELECT 'index ' || name || ' ' || coalesce(sql, '') FROM sqlite_master WHERE type = 'index' AND tbl_name LIKE 'river%'`
	if engine == sqlstore.EnginePostgres {
		query = `SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || udt_name || ' nullable=' || is_nullable || ' default=' || coalesce(column_default, '')
			FROM information_schema.columns WHERE table_schema = current_schema() AND table_name LIKE 'river%'
		UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename LIKE 'river%'
		UNION ALL SELECT 'constraint ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
			FROM pg_constraint WHERE connamespace = current_schema()::regnamespace AND conrelid::regclass::text LIKE 'river%'
		UNION ALL SELECT 'type ' || t.typname || ' ' || string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder)
			FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid WHERE t.typnamespace = current_schema()::regnamespace GROUP BY t.typname
		UNION ALL SELECT 'function ' || p.proname FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace
		UNION ALL SELECT 'trigger ' || tgrelid::regclass::text || ' ' || tgname FROM pg_trigger WHERE NOT tgisinternal AND tgrelid::regclass::text LIKE 'river%'`
	}
	rows, err := db.QueryContext(t.Context(), query)
	require.NoError(t, err)
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		// Index text as written by different migrations differs only in
		// layout.
		lines = append(lines, strings.Join(strings.Fields(s), " "))
	}
	require.NoError(t, rows.Err())
	require.NotEmpty(t, lines)
	slices.Sort(lines)
	return lines
}

// riverSchemaAtV031 is River's schema on a fresh database of engine that
// only River's migrations up to v0.31.0's last one have touched.
func riverSchemaAtV031(t *testing.T, engine sqlstore.Engine) []string {
	t.Helper()
	u := sqlstoretest.NewSQLiteURL(t)
	if engine == sqlstore.EnginePostgres {
		u = sqlstoretest.NewPostgresURL(t)
	}
	db, err := sqlstore.Open(t.Context(), u)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	m := newMigrator(t, engine, db.Writer())
	_, err = m.Migrate(t.Context(), rivermigrate.DirectionUp, &rivermigrate.MigrateOpts{TargetVersion: riverV031Version})
	require.NoError(t, err)
	return riverSchema(t, engine, db.Writer())
}

// metadataRecorder is a MetadataRunner that records the tasks it runs.
type metadataRecorder struct {
	mu  sync.Mutex
	ran []string
}

func (m *metadataRecorder) RunMetadataTask(_ context.Context, taskID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ran = append(m.ran, taskID)
	return nil
}

func (m *metadataRecorder) TriggerMetadataSync(context.Context, seedengine.MetadataTrigger) (*seedengine.MetadataTask, bool, error) {
	return nil, false, seedengine.Errorf(seedengine.ENOTIMPLEMENTED, "not in this test")
}

func (m *metadataRecorder) tasks() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.ran...)
}

// TestQueueUpgradeFromRiverV031 holds a store that River v0.31.0 used to
// the upgrade. A store migrated from empty has all of River's migrations;
// then its River schema goes back to v0.31.0's (migration 6, the
// same schema a fresh v0.31.0 database has), it gets the rows v0.31.0
// wrote (testdata/river-v0.31.0), and then Migrate, as the service runs at
// start, brings River to its latest migration, a second Migrate changes
// nothing, and the queue carries on: the waiting jobs run once each, the
// discarded one reads as a dead letter with v0.31.0's attempt errors and
// retries, and the UI shows the old rows.
func TestQueueUpgradeFromRiverV031(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		engine := db.Engine()
		m := newMigrator(t, engine, db.Writer())
		latest := versions(m.AllVersions())
		require.Greater(t, len(latest), riverV031Version)
		require.Equal(t, latest, existingVersions(t, m), "Migrate on an empty database applies every River migration")

		_, err := m.Migrate(ctx, rivermigrate.DirectionDown, &rivermigrate.MigrateOpts{TargetVersion: riverV031Version})
		require.NoError(t, err)
		require.Equal(t, latest[:riverV031Version], existingVersions(t, m))
		require.Equal(t, riverSchemaAtV031(t, engine), riverSchema(t, engine, db.Writer()),
			"River's down migrations restore v0.31.0's schema")
		fixture, err := os.ReadFile("testdata/river-v0.31.0/" + string(engine) + ".sql")
		require.NoError(t, err)
		_, err = db.Writer().ExecContext(ctx, string(fixture))
		require.NoError(t, err)

		require.NoError(t, db.Migrate(ctx))
		require.Equal(t, latest, existingVersions(t, m))
		schema := riverSchema(t, engine, db.Writer())
		require.NoError(t, db.Migrate(ctx))
		require.Equal(t, latest, existingVersions(t, m), "a second Migrate applies nothing")
		require.Equal(t, schema, riverSchema(t, engine, db.Writer()))

		var finishedID, pendingID string
		require.NoError(t, db.Reader().QueryRowContext(ctx, `SELECT id FROM batches WHERE status = 'completed_with_errors'`).Scan(&finishedID))
		require.NoError(t, db.Reader().QueryRowContext(ctx, `SELECT id FROM batches WHERE status = 'queued'`).Scan(&pendingID))

		var runs counter
		tb := setup(t, db, testConfig(), map[seedengine.BatchKind]jobs.ChunkProcessor{seedengine.BatchResearch: func(ctx context.Context, b *seedengine.Batch, c *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
			if b.ID == finishedID {
				runs.add(100 + c.Index)
			}
			return succeed(&runs)(ctx, b, c)
		}})
		meta := &metadataRecorder{}
		tb.q.RegisterMetadata(meta, 0)

		// Before the queue starts: the dead letter as v0.31.0 left it.
		dls, total, err := tb.q.FindDeadLetters(ctx, "research_chunk", 10, 0)
		require.NoError(t, err)
		require.Equal(t, 1, total)
		dl := dls[0]
		require.Equal(t, finishedID, dl.BatchID)
		require.Equal(t, 1, *dl.Chunk)
		require.Equal(t, "discarded", dl.State)
		require.Equal(t, 2, dl.Attempts)
		require.Equal(t, "host unreachable (written by River v0.31.0)", dl.LastError)
		require.NotNil(t, dl.FailedAt)
		require.WithinDuration(t, dl.CreatedAt, *dl.FailedAt, time.Minute)

		h, err := tb.q.UIHandler(uiPrefix)
		require.NoError(t, err)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		ui := uiClient{t: t, base: srv.URL}
		var job uiJob
		ui.json(http.MethodGet, fmt.Sprintf("/api/jobs/%d", dl.ID), nil, http.StatusOK, &job)
		require.Len(t, job.Errors, 2)
		require.Equal(t, 2, job.Errors[1].Attempt)
		require.JSONEq(t, fmt.Sprintf(`{"batch_id":%q,"chunk":1}`, finishedID), job.Args)
		var list struct{ Data []uiJob }
		ui.json(http.MethodGet, "/api/jobs?state=available&limit=10", nil, http.StatusOK, &list)
		require.Len(t, list.Data, 4)

		start(t, tb)
		got := waitBatch(t, tb.bs, pendingID, 30*time.Second)
		require.Equal(t, seedengine.BatchCompleted, got.Status)
		require.Equal(t, seedengine.ItemCounts{Total: 4, Succeeded: 4}, got.Items)
		for i := range 3 {
			require.Equal(t, 1, runs.get(i), "chunk %d", i)
		}
		require.Eventually(t, func() bool { return len(meta.tasks()) == 1 }, 10*time.Second, 20*time.Millisecond)
		require.Equal(t, []string{"task-v031"}, meta.tasks())

		_, err = tb.q.RetryDeadLetter(ctx, dl.ID)
		require.NoError(t, err)
		got = waitBatch(t, tb.bs, finishedID, 30*time.Second)
		require.Equal(t, seedengine.BatchCompleted, got.Status)
		require.Equal(t, seedengine.ChunkCounts{Total: 2, Done: 2}, got.Chunks)
		require.Equal(t, 1, runs.get(101))
		require.Zero(t, runs.get(100), "chunk 0 finished under v0.31.0 and does not run again")

		// New jobs get new ids after the old ones.
		b, chunks := newBatch(1)
		require.NoError(t, tb.q.CreateBatch(ctx, b, chunks))
		var maxID int64
		require.NoError(t, db.Reader().QueryRowContext(ctx, `SELECT max(id) FROM river_job`).Scan(&maxID))
		require.Greater(t, maxID, int64(6))
		require.Equal(t, seedengine.BatchCompleted, waitBatch(t, tb.bs, b.ID, 30*time.Second).Status)
	})
}
