// Package outage tells an error that means a dependency cannot serve
// right now (a database or object store that is down, restarting,
// refusing connections or out of room) from one that means a bug.
//
// The HTTP API answers the first 503 with Retry-After, so clients retry
// and alerts can tell an outage from a defect; the second stays a 500.
// The test is on the error chain only: the stores keep wrapping their
// errors as they like, and a new query site needs no marking.
package outage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"gocloud.dev/gcerrors"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Dependencies named by Classify.
const (
	Database    = "database"
	ObjectStore = "object store"
	Network     = "a dependency" // a connection failed; which one is not known
)

// Is reports whether err means a dependency is unavailable.
func Is(err error) bool {
	_, ok := Classify(err)
	return ok
}

// Classify reports whether err means a dependency is unavailable, and
// which one when the error says (Database, ObjectStore, or Network for a
// connection that failed without saying to what).
func Classify(err error) (dependency string, ok bool) {
	if err == nil {
		return "", false
	}
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		if pgUnavailable(pgErr.Code) {
			return Database, true
		}
		return "", false
	}
	if _, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		return Database, true
	}
	if sqlErr, ok := errors.AsType[*sqlite.Error](err); ok {
		switch sqlErr.Code() & 0xff { // the primary code of an extended one
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_FULL,
			sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PROTOCOL:
			return Database, true
		}
		return "", false
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) {
		return Database, true
	}
	// gocloud's object store errors say what kind of failure they are;
	// a store that refuses connections arrives as a network error below.
	switch gcerrors.Code(err) {
	case gcerrors.ResourceExhausted:
		return ObjectStore, true
	}
	for _, errno := range []syscall.Errno{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED,
		syscall.EPIPE, syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.ETIMEDOUT} {
		if errors.Is(err, errno) {
			return Network, true
		}
	}
	if _, ok := errors.AsType[*net.OpError](err); ok {
		return Network, true
	}
	if _, ok := errors.AsType[*net.DNSError](err); ok {
		return Network, true
	}
	// A connection cut mid-answer, and a dependency too slow to answer
	// within the request's own deadline.
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, context.DeadlineExceeded) {
		return Network, true
	}
	return "", false
}

// pgUnavailable reports whether a PostgreSQL error code means the server
// cannot serve now rather than that the statement is wrong.
func pgUnavailable(code string) bool {
	if len(code) < 2 {
		return false
	}
	switch code[:2] {
	case "08": // connection exception
		return true
	case "53": // insufficient resources: disk full, out of memory, too many connections
		return true
	}
	switch code {
	case "57P01", "57P02", "57P03": // admin shutdown, crash shutdown, cannot connect now
		return true
	case "57014": // query cancelled by statement_timeout or by an administrator
		return true
	case "40P01", "55P03": // deadlock detected, lock not available: try again
		return true
	}
	return false
}
