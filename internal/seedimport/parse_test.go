package seedimport_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/seedimport"
)

func TestParseOPML(t *testing.T) {
	t.Parallel()
	doc := `<?xml version="1.0" encoding="ISO-8859-1"?>
<opml version="1.0">
<head><title>Caf` + "\xe9" + `</title></head>
<body>
<outline title="Tech" text="Tech">
  <outline text="Caf` + "\xe9" + ` News" xmlurl="https://a.example/rss" htmlurl="https://a.example/"/>
  <outline text="Group only"><outline text="Deep" type="rss" xmlURL="https://b.example/atom.xml"
     category="/gb/politics/media,/content_type/blog"/></outline>
</outline>
<outline text="Sitemap" type="link" url="https://c.example/news-sitemap.xml"/>
<outline text="A page" type="link" url="https://d.example/about"/>
</body>
</opml>`
	rows, err := seedimport.Parse(seedimport.FormatOPML, []byte(doc), seedimport.Columns{})
	require.NoError(t, err)
	require.Equal(t, []seedimport.Row{
		{Line: 6, URL: "https://a.example/rss", Site: "https://a.example/", Title: "Café News"},
		{Line: 7, URL: "https://b.example/atom.xml", Title: "Deep", Country: "gb", Category: "politics", Authority: "media", ContentType: "blog"},
		{Line: 10, URL: "https://c.example/news-sitemap.xml", Title: "Sitemap", Sitemap: true},
	}, rows)
}

func TestParseCSV(t *testing.T) {
	t.Parallel()
	doc := "\ufeffName,Feed URL,Homepage,fetch_type\r\n" +
		"'+Plus,https://a.example/feed,a.example,rss\r\n" +
		"\r\n" +
		"\"Multi\nline\",https://b.example/sitemap_news.xml,https://b.example/,\r\n"
	cols, err := seedimport.ParseColumns("url=Feed URL, site = homepage")
	require.NoError(t, err)
	rows, err := seedimport.Parse(seedimport.FormatCSV, []byte(doc), cols)
	require.NoError(t, err)
	require.Equal(t, []seedimport.Row{
		{Line: 2, URL: "https://a.example/feed", Site: "https://a.example", Title: "+Plus"},
		{Line: 4, URL: "https://b.example/sitemap_news.xml", Site: "https://b.example/", Title: "Multi\nline", Sitemap: true},
	}, rows)

	// Without a mapping, the usual names are found; "url" is the entry
	// only when no feed column is named.
	rows, err = seedimport.Parse(seedimport.FormatCSV, []byte("url,feed_url\nhttps://home.example/,https://home.example/rss\n"), seedimport.Columns{})
	require.NoError(t, err)
	require.Equal(t, "https://home.example/rss", rows[0].URL)

	for _, bad := range []string{"url=", "nope=x", "url"} {
		_, err := seedimport.ParseColumns(bad)
		require.Equal(t, "columns", seedengine.ErrorField(err), bad)
	}
}

func TestParseURLs(t *testing.T) {
	t.Parallel()
	rows, err := seedimport.Parse(seedimport.FormatURLs, []byte("# feeds\n\n  https://a.example/feed  \r\nhttps://b.example/sitemap.xml\n"), seedimport.Columns{})
	require.NoError(t, err)
	require.Equal(t, []seedimport.Row{
		{Line: 3, URL: "https://a.example/feed"},
		{Line: 4, URL: "https://b.example/sitemap.xml", Sitemap: true},
	}, rows)

	_, err = seedimport.Parse(seedimport.FormatURLs, []byte(strings.Repeat("https://a.example/\n", seedimport.MaxRows+1)), seedimport.Columns{})
	require.Equal(t, "line["+strconv.Itoa(seedimport.MaxRows+1)+"]", seedengine.ErrorField(err))
}

// Whatever the bytes, Parse answers rows or an error that names a line
// or a parameter, and never panics.
func FuzzParse(f *testing.F) {
	f.Add("opml", `<opml><body><outline xmlUrl="https://a.example/"/></body></opml>`)
	f.Add("csv", "url,title\nhttps://a.example/,A\n")
	f.Add("urls", "https://a.example/\n# x\n")
	f.Add("opml", `<opml><body><outline xmlUrl="x"`)
	f.Fuzz(func(t *testing.T, format, body string) {
		rows, err := seedimport.Parse(format, []byte(body), seedimport.Columns{})
		if err != nil {
			field := seedengine.ErrorField(err)
			require.True(t, strings.HasPrefix(field, "line[") || field == "format" || field == "columns", "%q: %v", field, err)
			return
		}
		require.NotEmpty(t, rows)
		for _, r := range rows {
			require.Positive(t, r.Line)
		}
	})
}
