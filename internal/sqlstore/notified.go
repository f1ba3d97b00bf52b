package sqlstore

import (
	"context"
	"database/sql/driver"
	"strings"
)

// On SQLite River stands in for NOTIFY with a table, river_notification:
// an insert of a job (or a cancel, a pause) writes a row there in the
// inserting transaction, and a listener reads the rows. riversqlite's own
// listener reads the table every 50 ms, which was half of an idle
// process's CPU. The embedded mode has one writer process, so the writer
// connection here announces, in process, every commit that wrote such a
// row (DB.Notified); the queue's listener (internal/jobs) reads the table
// when told, and only slowly otherwise.

// notifier announces commits that wrote a River notification. Its channel
// holds at most one announcement: a listener that was busy reads once for
// all the commits meanwhile.
type notifier struct{ ch chan struct{} }

func newNotifier() *notifier { return &notifier{ch: make(chan struct{}, 1)} }

func (n *notifier) announce() {
	select {
	case n.ch <- struct{}{}:
	default:
	}
}

// writesNotification reports whether query inserts into River's
// notification table, as riversqlite writes it (its schema template
// replaced by nothing: the queue uses the main schema). Should a later
// River spell it otherwise, the listener still reads every second, and
// TestSQLiteWakesOnInsert (internal/jobs) fails.
func writesNotification(query string) bool {
	return strings.Contains(query, "INSERT INTO river_notification")
}

// writesNote reports whether this connection announces notifications and
// query (kept as cs when not nil) writes one.
func (c *stmtCacheConn) writesNote(cs *cachedStmt, query string) bool {
	if c.notes == nil {
		return false
	}
	if cs != nil {
		return cs.notes
	}
	return writesNotification(query)
}

// noted marks a statement that wrote a notification: announced at once
// outside a transaction, at the commit inside one.
func (c *stmtCacheConn) noted() {
	if c.inTx {
		c.wroteNote = true
		return
	}
	c.notes.announce()
}

// BeginTx implements driver.ConnBeginTx: the transaction of a connection
// that announces notifications remembers whether it wrote one.
func (c *stmtCacheConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.sqliteConn.BeginTx(ctx, opts)
	if err != nil || c.notes == nil {
		return tx, err
	}
	c.inTx, c.wroteNote = true, false
	return &notingTx{Tx: tx, c: c}, nil
}

// notingTx announces its notifications once it commits.
type notingTx struct {
	driver.Tx
	c *stmtCacheConn
}

// Commit implements driver.Tx.
func (t *notingTx) Commit() error {
	err := t.Tx.Commit()
	wrote := t.c.wroteNote
	t.c.inTx, t.c.wroteNote = false, false
	if err == nil && wrote {
		t.c.notes.announce()
	}
	return err
}

// Rollback implements driver.Tx.
func (t *notingTx) Rollback() error {
	t.c.inTx, t.c.wroteNote = false, false
	return t.Tx.Rollback()
}

// Notified receives, on SQLite, after each commit of this process that
// wrote a River notification (a job inserted, cancelled, a queue paused),
// once for all the commits since it was last read. There is one such
// channel per DB, for the one queue listening on it. Nil on PostgreSQL,
// whose LISTEN tells every process (Listener).
func (db *DB) Notified() <-chan struct{} {
	if db.notes == nil {
		return nil
	}
	return db.notes.ch
}
