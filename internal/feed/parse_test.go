package feed_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/feed"
)

const jsonFeed11 = `{
  "version": "https://jsonfeed.org/version/1.1",
  "title": "  Example Newsroom ",
  "home_page_url": "https://example.org/",
  "feed_url": "https://example.org/feed.json",
  "items": [
    {"id": "2", "content_text": "Second", "url": "https://example.org/2", "date_published": "2025-03-02T10:00:00+01:00"},
    {"id": "1", "content_html": "<p>First</p>", "url": "https://example.org/1", "date_published": "2025-03-01T09:00:00Z", "date_modified": "2025-03-05T09:00:00Z"},
    {"id": "0", "content_text": "Undated", "url": "https://example.org/0"}
  ]
}`

const rssDated = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Dated</title><link>https://example.com/</link>
<item><title>a</title><pubDate>Mon, 03 Mar 2025 08:00:00 GMT</pubDate></item>
<item><title>b</title><pubDate>Sat, 01 Mar 2025 08:00:00 +0100</pubDate></item>
<item><title>future</title><pubDate>Fri, 01 Jan 2027 00:00:00 GMT</pubDate></item>
<item><title>near future</title><pubDate>Wed, 05 Mar 2025 12:00:00 GMT</pubDate></item>
<item><title>epoch</title><pubDate>Thu, 01 Jan 1970 00:00:00 GMT</pubDate></item>
<item><title>none</title></item>
</channel></rss>`

const atomUpdatedOnly = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Atom</title><id>urn:x</id><updated>2025-01-02T00:00:00Z</updated>
<link href="https://example.net/"/>
<entry><title>e</title><id>urn:e</id><updated>2025-01-02T00:00:00Z</updated></entry>
</feed>`

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

func TestParse(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 3, 4, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		body []byte
		want feed.Info
	}{
		{
			name: "json feed 1.1",
			body: []byte(jsonFeed11),
			want: feed.Info{
				Format: feed.FormatJSONFeed, Version: "1.1", Title: "Example Newsroom", Link: "https://example.org/", Items: 3,
				Newest: time.Date(2025, 3, 2, 9, 0, 0, 0, time.UTC), Oldest: time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC), Dated: 2,
			},
		},
		{
			name: "newest and oldest, future beyond 48h and epoch ignored",
			body: []byte(rssDated),
			want: feed.Info{
				Format: feed.FormatRSS, Version: "2.0", Title: "Dated", Link: "https://example.com/", Items: 6,
				Newest: time.Date(2025, 3, 5, 12, 0, 0, 0, time.UTC), Oldest: time.Date(2025, 3, 1, 7, 0, 0, 0, time.UTC), Dated: 3,
			},
		},
		{
			name: "atom entry with updated only",
			body: []byte(atomUpdatedOnly),
			want: feed.Info{
				Format: feed.FormatAtom, Version: "1.0", Title: "Atom", Link: "https://example.net/", Items: 1,
				Newest: time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC), Oldest: time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC), Dated: 1,
			},
		},
		{
			name: "rss declaring the sitemap namespace is a feed",
			body: readTestdata(t, "news-crawl/feed-with-sitemap-namespace.xml"),
			want: feed.Info{
				Format: feed.FormatRSS, Version: "2.0", Title: "Lorem Ipsum Feed", Link: "https://example.com/", Language: "en-us", Items: 2,
				Newest: time.Date(2025, 1, 24, 20, 32, 41, 0, time.UTC), Oldest: time.Date(2025, 1, 24, 19, 33, 17, 0, time.UTC), Dated: 2,
			},
		},
		{
			name: "utf-8 bom and leading space",
			body: []byte("\xEF\xBB\xBF\n  <rss version=\"2.0\"><channel><title>BOM</title></channel></rss>"),
			want: feed.Info{Format: feed.FormatRSS, Version: "2.0", Title: "BOM"},
		},
		{
			name: "illegal control character is stripped",
			body: []byte("<rss version=\"2.0\"><channel><title>a\x08b</title><item><title>x\x01</title></item></channel></rss>"),
			want: feed.Info{Format: feed.FormatRSS, Version: "2.0", Title: "ab", Items: 1},
		},
		{
			name: "rdf is rss",
			body: []byte(`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"><channel><title>R</title></channel><item><title>i</title></item></rdf:RDF>`),
			want: feed.Info{Format: feed.FormatRSS, Version: "1.0", Title: "R", Items: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := feed.ParseAt(tt.body, now)
			require.NoError(t, err)
			require.Len(t, got.Times, got.Dated, "one time per dated item")
			got.Latest, got.Times = nil, nil // TestParseLatest, TestNewerThan
			require.Equal(t, tt.want, got)
		})
	}
}

// NewerThan counts the dated items after a time; undated and future
// items never count.
func TestNewerThan(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 28, 12, 0, 0, 0, time.UTC)
	body := []byte(`<rss version="2.0"><channel><title>T</title>
<item><title>a</title><pubDate>Wed, 28 Jan 2026 10:00:00 GMT</pubDate></item>
<item><title>b</title><pubDate>Tue, 27 Jan 2026 10:00:00 GMT</pubDate></item>
<item><title>c</title><pubDate>Mon, 26 Jan 2026 10:00:00 GMT</pubDate></item>
<item><title>undated</title></item>
<item><title>future</title><pubDate>Sun, 01 Mar 2026 10:00:00 GMT</pubDate></item>
</channel></rss>`)
	info, err := feed.ParseAt(body, now)
	require.NoError(t, err)
	require.Equal(t, 3, info.NewerThan(time.Time{}))
	require.Equal(t, 2, info.NewerThan(time.Date(2026, 1, 26, 10, 0, 0, 0, time.UTC)))
	require.Equal(t, 0, info.NewerThan(now))
}

func TestParseLatest(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 28, 12, 0, 0, 0, time.UTC)
	var items strings.Builder
	for i, d := range []string{"26", "28", "20", "27", "", "25", "24", "23"} {
		date := ""
		if d != "" {
			date = "<pubDate>Mon, " + d + " Jan 2026 08:00:00 GMT</pubDate>"
		}
		fmt.Fprintf(&items, "<item><title> Item  %d </title><link>https://x.example/%d</link>%s</item>", i, i, date)
	}
	info, err := feed.ParseAt([]byte(`<rss version="2.0"><channel><title>t</title>`+items.String()+`</channel></rss>`), now)
	require.NoError(t, err)
	var got []string
	for _, it := range info.Latest {
		got = append(got, it.Title+" "+it.Link)
	}
	require.Equal(t, []string{"Item 1 https://x.example/1", "Item 3 https://x.example/3", "Item 0 https://x.example/0",
		"Item 5 https://x.example/5", "Item 6 https://x.example/6"}, got, "the five newest, newest first, titles cleaned")
	require.Equal(t, time.Date(2026, 1, 28, 8, 0, 0, 0, time.UTC), info.Latest[0].Published)
}

func TestParseNotFeed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body []byte
	}{
		{"html page", []byte("<!DOCTYPE html>\n<html><head><title>Home</title><link rel=\"alternate\" type=\"application/rss+xml\" href=\"/feed\"></head><body><rss></rss></body></html>")},
		{"xhtml page", []byte(`<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body>x</body></html>`)},
		{"news sitemap", readTestdata(t, "news-crawl/sitemap-news.xml")},
		{"sitemap index", []byte(`<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://e.com/s.xml</loc></sitemap></sitemapindex>`)},
		{"api json", []byte(`{"status":"ok","items":[{"title":"x"}]}`)},
		{"json feed with wrong version", []byte(`{"version":"1.1","items":[]}`)},
		{"json array", []byte(`[{"version":"https://jsonfeed.org/version/1"}]`)},
		{"empty", nil},
		{"plain text", []byte("User-agent: *\nDisallow: /\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := feed.Parse(tt.body)
			require.ErrorIs(t, err, feed.ErrNotFeed)
		})
	}
}

func TestParseBrokenFeed(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`<rss version="2.0"><channel><title>cut`,
		`<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>x</title>`,
		`{"version": "https://jsonfeed.org/version/1.1", "items": {"not": "a list"}}`,
	} {
		_, err := feed.Parse([]byte(body))
		require.Error(t, err, body)
		require.NotErrorIs(t, err, feed.ErrNotFeed, body)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(jsonFeed11))
	f.Add([]byte(rssDated))
	f.Add([]byte(atomUpdatedOnly))
	f.Add([]byte(`<rdf:RDF><item><dc:date>2020</dc:date></item></rdf:RDF>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		info, err := feed.Parse(body)
		if err != nil {
			return
		}
		require.Contains(t, []string{feed.FormatRSS, feed.FormatAtom, feed.FormatJSONFeed}, info.Format)
		require.False(t, info.Newest.Before(info.Oldest))
	})
}
