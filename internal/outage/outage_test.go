package outage_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/outage"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for _, tt := range []struct {
		name string
		err  error
		dep  string
	}{
		{"nil", nil, ""},
		{"a bug", errors.New("boom"), ""},
		{"bad input", seedengine.FieldErrorf("country", "no"), ""},
		{"unique violation", &pgconn.PgError{Code: "23505"}, ""},
		{"syntax error", fmt.Errorf("find seeds: %w", &pgconn.PgError{Code: "42601"}), ""},
		{"admin shutdown", fmt.Errorf("find seeds: %w", &pgconn.PgError{Code: "57P01"}), outage.Database},
		{"cannot connect now", &pgconn.PgError{Code: "57P03"}, outage.Database},
		{"too many connections", &pgconn.PgError{Code: "53300"}, outage.Database},
		{"connection failure", &pgconn.PgError{Code: "08006"}, outage.Database},
		{"bad conn", fmt.Errorf("q: %w", driver.ErrBadConn), outage.Database},
		{"refused", fmt.Errorf("open: %w", refused), outage.Network},
		{"reset", fmt.Errorf("read: %w", syscall.ECONNRESET), outage.Network},
		{"cut mid-answer", fmt.Errorf("receive: %w", io.ErrUnexpectedEOF), outage.Network},
		{"too slow", fmt.Errorf("q: %w", context.DeadlineExceeded), outage.Network},
		{"client gone is not an outage", fmt.Errorf("q: %w", context.Canceled), ""},
	} {
		dep, ok := outage.Classify(tt.err)
		require.Equal(t, tt.dep != "", ok, tt.name)
		require.Equal(t, tt.dep, dep, tt.name)
	}
}
