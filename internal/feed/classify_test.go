package feed_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/feed"
)

func TestFromLinkHeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		values []string
		want   []feed.Candidate
	}{
		{
			name:   "multiple links in one header, quoted params, comma inside <>",
			values: []string{`<https://api.example/wp-json/>; rel="https://api.w.org/", </feed/?a=1,2>; rel="alternate"; type="application/rss+xml"; title="News, \"daily\"", <https://example.com/atom>; rel=alternate; type=application/atom+xml`},
			want: []feed.Candidate{
				{URL: "https://example.com/feed/?a=1,2", Source: feed.SourceLinkHeader, Type: "application/rss+xml", Title: `News, "daily"`},
				{URL: "https://example.com/atom", Source: feed.SourceLinkHeader, Type: "application/atom+xml"},
			},
		},
		{
			name: "multiple header fields, rel lists, title*, duplicates, anchor",
			values: []string{
				`</feed.json>; rel="alternate feed"; type="application/feed+json"; title*=UTF-8''Actualit%C3%A9s`,
				`</feed.json>; rel="alternate"; type="application/feed+json"`,
				`</other.rss>; rel="alternate"; type="application/rss+xml"; anchor="/elsewhere"`,
				`</data.xml>; rel="alternate"; type="text/xml"`,
				`</rss.xml>; rel="alternate"; type="text/xml"`,
				`</comments/feed/>; rel="alternate"; type="application/rss+xml"`,
				`</x>; rel="canonical"`,
				`garbage, <`,
			},
			want: []feed.Candidate{
				{URL: "https://example.com/feed.json", Source: feed.SourceLinkHeader, Type: "application/feed+json", Title: "Actualités"},
				{URL: "https://example.com/rss.xml", Source: feed.SourceLinkHeader, Type: "text/xml"},
			},
		},
		{name: "none", values: nil, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for _, v := range tt.values {
				h.Add("Link", v)
			}
			require.Equal(t, tt.want, feed.FromLinkHeader("https://example.com/page", h))
		})
	}
}

func TestParseLinkHeader(t *testing.T) {
	t.Parallel()
	h := http.Header{"Link": {`<a;b,c>;rel=next;  title = "x;y,z" ; foo, <d>; REL="prev"; rel="ignored"`}}
	require.Equal(t, []feed.Link{
		{Target: "a;b,c", Params: map[string]string{"rel": "next", "title": "x;y,z", "foo": ""}},
		{Target: "d", Params: map[string]string{"rel": "prev"}},
	}, feed.ParseLinkHeader(h))
}

func TestIsCommentFeed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url, title string
		want       bool
	}{
		{"https://e.com/feed/", "E » Feed", false},
		{"https://e.com/comments/feed/", "", true},
		{"https://e.com/feed/comments", "", true},
		{"https://e.com/?feed=comments-rss2", "", true},
		{"https://e.com/?p=123&feed=rss2", "", true},
		{"https://e.com/?feed=rss2", "", false},
		{"https://e.com/feed/", "E » Comments Feed", true},
		{"https://e.com/x/feed/", "E » Post Kommentar-Feed", true},
		{"https://e.de/feed/", "E » Kommentare-Feed", true},
		{"https://e.fr/feed/", "E » Flux des commentaires", true},
		{"https://e.es/feed/", "E » Feed de los comentarios", true},
		{"https://e.com/feed/", "Analysis and commentary", false},
		{"https://e.com/2024/05/17/post-slug/feed/", "", true},
		{"https://e.com/2024/05/post-slug/feed/atom/", "", true},
		{"https://e.com/news/2024/feed/", "", false},
		{"https://e.com/news/feed/", "", false},
		{"https://e.com/category/press-releases/feed/", "", false},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, feed.IsCommentFeed(feed.Candidate{URL: tt.url, Title: tt.title}), "%s %q", tt.url, tt.title)
	}
}

var slugRE = regexp.MustCompile(`^[a-z0-9_]{1,40}$`)

func TestContentTypeOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url, title, want string
	}{
		{"https://e.com/feed/", "", "news"},
		{"https://e.com/news/rss", "", "news"},
		{"https://e.com/press-releases/feed/", "", "press_release"},
		{"https://e.com/media_releases/rss.xml", "", "press_release"},
		{"https://e.com/fr/communiqu%C3%A9s/", "", "press_release"},
		{"https://e.com/es/sala-de-prensa", "", "press_release"},
		{"https://e.de/presse/pressemitteilungen.html", "", "press_release"},
		{"https://e.com/rss", "Acme Press Releases", "press_release"},
		{"https://e.com/feed", "Communiqués de presse", "press_release"},
		{"https://e.com/blog/feed/", "", "blog"},
		{"https://blog.e.com/feed/", "", "blog"},
		{"https://e.com/blog/press-releases/", "", "press_release"},
		{"https://e.com/feed", "The Acme Blog", "blog"},
		{"https://e.com/media/", "Media", "news"},
		{"::bad", "", "news"},
	}
	for _, tt := range tests {
		got := feed.ContentTypeOf(tt.url, tt.title)
		require.Equal(t, tt.want, got, "%s %q", tt.url, tt.title)
		require.Regexp(t, slugRE, got)
	}
}

func TestLooksLikeFeedType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ct          string
		feed, maybe bool
	}{
		{"application/rss+xml", true, true},
		{"Application/Atom+XML; charset=utf-8", true, true},
		{"application/feed+json", true, true},
		{"application/rdf+xml", true, true},
		{"text/xml; charset=ISO-8859-1", false, true},
		{"application/xml", false, true},
		{"application/json", false, true},
		{"text/html; charset=utf-8", false, false},
		{"", false, false},
		{"application/octet-stream", false, false},
	}
	for _, tt := range tests {
		require.Equal(t, tt.feed, feed.LooksLikeFeedType(tt.ct), tt.ct)
		require.Equal(t, tt.maybe, feed.MaybeFeedType(tt.ct), tt.ct)
	}
}

func TestLooksLikeFeedURL(t *testing.T) {
	t.Parallel()
	yes := []string{
		"https://e.com/feed", "https://e.com/feed/", "https://e.com/rss", "https://e.com/news/rss/",
		"https://e.com/newsroom/rss", "https://e.com/atom.xml", "https://e.com/index.rss", "https://e.com/feed.json",
		"https://e.com/rss.php?cat=2", "https://e.com/feeds/news.xml", "https://e.com/news/rss.xml",
		"https://e.com/rss/news", "https://e.com/?format=feed&type=rss", "https://e.com/?feed=rss2",
		"http://feeds.feedburner.com/Acme", "https://e.com/feeds/posts/default", "https://e.com/blogs/news.atom",
	}
	no := []string{
		"https://e.com/", "https://e.com/news/", "https://e.com/sitemap.xml", "https://e.com/feed-sitemap.xml",
		"https://e.com/about-rss-feeds", "https://e.com/data.xml", "https://e.com/feeding-tips/", "http://feeds.feedburner.com/",
		"https://e.com/rss/news/story-about-something.html",
	}
	for _, u := range yes {
		require.True(t, feed.LooksLikeFeedURL(u), u)
	}
	for _, u := range no {
		require.False(t, feed.LooksLikeFeedURL(u), u)
	}
}

func TestWellKnownPaths(t *testing.T) {
	t.Parallel()
	ps := feed.WellKnownPaths()
	require.GreaterOrEqual(t, len(ps), 15)
	require.Equal(t, "/feed/", ps[0].Path)
	seen := map[string]bool{}
	for _, p := range ps {
		require.True(t, strings.HasPrefix(p.Path, "/"), p.Path)
		require.False(t, seen[p.Path], "duplicate %s", p.Path)
		seen[p.Path] = true
		require.Regexp(t, slugRE, p.ContentType)
		require.Equal(t, p.ContentType, feed.ContentTypeOf("https://e.com"+p.Path, ""), p.Path)
	}
	for _, p := range []string{"/feed", "/rss", "/rss.xml", "/atom.xml", "/index.xml", "/feed.xml", "/feed.json",
		"/rss/news", "/news/rss", "/newsroom/rss", "/press-releases/rss", "/media-releases/rss",
		"/?format=feed&type=rss", "/index.php?format=feed&type=rss", "/?feed=rss2"} {
		require.True(t, seen[p], p)
	}
	ps[0].Path = "/changed"
	require.Equal(t, "/feed/", feed.WellKnownPaths()[0].Path, "a fresh slice each call")

	cs := feed.WellKnownCandidates("https://www.e.com/deep/page?q=1")
	require.Len(t, cs, len(ps))
	require.Equal(t, feed.Candidate{URL: "https://www.e.com/feed/", Source: feed.SourceWellKnown}, cs[0])
	require.Contains(t, cs, feed.Candidate{URL: "https://www.e.com/?format=feed&type=rss", Source: feed.SourceWellKnown})
	require.Nil(t, feed.WellKnownCandidates("not a url"))
}
