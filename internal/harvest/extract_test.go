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
