package sitemap

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/require"
)

// The fixtures in testdata/ are byte-for-byte copies from crawler-commons
// (testdata/ and testdata/extension/) and commoncrawl news-crawl
// (testdata/news-crawl/), both Apache-2.0; see the LICENSE-NOTE.md files.
// The expectations below were checked by reading each file (zcat for .gz).

func date(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

type wantEntry struct {
	i       int // index in document order
	loc     string
	lastMod time.Time
}

var fixtureCases = []struct {
	file    string
	typ     Type
	gzip    bool
	entries int
	news    int
	invalid int
	newest  time.Time
	want    []wantEntry
}{
	{
		file: "atom.xml", typ: TypeAtom, entries: 1, newest: date("2003-12-13T18:30:02Z"),
		// the first alternate link (rel absent), not the feed's own links
		want: []wantEntry{{0, "http://example.org/2003/12/13/atom03", date("2003-12-13T18:30:02Z")}},
	},
	{
		// One URL and no trailing newline: crawler-commons uses it as a text
		// sitemap whose URL lies outside the sitemap's path. Parse has no base
		// URL, so it is a plain one-entry text sitemap; the caller decides
		// which URLs a sitemap may list.
		file: "do-not-visit.txt", typ: TypeText, entries: 1,
		want: []wantEntry{{0, "http://www.example.com/do-not-visit-here", time.Time{}}},
	},
	{
		file: "sitemap-with-bom.txt", typ: TypeText, entries: 2,
		want: []wantEntry{{0, "http://www.domain.com/page1.html", time.Time{}}, {1, "http://www.domain.com/page2.html", time.Time{}}},
	},
	{
		file: "sitemap.txt", typ: TypeText, entries: 2,
		want: []wantEntry{{0, "http://www.domain.com/page1.html", time.Time{}}, {1, "http://www.domain.com/page2.html", time.Time{}}},
	},
	{
		// text inside gzip; the '&' is literal in text sitemaps
		file: "sitemap.txt.gz", typ: TypeText, gzip: true, entries: 5,
		want: []wantEntry{{0, "http://www.example.com/", time.Time{}}, {4, "http://www.example.com/catalog?item=83&desc=vacation_usa", time.Time{}}},
	},
	{
		file: "xmlSitemap.gz", typ: TypeURLSet, gzip: true, entries: 5, newest: date("2005-01-01T00:00:00Z"),
		want: []wantEntry{
			{0, "http://www.example.com/", date("2005-01-01T00:00:00Z")},
			{1, "http://www.example.com/catalog?item=12&desc=vacation_hawaii", time.Time{}},
			{3, "http://www.example.com/catalog?item=74&desc=vacation_newfoundland", date("2004-12-23T18:00:15Z")},
			{4, "http://www.example.com/catalog?item=83&desc=vacation_usa", date("2004-11-23T00:00:00Z")},
		},
	},
	{
		// old Google namespace; white space around the second loc
		file: "sitemap.badns.xml", typ: TypeURLSet, entries: 2,
		want: []wantEntry{{0, "http://www.example.com/1", time.Time{}}, {1, "http://www.example.com/2", time.Time{}}},
	},
	{
		// sit:urlset / sit:url / sit:loc
		file: "sitemap.ns.xml", typ: TypeURLSet, entries: 2,
		want: []wantEntry{{0, "http://www.example.com/1", time.Time{}}, {1, "http://www.example.com/2", time.Time{}}},
	},
	{
		// <sitemap> elements holding the URL as bare text, with &amp;
		file: "sitemap.index.xml", typ: TypeIndex, entries: 15,
		want: []wantEntry{
			{0, "https://example.com/sitemap.jss?portalCode=10260&lang=en", time.Time{}},
			{1, "https://example.com/sitemap.jss?portalCode=2&lang=en", time.Time{}},
			{14, "https://example.com/sitemap.jss?portalCode=10570&lang=en", time.Time{}},
		},
	},
	{
		// 74 <url>; image:loc and video:*_loc must not be taken for the loc
		file: "extension/hebdenbridgetimes-articles-sitemap.xml", typ: TypeURLSet, entries: 74,
		newest: date("2015-05-03T18:51:50+01:00"),
		want: []wantEntry{
			{0, "http://www.hebdenbridgetimes.co.uk/news/local/video-tour-de-yorkshire-in-calderdale-1-7242580", date("2015-05-03T18:51:50+01:00")},
			{73, "http://www.hebdenbridgetimes.co.uk/news/local/now-you-see-it-now-you-don-t-it-s-off-the-wall-1-7229940", date("2015-04-26T17:47:55+01:00")},
		},
	},
	{
		file: "extension/pagemaps-sitemap.xml", typ: TypeURLSet, entries: 2,
		want: []wantEntry{{0, "http://www.example.com/foo", time.Time{}}, {1, "http://www.example.com/bar", time.Time{}}},
	},
	{
		file: "extension/shinpaideshou-news-sitemap.xml", typ: TypeURLSet, entries: 3, news: 3,
		newest: date("2017-04-25T10:00:36Z"),
		want: []wantEntry{
			{0, "https://shinpaideshou.wordpress.com/2017/04/25/job-opening-reischauer-policy-research-fellow/", time.Time{}},
			{2, "https://shinpaideshou.wordpress.com/2017/04/24/job-opening-lecturer-in-japanese-studies-university-of-leeds/", time.Time{}},
		},
	},
	{
		file: "extension/sitemap-images.xml", typ: TypeURLSet, entries: 1,
		want: []wantEntry{{0, "http://www.example.com/images/some_image_landing_page.html", time.Time{}}},
	},
	{
		file: "extension/sitemap-links.xml", typ: TypeURLSet, entries: 3,
		want: []wantEntry{{0, "http://www.example.com/english/", time.Time{}}, {2, "http://www.example.com/schweiz-deutsch/", time.Time{}}},
	},
	{
		file: "extension/sitemap-mobile.xml", typ: TypeURLSet, entries: 3,
		want: []wantEntry{{1, "http://www.example.com/mobile-friendly-2/", time.Time{}}, {2, "http://www.example.com/no-mobile/", time.Time{}}},
	},
	{
		file: "extension/sitemap-news.xml", typ: TypeURLSet, entries: 2, news: 2,
		newest: date("2025-05-27T00:00:00Z"),
		want:   []wantEntry{{0, "http://www.example.org/business/article55.html", time.Time{}}, {1, "http://www.example.org/empty_news_name.html", time.Time{}}},
	},
	{
		// the loc comes after video:video (and its *_loc elements)
		file: "extension/sitemap-videos-tvshow.xml", typ: TypeURLSet, entries: 1,
		want: []wantEntry{{0, "https://example.org/my-tv-show/23/13/", time.Time{}}},
	},
	{
		file: "extension/sitemap-videos.xml", typ: TypeURLSet, entries: 3,
		want: []wantEntry{{0, "http://www.example.com/videos/some_video_landing_page.html", time.Time{}}, {2, "http://www.example.com/videos/some_video_landing_page-3.html", time.Time{}}},
	},
	{
		// RSS that declares the sitemap namespace is still RSS, never a
		// (news) sitemap; pubDate -0500 becomes UTC
		file: "news-crawl/feed-with-sitemap-namespace.xml", typ: TypeRSS, entries: 2,
		newest: date("2025-01-24T20:32:41Z"),
		want: []wantEntry{
			{0, "https://example.com/lorem/123", date("2025-01-24T15:32:41-05:00")},
			{1, "https://example.com/lorem/456", date("2025-01-24T14:33:17-05:00")},
		},
	},
	{
		// xml-stylesheet PI and comment before the root; image and xhtml links ignored
		file: "news-crawl/sitemap-news.xml", typ: TypeURLSet, entries: 1, news: 1,
		newest: date("2008-12-23T00:00:00Z"),
		want:   []wantEntry{{0, "http://www.example.com/business/article55.html", time.Time{}}},
	},
}

func parseAll(t *testing.T, data []byte, opt Options) (Result, []Entry, error) {
	t.Helper()
	var got []Entry
	res, err := Parse(bytes.NewReader(data), opt, func(e Entry) error {
		got = append(got, e)
		return nil
	})
	return res, got, err
}

func TestParseFixtures(t *testing.T) {
	t.Parallel()
	for _, tc := range fixtureCases {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata", tc.file))
			require.NoError(t, err)
			res, got, err := parseAll(t, data, Options{})
			require.NoError(t, err)
			require.Equal(t, tc.typ, res.Type)
			require.Equal(t, tc.gzip, res.Gzip)
			require.Equal(t, tc.entries, res.Entries)
			require.Len(t, got, tc.entries)
			require.Equal(t, tc.news, res.News)
			require.Equal(t, tc.news > 0, res.IsNews())
			require.Equal(t, tc.invalid, res.Invalid)
			require.False(t, res.Truncated)
			require.True(t, tc.newest.Equal(res.Newest), "newest %v, want %v", res.Newest, tc.newest)
			if !tc.gzip {
				require.Equal(t, int64(len(data)), res.Bytes)
			}
			for _, w := range tc.want {
				require.Equal(t, w.loc, got[w.i].Loc, "entry %d", w.i)
				require.True(t, w.lastMod.Equal(got[w.i].LastMod), "entry %d lastmod %v, want %v", w.i, got[w.i].LastMod, w.lastMod)
			}
			news := 0
			for _, e := range got {
				if e.News != nil {
					news++
				}
			}
			require.Equal(t, tc.news, news)
		})
	}
}

// TestParseFixturesChunked feeds every fixture one byte per Read, so that
// every token straddles a buffer refill at some point.
func TestParseFixturesChunked(t *testing.T) {
	t.Parallel()
	for _, tc := range fixtureCases {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata", tc.file))
			require.NoError(t, err)
			want, wantEntries, err := parseAll(t, data, Options{})
			require.NoError(t, err)
			var got []Entry
			res, err := Parse(iotest.OneByteReader(bytes.NewReader(data)), Options{}, func(e Entry) error {
				got = append(got, e)
				return nil
			})
			require.NoError(t, err)
			// XML parsing stops at the end of the root element, so how much
			// of the trailing white space was read depends on the reads.
			if !tc.gzip {
				require.GreaterOrEqual(t, res.Bytes, int64(len(bytes.TrimRight(data, " \t\r\n"))))
				require.LessOrEqual(t, res.Bytes, int64(len(data)))
				res.Bytes = want.Bytes
			}
			require.Equal(t, want, res)
			require.Equal(t, wantEntries, got)
		})
	}
}

// TestFixturesCovered keeps the table in step with testdata/.
func TestFixturesCovered(t *testing.T) {
	t.Parallel()
	listed := map[string]bool{}
	for _, tc := range fixtureCases {
		listed[tc.file] = true
	}
	var files []string
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "LICENSE-NOTE.md" {
			return err
		}
		rel, err := filepath.Rel("testdata", path)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	require.NoError(t, err)
	require.Len(t, files, len(listed))
	for _, f := range files {
		require.True(t, listed[f], "fixture %s has no test case", f)
	}
}

func TestParseNewsFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		i    int
		want News
	}{
		{"extension/shinpaideshou-news-sitemap.xml", 0, News{
			PublicationName: "What can I do with a B.A. in Japanese Studies?",
			Language:        "en",
			Title:           "Job Opening: Reischauer Policy Research Fellow",
			PublicationDate: date("2017-04-25T10:00:36Z"),
		}},
		{"extension/sitemap-news.xml", 0, News{
			PublicationName: "The Example Times",
			Language:        "en",
			Title:           "Companies A, B in Merger Talks",
			PublicationDate: date("2008-12-23T00:00:00Z"),
		}},
		{"extension/sitemap-news.xml", 1, News{
			Language:        "en",
			Title:           "Test empty news attributes",
			PublicationDate: date("2025-05-27T00:00:00Z"),
		}},
		{"news-crawl/sitemap-news.xml", 0, News{
			PublicationName: "The Example Times",
			Language:        "en",
			Title:           "Companies A, B in Merger Talks",
			PublicationDate: date("2008-12-23T00:00:00Z"),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata", tc.file))
			require.NoError(t, err)
			_, got, err := parseAll(t, data, Options{})
			require.NoError(t, err)
			require.NotNil(t, got[tc.i].News)
			require.Equal(t, tc.want, *got[tc.i].News)
		})
	}
}
