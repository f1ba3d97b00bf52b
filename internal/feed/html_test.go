package feed_test

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/feed"
)

const wordpressHead = `<!DOCTYPE html>
<html lang="en-US">
<head>
<meta charset="UTF-8" />
<title>Acme Corp – Making things</title>
<link rel='dns-prefetch' href='//s.w.org' />
<link rel="alternate" type="application/rss+xml" title="Acme Corp &raquo; Feed" href="https://www.acme.example/feed/" />
<link rel="alternate" type="application/rss+xml" title="Acme Corp &raquo; Comments Feed" href="https://www.acme.example/comments/feed/" />
<link rel="https://api.w.org/" href="https://www.acme.example/wp-json/" />
<link rel="alternate" title="JSON" type="application/json" href="https://www.acme.example/wp-json/wp/v2/pages/2" />
<link rel="alternate" type="application/json+oembed" href="https://www.acme.example/wp-json/oembed/1.0/embed?url=x" />
<link rel="alternate" type="text/xml+oembed" href="https://www.acme.example/wp-json/oembed/1.0/embed?url=x&#038;format=xml" />
<link rel="stylesheet" href="/style.css" type="text/css" />
</head>
<body class="home">
<nav><ul>
<li><a href="https://www.acme.example/">Home</a></li>
<li><a href="https://www.acme.example/about/">About</a></li>
<li><a href="https://www.acme.example/newsroom/">Newsroom</a></li>
<li><a href="https://acme.example/category/press-releases/">Press Releases</a></li>
<li><a href="https://www.acme.example/contact/">Contact</a></li>
</ul></nav>
<article><h2><a href="https://www.acme.example/2024/05/17/acme-opens-plant/">Acme opens plant</a></h2></article>
<footer><a href="https://twitter.com/acme">Twitter</a> <a href="https://other.example/news/">News elsewhere</a></footer>
</body></html>`

const hugoHead = `<!doctype html><html><head>
<base href="https://blog.example.com/">
<link rel="alternate" type="application/atom+xml" href="/posts/index.xml" title="Atom">
<link rel="alternate" type="application/feed+json" href="feed.json" title="JSON Feed">
<link rel="alternate" type="application/json" href="/api/feed.json" title="JSON Feed (old style)">
<link rel="alternate" hreflang="fr" href="/fr/">
<link rel="alternate" type="application/rss+xml" href="/posts/index.xml#dup">
</head><body>
<a href="posts/">Blog</a> <a href="//cdn.example.net/x.png">img</a>
<a href="/blog/2024/hello-world/">Hello world</a>
</body></html>`

const frenchPage = `<html><head><title>Ville</title>
<link rel="alternate" type="application/rss+xml" title="Flux des commentaires" href="/commentaires.xml">
<link rel="alternate" type="application/rss+xml" href="http://feeds.feedburner.com/VilleActus">
</head><body>
<a href="/fr/actualites/">Actualités</a>
<a href="/fr/communiques-de-presse/">Communiqués de presse</a>
<a href="/fr/actualites/2024/un-article-long">Un article</a>
<a href="/es/noticias">Noticias</a>
<a href="/id/berita/">Berita</a>
<a href="/nl/nieuws">Nieuws</a>
<a href="/de/aktuelles/">Aktuelles</a>
<a href="https://ville.example/rss/actus"><img src="rss.png" alt="RSS"></a>
<a href="feed:https://ville.example/agenda.rss">Agenda</a>
<a href="/newsroom/rss">Subscribe</a>
<a href="/abonnement" title="RSS"></a>
<a href="/plan-du-site">Plan du site</a>
<a href="mailto:contact@ville.example">Contact</a>
<a href="javascript:void(0)">Menu</a>
</body></html>`

func TestFromHTML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		pageURL      string
		html         string
		wantFeeds    []feed.Candidate
		wantSections []string // section URLs in order
		wantBase     string
	}{
		{
			name:    "wordpress head keeps main feed only",
			pageURL: "https://www.acme.example/",
			html:    wordpressHead,
			wantFeeds: []feed.Candidate{
				{URL: "https://www.acme.example/feed/", Source: feed.SourceLinkAlternate, Type: "application/rss+xml", Title: "Acme Corp » Feed"},
			},
			wantSections: []string{"https://www.acme.example/newsroom/", "https://acme.example/category/press-releases/"},
			wantBase:     "https://www.acme.example/",
		},
		{
			name:    "hugo atom and json feed with base href",
			pageURL: "https://www.example.com/some/page.html",
			html:    hugoHead,
			wantFeeds: []feed.Candidate{
				{URL: "https://blog.example.com/posts/index.xml", Source: feed.SourceLinkAlternate, Type: "application/atom+xml", Title: "Atom"},
				{URL: "https://blog.example.com/feed.json", Source: feed.SourceLinkAlternate, Type: "application/feed+json", Title: "JSON Feed"},
				{URL: "https://blog.example.com/api/feed.json", Source: feed.SourceLinkAlternate, Type: "application/json", Title: "JSON Feed (old style)"},
			},
			// blog.example.com is not www.example.com: no sections.
			wantBase: "https://blog.example.com/",
		},
		{
			name:    "non-english sections, feedburner, anchors",
			pageURL: "https://ville.example/fr/",
			html:    frenchPage,
			wantFeeds: []feed.Candidate{
				{URL: "http://feeds.feedburner.com/VilleActus", Source: feed.SourceLinkAlternate, Type: "application/rss+xml"},
				{URL: "https://ville.example/rss/actus", Source: feed.SourceAnchor, Title: "RSS"},
				{URL: "https://ville.example/agenda.rss", Source: feed.SourceAnchor, Title: "Agenda"},
				{URL: "https://ville.example/newsroom/rss", Source: feed.SourceAnchor, Title: "Subscribe"},
				{URL: "https://ville.example/abonnement", Source: feed.SourceAnchor, Title: "RSS"},
			},
			wantSections: []string{
				"https://ville.example/fr/communiques-de-presse/",
				"https://ville.example/fr/actualites/",
				"https://ville.example/es/noticias",
				"https://ville.example/id/berita/",
				"https://ville.example/nl/nieuws",
				"https://ville.example/de/aktuelles/",
				"https://ville.example/fr/actualites/2024/un-article-long",
			},
			wantBase: "https://ville.example/fr/",
		},
		{
			name:    "relative and protocol-relative hrefs",
			pageURL: "http://news.example.org/section/index.php?x=1",
			html: `<link rel=alternate type="application/rss+xml; charset=UTF-8" href="../rss.xml">
<link rel="ALTERNATE" type="Application/Atom+XML" href="//feeds.example.org/atom">
<link rel="alternate" type="text/xml" href="/export/data.xml">
<link rel="alternate" type="text/xml" href="  /feeds/news.xml  ">
<a href=" ?format=feed&amp;type=rss ">Joomla</a>
<a href="/press-releases/">Press releases</a>`,
			wantFeeds: []feed.Candidate{
				{URL: "http://news.example.org/rss.xml", Source: feed.SourceLinkAlternate, Type: "application/rss+xml"},
				{URL: "http://feeds.example.org/atom", Source: feed.SourceLinkAlternate, Type: "application/atom+xml"},
				{URL: "http://news.example.org/feeds/news.xml", Source: feed.SourceLinkAlternate, Type: "text/xml"},
				{URL: "http://news.example.org/section/index.php?format=feed&type=rss", Source: feed.SourceAnchor, Title: "Joomla"},
			},
			wantSections: []string{"http://news.example.org/press-releases/"},
			wantBase:     "http://news.example.org/section/index.php?x=1",
		},
		{
			name:    "base href after the links still applies; second base ignored",
			pageURL: "https://a.example/x/",
			html: `<link rel="alternate" type="application/rss+xml" href="rss">
<base href="https://a.example/y/"><base href="https://b.example/">`,
			wantFeeds: []feed.Candidate{{URL: "https://a.example/y/rss", Source: feed.SourceLinkAlternate, Type: "application/rss+xml"}},
			wantBase:  "https://a.example/y/",
		},
		{
			name:    "malformed html",
			pageURL: "https://m.example/",
			html: `<html><head><title>x</title></head><body><a href="/news/">News<a href="/feed/">RSS <b>feed</a>
<div><p><a href='/media-releases'>Media releases</div><link rel="alternate" type="application/rss+xml" href="/rss.xml"
<a href="/blog/feed" `,
			wantFeeds: []feed.Candidate{
				{URL: "https://m.example/feed/", Source: feed.SourceAnchor, Title: "RSS feed"},
			},
			wantSections: []string{"https://m.example/media-releases", "https://m.example/news/"},
			wantBase:     "https://m.example/",
		},
		{
			name:    "per-post and comment feeds dropped",
			pageURL: "https://w.example/2024/05/17/post/",
			html: `<link rel="alternate" type="application/rss+xml" title="W &raquo; Feed" href="/feed/">
<link rel="alternate" type="application/rss+xml" title="W &raquo; Post Kommentar-Feed" href="/2024/05/17/post/feed/x">
<link rel="alternate" type="application/rss+xml" href="/2024/05/17/post/feed/">
<link rel="alternate" type="application/rss+xml" href="/?p=12&amp;feed=rss2">
<link rel="alternate" type="application/rss+xml" href="/news/feed/">`,
			wantFeeds: []feed.Candidate{
				{URL: "https://w.example/feed/", Source: feed.SourceLinkAlternate, Type: "application/rss+xml", Title: "W » Feed"},
				{URL: "https://w.example/news/feed/", Source: feed.SourceLinkAlternate, Type: "application/rss+xml"},
			},
			wantBase: "https://w.example/2024/05/17/post/",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			page, err := feed.FromHTML(tt.pageURL, strings.NewReader(tt.html), 0)
			require.NoError(t, err)
			require.Equal(t, tt.wantFeeds, page.Feeds)
			var got []string
			for _, s := range page.Sections {
				got = append(got, s.URL)
				require.Greater(t, s.Score, 0.0)
				require.LessOrEqual(t, s.Score, 1.0)
			}
			require.Equal(t, tt.wantSections, got)
			require.Equal(t, tt.wantBase, page.Base)
			require.False(t, page.Truncated)
		})
	}
}

func TestFromHTMLSectionContentTypes(t *testing.T) {
	t.Parallel()
	page, err := feed.FromHTML("https://ville.example/fr/", strings.NewReader(frenchPage), 0)
	require.NoError(t, err)
	byURL := map[string]feed.Section{}
	for _, s := range page.Sections {
		byURL[s.URL] = s
	}
	require.Equal(t, feed.ContentNews, byURL["https://ville.example/fr/actualites/"].ContentType)
	require.Equal(t, "Actualités", byURL["https://ville.example/fr/actualites/"].Text)
	require.Equal(t, feed.ContentPressRelease, byURL["https://ville.example/fr/communiques-de-presse/"].ContentType)
	require.Less(t, byURL["https://ville.example/fr/actualites/2024/un-article-long"].Score, byURL["https://ville.example/fr/actualites/"].Score)
}

func TestFromHTMLSectionCap(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, `<a href="/news/%d/">News</a><a href="/newsroom/">Newsroom</a>`, 2000+i)
	}
	page, err := feed.FromHTML("https://s.example/", strings.NewReader(b.String()), 0)
	require.NoError(t, err)
	require.Len(t, page.Sections, 10)
	require.Equal(t, "https://s.example/newsroom/", page.Sections[0].URL) // de-duplicated, best first
}

func TestFromHTMLMaxBytes(t *testing.T) {
	t.Parallel()
	head := `<html><head><link rel="alternate" type="application/rss+xml" href="/rss.xml"></head><body>`
	filler := strings.Repeat("<p>lorem ipsum dolor sit amet</p>\n", 100_000) // 3.4 MB
	tail := `<a href="/late/feed/">RSS</a><a href="/news/">News</a></body></html>`
	page, err := feed.FromHTML("https://big.example/", strings.NewReader(head+filler+tail), 64<<10)
	require.NoError(t, err)
	require.True(t, page.Truncated)
	require.Equal(t, []feed.Candidate{{URL: "https://big.example/rss.xml", Source: feed.SourceLinkAlternate, Type: "application/rss+xml"}}, page.Feeds)
	require.Empty(t, page.Sections)

	page, err = feed.FromHTML("https://big.example/", strings.NewReader(head+filler+tail), 8<<20)
	require.NoError(t, err)
	require.False(t, page.Truncated)
	require.Len(t, page.Feeds, 2)
}

func TestFromHTMLErrors(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"", "/relative", "ftp://x.example/", "https://%zz/"} {
		_, err := feed.FromHTML(u, strings.NewReader("<a href=/feed>x</a>"), 0)
		require.Error(t, err, u)
	}
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader(`<link rel="alternate" type="application/rss+xml" href="/rss.xml"><p>`), iotest.ErrReader(boom))
	page, err := feed.FromHTML("https://e.example/", r, 0)
	require.ErrorIs(t, err, boom)
	require.Len(t, page.Feeds, 1, "what was read before the error is returned")
}

func TestFromHTMLLongTitle(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 300)
	page, err := feed.FromHTML("https://e.example/", strings.NewReader(`<a href="/rss">RSS `+long+"\xff</a>"), 0)
	require.NoError(t, err)
	require.Len(t, page.Feeds, 1)
	require.Equal(t, 200, len([]rune(page.Feeds[0].Title)))
}

func FuzzFromHTML(f *testing.F) {
	for _, s := range []string{wordpressHead, hugoHead, frenchPage, "<a href=feed:", "<base href=//x><a href=?feed=rss2>", "<link rel=alternate type=text/xml href=\"\x00\">"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		page, err := feed.FromHTML("https://fuzz.example/a/b", strings.NewReader(s), 1<<16)
		require.NoError(t, err)
		require.LessOrEqual(t, len(page.Sections), 10)
		for _, c := range page.Feeds {
			require.True(t, strings.HasPrefix(c.URL, "http://") || strings.HasPrefix(c.URL, "https://"), c.URL)
			require.NotContains(t, c.URL, "#")
		}
	})
}

func BenchmarkFromHTML(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(wordpressHead[:strings.Index(wordpressHead, "</head>")])
	sb.WriteString("</head><body>")
	for i := 0; sb.Len() < 200<<10; i++ {
		fmt.Fprintf(&sb, `<div class="card"><h3><a href="/2024/%02d/story-%d/">Story number %d about things</a></h3><p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p><a href="/category/news/">News</a> <img src="/img/%d.jpg" alt="x"></div>`+"\n", i%12+1, i, i, i)
	}
	sb.WriteString("</body></html>")
	page := sb.String()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := feed.FromHTML("https://www.acme.example/", strings.NewReader(page), 0); err != nil {
			b.Fatal(err)
		}
	}
}

// A feed declared with an hreflang is a feed; a page alternate with one is
// an edition; a link to another host's home page is a Home, one to the
// apex from www. is not.
func TestFromHTMLEditions(t *testing.T) {
	t.Parallel()
	page := `<html lang="en-GB"><head>
<link rel="alternate" type="application/rss+xml" hreflang="en" href="/rss/latest.xml">
<link rel="alternate" hreflang="de" href="https://de.example.com/">
<link rel="alternate" hreflang="x-default" href="https://www.example.com/">
</head><body><a href="https://example.com/">News</a> <a href="https://fr.example.com/">Français</a></body></html>`
	p, err := feed.FromHTML("https://www.example.com/", strings.NewReader(page), 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.Lang != "en-gb" {
		t.Errorf("Lang = %q", p.Lang)
	}
	if len(p.Feeds) != 1 || p.Feeds[0].URL != "https://www.example.com/rss/latest.xml" {
		t.Errorf("Feeds = %+v", p.Feeds)
	}
	if want := []feed.Edition{{"de", "https://de.example.com/"}, {"x-default", "https://www.example.com/"}}; !slices.Equal(p.Editions, want) {
		t.Errorf("Editions = %+v", p.Editions)
	}
	if len(p.Homes) != 1 || p.Homes[0].URL != "https://fr.example.com/" || p.Homes[0].Title != "Français" {
		t.Errorf("Homes = %+v", p.Homes)
	}
}
