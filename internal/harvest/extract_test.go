package harvest_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/feed"
	"github.com/seedengine/seedengine/internal/harvest"
	"github.com/seedengine/seedengine/internal/sitemap"
)

// A read's items: links resolved against the entry and normalised
// (tracking parameters gone), repeats within the read dropped, the
// entry's language, sections and dates kept.
func TestRead(t *testing.T) {
	t.Parallel()
	entry, _ := url.Parse("https://www.example.com.sg/news/feed/")
	when := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	r := harvest.NewRead(entry)
	r.AddFeed([]feed.Entry{
		{Link: "/news/a?utm_source=rss&id=1", Title: " A ", Published: when, Categories: []string{"Politics", " "}},
		{Link: "https://WWW.example.com.sg/news/a?id=1&utm_medium=feed", Title: "A again"},
		{Link: "b", Title: "B"},
		{Link: "", Title: "no link"},
		{Link: "javascript:alert(1)", Title: "not a page"},
	}, "en-SG")
	r.AddSitemap(sitemap.Entry{Loc: "https://www.example.com.sg/news/c", News: &sitemap.News{Title: "C", Language: "en", PublicationDate: when}})
	items := r.Items()
	require.Len(t, items, 3)
	require.Equal(t, "https://www.example.com.sg/news/a?utm_source=rss&id=1", items[0].URL)
	require.Equal(t, "https://www.example.com.sg/news/a?id=1", items[0].NormalizedURL)
	require.Equal(t, "A", items[0].Title)
	require.Equal(t, when, *items[0].PublishedAt)
	require.Equal(t, "en-SG", items[0].Language)
	require.Equal(t, []string{"Politics"}, items[0].Sections)
	require.Equal(t, "https://www.example.com.sg/news/feed/b", items[1].NormalizedURL)
	require.Nil(t, items[1].PublishedAt)
	require.Equal(t, "C", items[2].Title)
	require.Equal(t, "en", items[2].Language)
	r.Drop()
	require.Empty(t, r.Items())
}

// A link to an address literal, in any of the forms the URL Standard
// reads, or to a name that is no public domain, is never an item: no
// page of the open web lives there, and its page would only be refused.
func TestReadRefusesNonPublicHosts(t *testing.T) {
	t.Parallel()
	entry, _ := url.Parse("https://www.example.com.sg/feed/")
	r := harvest.NewRead(entry)
	var entries []feed.Entry
	for _, link := range []string{
		"http://2130706433/a", "http://0x7f000001/a", "http://0177.0.0.1/a", "http://127.1/a", "http://[::1]/a",
		"http://[::ffff:169.254.169.254]/latest", "http://169.254.169.254/latest/meta-data/", "http://10.0.0.5/a",
		"http://localhost:8080/a", "http://intranet/a", "https://com.sg/a",
		"https://www.example.com.sg/kept",
	} {
		entries = append(entries, feed.Entry{Link: link, Title: link})
	}
	r.AddFeed(entries, "")
	items := r.Items()
	require.Len(t, items, 1, "%v", items)
	require.Equal(t, "https://www.example.com.sg/kept", items[0].URL)
}
