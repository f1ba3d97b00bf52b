package sqlstore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// The SQLite writer announces a commit that wrote a River notification,
// once it committed, and nothing else: not a rolled-back one, not other
// writes.
func TestNotifiedAfterCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := sqlstoretest.OpenSQLite(t)
	notified := db.Notified()
	require.NotNil(t, notified)
	announced := func() bool {
		select {
		case <-notified:
			return true
		default:
			return false
		}
	}
	const note = `INSERT INTO river_notification (payload, topic) VALUES ('{"queue": "default"}', 'river_insert')`

	tx, err := db.Writer().BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, note)
	require.NoError(t, err)
	require.False(t, announced(), "not before the commit")
	require.NoError(t, tx.Commit())
	require.True(t, announced(), "after the commit")

	tx, err = db.Writer().BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, note)
	require.NoError(t, err)
	require.NoError(t, tx.Rollback())
	require.False(t, announced(), "not for a rollback")

	tx, err = db.Writer().BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, `DELETE FROM river_notification WHERE id < 0`)
	require.NoError(t, err)
	require.NoError(t, tx.Commit())
	require.False(t, announced(), "not for other writes")

	// Outside a transaction, at once; many commits, one announcement.
	for range 3 {
		_, err = db.Writer().ExecContext(ctx, note)
		require.NoError(t, err)
	}
	require.True(t, announced())
	require.False(t, announced())

	require.Nil(t, sqlstoretest.OpenPostgres(t).Notified(), "PostgreSQL has LISTEN")
}
