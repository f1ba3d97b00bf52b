package sqlstore

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
)

// A seed's window row (seed_windows) holds what its last read listed and
// when the items new to its entry arrived over the last days: the pace
// of its next read follows from them (harvest.Pace).

// maxWindowKeys bounds the keys kept of a seed's last read: a sitemap
// of 50,000 URLs counts its unseen items by what it harvested instead.
const maxWindowKeys = 2000

// Arrival history bounds: the last three days, at most 20,000 times (a
// publisher of 6,000 items a day); past either the oldest go.
const (
	arrivalsKept    = 3 * 24 * time.Hour
	maxArrivalTimes = 20_000
)

// datedSlack is how far before the previous read a new item's own date
// may lie and still be taken as when it arrived (a date set a little
// before it was published); an older date, like none, is spread over
// the interval between the two reads.
const datedSlack = time.Hour

// seedWindow is a seed's window row as read.
type seedWindow struct {
	keys     map[string]bool
	hist     seedengine.ArrivalHistory
	arrivals []byte // hist.Times as stored (what decodes of it)
	readAt   time.Time
	found    bool
}

func (s *SeedService) loadWindow(ctx context.Context, q queryer, seedID string) (seedWindow, error) {
	var w seedWindow
	var keys, arrivals []byte
	var since, readAt scanTime
	err := q.QueryRowContext(ctx, `SELECT url_keys, arrivals, arrivals_since, read_at FROM seed_windows WHERE seed_id = $1`, seedID).
		Scan(&keys, &arrivals, &since, &readAt)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return w, nil
	case err != nil:
		return w, fmt.Errorf("read the seed's last window: %w", err)
	}
	w.found = true
	w.keys = make(map[string]bool, len(keys)/16)
	for i := 0; i+16 <= len(keys); i += 16 {
		w.keys[string(keys[i:i+16])] = true
	}
	w.readAt = readAt.Time
	w.hist.Since = since.Time
	w.hist.Times, w.arrivals = decodeArrivals(since.Time, arrivals)
	return w, nil
}

// FindArrivalHistory returns a seed's arrival history; an empty one when
// no read kept a window yet.
func (s *SeedService) FindArrivalHistory(ctx context.Context, seedID string) (seedengine.ArrivalHistory, error) {
	w, err := s.loadWindow(ctx, s.db.reader, seedID)
	return w.hist, err
}

// UnseenInWindow counts the items of a read (its entry's, not recovered
// ones) that the seed's last read did not list, without keeping
// anything: a read whose every item is new may have missed some, and the
// check repairs it before recording. first is set when the seed has no
// window yet.
func (s *SeedService) UnseenInWindow(ctx context.Context, seedID string, items []seedengine.Item) (unseen int, first bool, err error) {
	w, err := s.loadWindow(ctx, s.db.reader, seedID)
	if err != nil || !w.found {
		return 0, !w.found, err
	}
	for i := range items {
		if !items[i].Recovered && !w.keys[string(urlKey(items[i].NormalizedURL))] {
			unseen++
		}
	}
	return unseen, false, nil
}

// KnownItems reports which items a read listed before, within the
// dedupe window (harvest_seen), whichever seed read them.
func (s *SeedService) KnownItems(ctx context.Context, items []seedengine.Item) ([]bool, error) {
	out := make([]bool, len(items))
	byKey := make(map[string][]int, len(items))
	keys := make([][]byte, 0, len(items))
	for i := range items {
		k := urlKey(items[i].NormalizedURL)
		if _, ok := byKey[string(k)]; !ok {
			keys = append(keys, k)
		}
		byKey[string(k)] = append(byKey[string(k)], i)
	}
	for start := 0; start < len(keys); start += maxRowsPerStatement {
		part := keys[start:min(start+maxRowsPerStatement, len(keys))]
		var b strings.Builder
		b.WriteString(`SELECT url_key FROM harvest_seen WHERE url_key IN (`)
		args := make([]any, len(part))
		for i, k := range part {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("$" + strconv.Itoa(i+1))
			args[i] = k
		}
		b.WriteByte(')')
		rows, err := s.db.reader.QueryContext(ctx, b.String(), args...)
		if err != nil {
			return nil, fmt.Errorf("find known items: %w", err)
		}
		for rows.Next() {
			var k []byte
			if err := rows.Scan(&k); err != nil {
				rows.Close()
				return nil, fmt.Errorf("find known items: %w", err)
			}
			for _, i := range byKey[string(k)] {
				out[i] = true
			}
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("find known items: %w", err)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("find known items: %w", err)
		}
	}
	return out, nil
}

// readWindow counts the entry's items of a read at `at` that the seed's
// last read did not list, adds when they (and any recovered items)
// arrived to the seed's history, and keeps this read's items as the
// seed's window; missed more items are counted as arrived since the last
// read (SeedCheck.EstimatedMissed). Past maxWindowKeys no window is kept
// and ok is false. It returns the history as it now stands.
func (s *SeedService) readWindow(ctx context.Context, tx *sql.Tx, seedID string, at time.Time, read readItems, missed int) (unseen int, hist seedengine.ArrivalHistory, ok bool, err error) {
	items := read.items
	w, err := s.loadWindow(ctx, tx, seedID)
	if err != nil {
		return 0, hist, false, err
	}
	entry := 0
	for i := range items {
		if !items[i].Recovered {
			entry++
		}
	}
	if entry > maxWindowKeys {
		_, err := tx.ExecContext(ctx, `DELETE FROM seed_windows WHERE seed_id = $1`, seedID)
		return 0, seedengine.ArrivalHistory{Since: at}, false, err
	}
	// A row kept before histories were (no read time) starts one now.
	fresh := !w.found || w.readAt.IsZero()
	keys := make([]byte, 0, 16*entry)
	var dated []time.Time
	undated := 0
	for i := range items {
		it := &items[i]
		if !it.Recovered {
			k := read.keys[i]
			keys = append(keys, k...)
			if w.keys[string(k)] {
				continue // listed last time: no arrival
			}
			unseen++
		}
		// An arrival: on the first read, a dated item of the last days
		// (the entry's dates show its recent pace); later, any item new
		// to the entry, at its date when that is plausible.
		switch p := it.PublishedAt; {
		case fresh:
			if p != nil && !p.After(at) && p.After(at.Add(-arrivalsKept)) {
				dated = append(dated, *p)
			}
		case p != nil && !p.After(at) && p.After(w.readAt.Add(-datedSlack)):
			dated = append(dated, *p)
		default:
			undated++
		}
	}
	if !fresh {
		undated += missed
	}
	old := len(w.hist.Times)
	hist, kept := addArrivals(w.hist, fresh, w.readAt, at, dated, undated)
	var arrivals []byte
	if kept {
		// The stored times stay as they are: the new ones follow them.
		prev := hist.Since
		if old > 0 {
			prev = hist.Times[old-1]
		}
		arrivals = append(w.arrivals[:len(w.arrivals):len(w.arrivals)], encodeArrivals(prev, hist.Times[old:], 0)...)
	} else {
		arrivals = encodeArrivals(hist.Since, hist.Times, len(w.arrivals)+3*(len(hist.Times)-old))
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO seed_windows (seed_id, url_keys, arrivals, arrivals_since, read_at)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (seed_id) DO UPDATE SET url_keys = excluded.url_keys, arrivals = excluded.arrivals,
			arrivals_since = excluded.arrivals_since, read_at = excluded.read_at`,
		seedID, keys, arrivals, s.db.timeArg(hist.Since), s.db.timeArg(at)); err != nil {
		return 0, hist, false, fmt.Errorf("keep the seed's window: %w", err)
	}
	return unseen, hist, true, nil
}

// addArrivals returns hist with the arrivals of a read at `at` added:
// the dated times and undated more spread over the interval since the
// last read (readAt), the oldest past the history's bounds dropped. A
// fresh history (the seed's first read, or a row kept before histories
// were) starts at `at`, or at its oldest dated time. hist.Times is
// reused: it must be the caller's own.
//
// Times arrive sorted after the history's last one but for a dated item
// a little older: only then is the whole history sorted again, so a
// read costs what it adds rather than what the history holds. kept
// reports that the history's times lead the new one unchanged (same
// Since, none dropped, none added before them).
func addArrivals(hist seedengine.ArrivalHistory, fresh bool, readAt, at time.Time, dated []time.Time, undated int) (_ seedengine.ArrivalHistory, kept bool) {
	since := hist.Since
	if fresh {
		hist = seedengine.ArrivalHistory{Since: at}
		for _, t := range dated {
			if t.Before(hist.Since) {
				hist.Since = t
			}
		}
	}
	added := slices.Clone(dated)
	if undated > 0 && !fresh && readAt.Before(at) {
		// Arrived some time since the last read: spread over it.
		step := at.Sub(readAt) / time.Duration(undated+1)
		for k := range undated {
			added = append(added, readAt.Add(step*time.Duration(k+1)))
		}
	}
	slices.SortFunc(added, func(a, b time.Time) int { return a.Compare(b) })
	times := hist.Times
	sorted := len(times) == 0 || len(added) == 0 || !added[0].Before(times[len(times)-1])
	times = append(times, added...)
	if !sorted {
		slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	}
	if cut := at.Add(-arrivalsKept); hist.Since.Before(cut) {
		hist.Since = cut
	}
	drop := 0
	for drop < len(times) && times[drop].Before(hist.Since) {
		drop++
	}
	if n := len(times) - drop; n > maxArrivalTimes {
		drop += n - maxArrivalTimes
		hist.Since = times[drop]
	}
	hist.Times = times[drop:]
	if len(hist.Times) > 0 && hist.Times[0].Before(hist.Since) {
		hist.Since = hist.Times[0]
	}
	return hist, !fresh && sorted && drop == 0 && hist.Since.Equal(since)
}

// encodeArrivals writes sorted times as varint deltas in milliseconds,
// the first from since, into a buffer of size bytes to begin with.
func encodeArrivals(since time.Time, times []time.Time, size int) []byte {
	b := make([]byte, 0, max(size, 2*len(times)))
	prev := since
	for _, t := range times {
		d := max(t.Sub(prev).Milliseconds(), 0)
		b = binary.AppendUvarint(b, uint64(d))
		prev = prev.Add(time.Duration(d) * time.Millisecond)
	}
	return b
}

// decodeArrivals reads what encodeArrivals wrote (a damaged tail is
// dropped), into a slice with room for a read's more. It also returns
// the bytes it read.
func decodeArrivals(since time.Time, b []byte) ([]time.Time, []byte) {
	all := b
	n := 0
	for _, c := range b {
		if c < 0x80 {
			n++ // a varint's last byte
		}
	}
	out := make([]time.Time, 0, n+128)
	prev := since
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		if n <= 0 {
			break
		}
		b = b[n:]
		prev = prev.Add(time.Duration(d) * time.Millisecond)
		out = append(out, prev)
	}
	return out, all[:len(all)-len(b)]
}
