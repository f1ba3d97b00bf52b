package sqlstore

import (
	"container/list"
	"context"
	"database/sql/driver"
	"fmt"
	"reflect"
)

// SQLite compiles every statement before running it, and database/sql asks
// the driver to do so on every call: ExecContext and QueryContext on a
// connection prepare, run and finalize. Compiling took about a third of the
// CPU of the chunk job path (our SQL and River's alike), most of it spent on
// the single writer connection that every write queues for. stmtCacheConn
// keeps the compiled statements of each SQLite connection, keyed by their
// text, and runs them again after a reset; SQLite recompiles a kept
// statement by itself when the schema changes.

// stmtCacheSize is how many compiled statements each SQLite connection
// keeps, least recently used first out. The store and River together run
// about a hundred distinct statements.
const stmtCacheSize = 128

// stmtCacheMaxQuery is the longest statement text kept: longer ones are the
// multi-row inserts, whose text changes with their row count and whose
// compiled form is large. River v0.51.2's job state update, run twice per
// chunk job, is 4.7 KiB of text (it inlines a metadata merge); under the
// former cap of 4 KiB it was compiled afresh every time, which cut the
// queue's throughput on SQLite by more than half.
const stmtCacheMaxQuery = 8 << 10

// stmtCacheConnector opens SQLite connections that keep their compiled
// statements.
type stmtCacheConnector struct {
	driver.Connector
	notes *notifier // announces River notifications written; nil on readers
}

// Connect implements driver.Connector.
func (c stmtCacheConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, err := newStmtCacheConn(conn)
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	sc.notes = c.notes
	return sc, nil
}

// sqliteConn is what stmtCacheConn needs of the driver's connection; the
// modernc driver provides all of it.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// cachedStmt is a compiled statement kept by a connection.
type cachedStmt struct {
	query string
	stmt  interface {
		driver.Stmt
		driver.StmtExecContext
		driver.StmtQueryContext
	}
	elem *list.Element
	// notes is set when the statement writes a River notification.
	notes bool
	// busy is set while rows read from the statement are open; a second
	// use meanwhile is prepared afresh, since rebinding would reset them.
	busy bool
	// evicted is set when the statement left the cache while busy; it is
	// closed when its rows are.
	evicted bool
}

// stmtCacheConn is a SQLite connection that keeps up to stmtCacheSize
// compiled statements. database/sql never uses a connection from two
// goroutines at once, so it needs no lock.
type stmtCacheConn struct {
	sqliteConn
	stmts map[string]*cachedStmt
	lru   list.List // of *cachedStmt, most recently used first

	// notes, on the writer, announces the River notifications written
	// (notified.go); inTx is set while a transaction is open, wroteNote
	// once it wrote one.
	notes     *notifier
	inTx      bool
	wroteNote bool
}

func newStmtCacheConn(conn driver.Conn) (*stmtCacheConn, error) {
	sc, ok := conn.(sqliteConn)
	if !ok {
		return nil, fmt.Errorf("sqlite connection %T lacks the methods the statement cache needs", conn)
	}
	return &stmtCacheConn{sqliteConn: sc, stmts: make(map[string]*cachedStmt)}, nil
}

// stmt returns the kept statement for query, compiling and keeping it if
// needed, or nil when query is not to be kept or its statement is busy.
func (c *stmtCacheConn) stmt(ctx context.Context, query string) (*cachedStmt, error) {
	if len(query) > stmtCacheMaxQuery {
		return nil, nil
	}
	if cs, ok := c.stmts[query]; ok {
		if cs.busy {
			return nil, nil
		}
		c.lru.MoveToFront(cs.elem)
		return cs, nil
	}
	s, err := c.sqliteConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	st, ok := s.(interface {
		driver.Stmt
		driver.StmtExecContext
		driver.StmtQueryContext
	})
	if !ok {
		_ = s.Close()
		return nil, nil
	}
	cs := &cachedStmt{query: query, stmt: st, notes: writesNotification(query)}
	cs.elem = c.lru.PushFront(cs)
	c.stmts[query] = cs
	for c.lru.Len() > stmtCacheSize {
		old := c.lru.Remove(c.lru.Back()).(*cachedStmt)
		delete(c.stmts, old.query)
		if old.busy {
			old.evicted = true
			continue
		}
		_ = old.stmt.Close()
	}
	return cs, nil
}

// ExecContext implements driver.ExecerContext.
func (c *stmtCacheConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cs, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	var res driver.Result
	if cs == nil {
		res, err = c.sqliteConn.ExecContext(ctx, query, args)
	} else {
		res, err = cs.stmt.ExecContext(ctx, args)
	}
	if err == nil && c.writesNote(cs, query) {
		c.noted()
	}
	return res, err
}

// QueryContext implements driver.QueryerContext.
func (c *stmtCacheConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (_ driver.Rows, err error) {
	cs, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if c.writesNote(cs, query) {
		defer func() {
			if err == nil {
				c.noted()
			}
		}()
	}
	if cs == nil {
		return c.sqliteConn.QueryContext(ctx, query, args)
	}
	rows, err := cs.stmt.QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	cs.busy = true
	return &cachedRows{Rows: rows, stmt: cs}, nil
}

// Close finalizes the kept statements, then closes the connection: SQLite
// does not free a connection that still has statements.
func (c *stmtCacheConn) Close() error {
	for e := c.lru.Front(); e != nil; e = e.Next() {
		if cs := e.Value.(*cachedStmt); !cs.busy {
			_ = cs.stmt.Close()
		}
	}
	c.lru.Init()
	clear(c.stmts)
	return c.sqliteConn.Close()
}

// cachedRows are rows read from a kept statement; closing them resets the
// statement (the driver does) and frees it for the next use.
type cachedRows struct {
	driver.Rows
	stmt   *cachedStmt
	closed bool
}

// Close implements driver.Rows.
func (r *cachedRows) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	err := r.Rows.Close()
	r.stmt.busy = false
	if r.stmt.evicted {
		if cerr := r.stmt.stmt.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// The column type methods pass through to the driver's rows, which have
// them all; the fallbacks are database/sql's own defaults.

// ColumnTypeDatabaseTypeName implements driver.RowsColumnTypeDatabaseTypeName.
func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	if x, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return x.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

// ColumnTypeLength implements driver.RowsColumnTypeLength.
func (r *cachedRows) ColumnTypeLength(i int) (int64, bool) {
	if x, ok := r.Rows.(driver.RowsColumnTypeLength); ok {
		return x.ColumnTypeLength(i)
	}
	return 0, false
}

// ColumnTypeNullable implements driver.RowsColumnTypeNullable.
func (r *cachedRows) ColumnTypeNullable(i int) (bool, bool) {
	if x, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return x.ColumnTypeNullable(i)
	}
	return false, false
}

// ColumnTypePrecisionScale implements driver.RowsColumnTypePrecisionScale.
func (r *cachedRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	if x, ok := r.Rows.(driver.RowsColumnTypePrecisionScale); ok {
		return x.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}

// ColumnTypeScanType implements driver.RowsColumnTypeScanType.
func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type {
	if x, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return x.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}

var (
	_ sqliteConn                            = (*stmtCacheConn)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*cachedRows)(nil)
	_ driver.RowsColumnTypeLength           = (*cachedRows)(nil)
	_ driver.RowsColumnTypeNullable         = (*cachedRows)(nil)
	_ driver.RowsColumnTypePrecisionScale   = (*cachedRows)(nil)
	_ driver.RowsColumnTypeScanType         = (*cachedRows)(nil)
)
