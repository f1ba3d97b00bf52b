package feed

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mmcdole/gofeed"
)

// ErrNotFeed is returned (wrapped) by [Parse] for a body that is not an RSS,
// Atom or JSON feed: an HTML page, a sitemap, an API response, an empty body.
var ErrNotFeed = errors.New("not a feed")

// Feed formats reported in [Info.Format].
const (
	FormatRSS      = "rss"
	FormatAtom     = "atom"
	FormatJSONFeed = "json_feed"
)

// FutureSkew is how far in the future an item time may lie and still count.
// Later times (clock skew beyond this, scheduled posts, typos) are ignored.
const FutureSkew = 48 * time.Hour

// earliestItemTime is the first instant an item time may have; earlier times
// are placeholders (epoch zero) or garbage.
var earliestItemTime = time.Date(1995, 1, 1, 0, 0, 0, 0, time.UTC)

// Info is what parsing a fetched feed body found.
type Info struct {
	Format   string    // FormatRSS (RSS 0.9x, 1.0/RDF, 2.0), FormatAtom or FormatJSONFeed
	Version  string    // gofeed's FeedVersion ("2.0", "1.0", "0.91" …); for JSON Feed the number only ("1.1", not gofeed's URL)
	Title    string    // whitespace-trimmed feed title
	Language string    // the feed's language (RSS language, Atom xml:lang, JSON Feed language), as it states it
	Link     string    // the feed's site link, as the feed states it
	Items    int       // number of items or entries
	Newest   time.Time // newest usable item time (UTC); zero when none
	Oldest   time.Time // oldest usable item time (UTC); zero when none
	Dated    int       // items with a usable time
	// Latest are the newest items (at most MaxLatest), newest first;
	// undated items follow the dated ones in document order.
	Latest []Item
	// Times are the usable item times (UTC), in document order: a check
	// counts the items newer than its last look from them.
	Times []time.Time
}

// NewerThan counts the items whose time is after t.
func (i Info) NewerThan(t time.Time) int {
	n := 0
	for _, it := range i.Times {
		if it.After(t) {
			n++
		}
	}
	return n
}

// Item is a feed item as a preview shows it.
type Item struct {
	Title     string    `json:"title"`
	Link      string    `json:"link"`
	Published time.Time `json:"published,omitzero"`
}

// MaxLatest caps Info.Latest.
const MaxLatest = 5

// Parse parses a fetched feed body (RSS, Atom or JSON Feed) with gofeed,
// judging item times against the current time. See [ParseAt].
func Parse(body []byte) (Info, error) {
	return ParseAt(body, time.Now())
}

// ParseAt is [Parse] with an explicit current time, against which future item
// times are judged (see [FutureSkew]). A body that gofeed's detector does not
// take for a feed, or JSON that does not name a jsonfeed.org version, returns
// an error wrapping [ErrNotFeed]. A body that is detected as a feed but fails
// to parse returns gofeed's parse error, wrapped.
func ParseAt(body []byte, now time.Time) (info Info, err error) {
	info, _, err = parse(body, now, false)
	return info, err
}

// Entry is one item of a feed, as a harvest records it.
type Entry struct {
	Link  string
	Title string
	// Published is the item's usable time (UTC); zero when it has none
	// (or one before 1995 or beyond FutureSkew).
	Published  time.Time
	Categories []string
}

// ParseEntries is [ParseAt] that also returns every item of the feed, in
// document order.
func ParseEntries(body []byte, now time.Time) (Info, []Entry, error) {
	return parse(body, now, true)
}

func parse(body []byte, now time.Time, collect bool) (info Info, entries []Entry, err error) {
	kind := gofeed.DetectFeedType(bytes.NewReader(body))
	switch kind {
	case gofeed.FeedTypeUnknown:
		return Info{}, nil, fmt.Errorf("%w: no rss, rdf, feed or json feed root", ErrNotFeed)
	case gofeed.FeedTypeJSON:
		var probe struct {
			Version any `json:"version"`
		}
		b := bytes.TrimPrefix(bytes.TrimSpace(body), []byte("\xEF\xBB\xBF"))
		if json.Unmarshal(b, &probe) != nil {
			return Info{}, nil, fmt.Errorf("%w: json is not an object", ErrNotFeed)
		}
		if v, _ := probe.Version.(string); !strings.Contains(v, "jsonfeed.org/version") {
			return Info{}, nil, fmt.Errorf("%w: json without a jsonfeed.org version", ErrNotFeed)
		}
	}
	// gofeed is third-party code fed untrusted input; a panic there must not
	// take the worker down.
	defer func() {
		if r := recover(); r != nil {
			info, entries, err = Info{}, nil, fmt.Errorf("parse feed: gofeed panic: %v", r)
		}
	}()
	f, err := gofeed.NewParser().Parse(bytes.NewReader(body))
	if err != nil && kind != gofeed.FeedTypeJSON {
		// Stray C0 control characters (illegal in XML 1.0) are common in
		// real feeds and make encoding/xml give up; retry without them.
		if clean, ok := stripControl(body); ok {
			if f2, err2 := gofeed.NewParser().Parse(bytes.NewReader(clean)); err2 == nil {
				f, err = f2, nil
			}
		}
	}
	if err != nil {
		return Info{}, nil, fmt.Errorf("parse feed: %w", err)
	}
	info = Info{
		Version:  strings.TrimPrefix(strings.TrimPrefix(f.FeedVersion, "https://jsonfeed.org/version/"), "http://jsonfeed.org/version/"),
		Title:    strings.TrimSpace(f.Title),
		Link:     strings.TrimSpace(f.Link),
		Items:    len(f.Items),
		Language: strings.TrimSpace(f.Language),
	}
	switch f.FeedType {
	case "atom":
		info.Format = FormatAtom
	case "json":
		info.Format = FormatJSONFeed
	default:
		info.Format = FormatRSS
	}
	limit := now.Add(FutureSkew)
	var undated []Item
	for _, it := range f.Items {
		if it == nil {
			continue
		}
		t := it.PublishedParsed
		if t == nil {
			t = it.UpdatedParsed
		}
		item := Item{Title: cleanText(it.Title), Link: strings.TrimSpace(it.Link)}
		if collect {
			e := Entry{Link: item.Link, Title: item.Title, Categories: it.Categories}
			if e.Link == "" && len(it.Links) > 0 {
				e.Link = strings.TrimSpace(it.Links[0])
			}
			if t != nil && !t.Before(earliestItemTime) && !t.After(limit) {
				e.Published = t.UTC()
			}
			entries = append(entries, e)
		}
		if t == nil || t.Before(earliestItemTime) || t.After(limit) {
			if len(undated) < MaxLatest {
				undated = append(undated, item)
			}
			continue
		}
		u := t.UTC()
		item.Published = u
		info.Times = append(info.Times, u)
		info.Latest = insertLatest(info.Latest, item)
		info.Dated++
		if info.Newest.IsZero() || u.After(info.Newest) {
			info.Newest = u
		}
		if info.Oldest.IsZero() || u.Before(info.Oldest) {
			info.Oldest = u
		}
	}
	for _, it := range undated {
		if len(info.Latest) < MaxLatest {
			info.Latest = append(info.Latest, it)
		}
	}
	return info, entries, nil
}

// insertLatest keeps the MaxLatest newest dated items, newest first.
func insertLatest(latest []Item, it Item) []Item {
	i := len(latest)
	for i > 0 && it.Published.After(latest[i-1].Published) {
		i--
	}
	if i >= MaxLatest {
		return latest
	}
	latest = append(latest, Item{})
	copy(latest[i+1:], latest[i:])
	latest[i] = it
	if len(latest) > MaxLatest {
		latest = latest[:MaxLatest]
	}
	return latest
}

// stripControl returns body without the C0 control characters XML 1.0
// forbids (all below 0x20 except tab, LF and CR), and whether there were
// any. A body with NUL bytes is left alone: it is UTF-16 or UTF-32, where
// such bytes are halves of ordinary characters.
func stripControl(body []byte) ([]byte, bool) {
	if bytes.IndexByte(body, 0) >= 0 {
		return nil, false
	}
	bad := func(c byte) bool { return c < 0x20 && c != '\t' && c != '\n' && c != '\r' }
	if bytes.IndexFunc(body, func(r rune) bool { return r < 0x20 && bad(byte(r)) }) < 0 {
		return nil, false
	}
	out := make([]byte, 0, len(body))
	for _, c := range body {
		if !bad(c) {
			out = append(out, c)
		}
	}
	return out, true
}
