package jobs

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riversqlite"
)

// sqliteDriver is riversqlite's driver with a listener of our own. River
// on SQLite stands in for NOTIFY with its river_notification table, and
// riversqlite's listener reads it every 50 ms (a constant of River
// v0.51.2), about half of an idle process's CPU. The embedded mode has
// one writer process, whose store announces each commit that wrote a
// notification (sqlstore.DB.Notified): this listener reads the table when
// told, at once, and otherwise every sqliteListenPoll, for another
// process's rows (a command run beside serve).
type sqliteDriver struct {
	*riversqlite.Driver
	read     *sql.DB // where the table is read (the store's readers)
	notified <-chan struct{}
}

// sqliteListenPoll is how often the listener reads the notification table
// when nothing in this process announced a row.
const sqliteListenPoll = time.Second

// sqliteNotificationBatch is the most notifications one read takes.
const sqliteNotificationBatch = 256

// GetListener implements riverdriver.Driver.
func (d *sqliteDriver) GetListener(p *riverdriver.GetListenenerParams) riverdriver.Listener {
	return &sqliteListener{db: d.read, notified: d.notified, schema: p.Schema}
}

// sqliteListener implements riverdriver.Listener over river_notification.
// Rows are delivered in ID order; a topic gets only the rows written after
// it was listened to. SQLite has one writer, and a row's ID is taken under
// its lock, so no row can commit with an ID below one already read.
type sqliteListener struct {
	db       *sql.DB
	notified <-chan struct{}
	schema   string

	mu        sync.Mutex
	connected bool
	lastID    int64            // the last row read
	topics    map[string]int64 // listened topics: the last row before
	pending   []*riverdriver.Notification
}

// Connect implements riverdriver.Listener: rows written before it are
// never delivered.
func (l *sqliteListener) Connect(ctx context.Context) error {
	if l.schema != "" {
		return errors.New("the SQLite listener reads the main schema only")
	}
	last, err := l.lastRow(ctx)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.connected {
		return errors.New("listener already connected")
	}
	l.connected, l.lastID, l.topics, l.pending = true, last, map[string]int64{}, nil
	return nil
}

func (l *sqliteListener) lastRow(ctx context.Context) (int64, error) {
	var id int64
	err := l.db.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM river_notification`).Scan(&id)
	return id, err
}

// Close implements riverdriver.Listener.
func (l *sqliteListener) Close(context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.connected, l.topics, l.pending = false, nil, nil
	return nil
}

// Listen implements riverdriver.Listener.
func (l *sqliteListener) Listen(ctx context.Context, topic string) error {
	last, err := l.lastRow(ctx)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.connected {
		return errors.New("listener not connected")
	}
	if _, ok := l.topics[topic]; !ok {
		l.topics[topic] = max(last, l.lastID)
	}
	return nil
}

// Unlisten implements riverdriver.Listener.
func (l *sqliteListener) Unlisten(_ context.Context, topic string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.topics, topic)
	return nil
}

// Ping implements riverdriver.Listener.
func (l *sqliteListener) Ping(ctx context.Context) error { return l.db.PingContext(ctx) }

// Schema implements riverdriver.Listener.
func (l *sqliteListener) Schema() string { return l.schema }

// SetAfterConnectExec implements riverdriver.Listener; River calls it
// only in its own tests.
func (l *sqliteListener) SetAfterConnectExec(string) {}

// WaitForNotification implements riverdriver.Listener: the next row of a
// listened topic, read when this process announces one or at the poll.
func (l *sqliteListener) WaitForNotification(ctx context.Context) (*riverdriver.Notification, error) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		n, read, err := l.next(ctx)
		if err != nil || n != nil {
			return n, err
		}
		if read {
			continue // a full batch, all of other topics: read on
		}
		if timer == nil {
			timer = time.NewTimer(sqliteListenPoll)
		} else {
			timer.Reset(sqliteListenPoll)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-l.notified:
		case <-timer.C:
		}
	}
}

// next delivers a pending notification, reading the table when none is;
// read reports a full batch read that held nothing to deliver.
func (l *sqliteListener) next(ctx context.Context) (n *riverdriver.Notification, read bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.connected {
		return nil, false, errors.New("listener not connected")
	}
	if len(l.pending) == 0 {
		if len(l.topics) == 0 {
			return nil, false, nil
		}
		rows, err := l.db.QueryContext(ctx, `SELECT id, topic, payload FROM river_notification WHERE id > ? ORDER BY id LIMIT ?`,
			l.lastID, sqliteNotificationBatch)
		if err != nil {
			return nil, false, err
		}
		got := 0
		for rows.Next() {
			var id int64
			var topic, payload string
			if err := rows.Scan(&id, &topic, &payload); err != nil {
				_ = rows.Close()
				return nil, false, err
			}
			got++
			l.lastID = id
			if since, ok := l.topics[topic]; ok && id > since {
				l.pending = append(l.pending, &riverdriver.Notification{Topic: topic, Payload: payload})
			}
		}
		if err := rows.Close(); err != nil {
			return nil, false, err
		}
		if len(l.pending) == 0 {
			return nil, got == sqliteNotificationBatch, nil
		}
	}
	n, l.pending = l.pending[0], l.pending[1:]
	return n, false, nil
}
