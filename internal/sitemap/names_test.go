package sitemap_test

import (
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/sitemap"
)

func TestNewsScore(t *testing.T) {
	t.Parallel()
	news := []string{
		"https://www.example.com/news-sitemap.xml",
		"https://www.example.com/sitemap-news.xml",
		"https://www.example.com/sitemap_news.xml",
		"https://www.example.com/sitemaps/news.xml",
		"https://www.example.com/sitemap/google-news.xml",
		"https://www.example.com/googlenews.xml",
		"https://www.example.com/sitemap_googlenews.xml",
		"https://www.example.com/newssitemap.xml",
		"https://www.example.com/arc/outboundfeeds/news-sitemap/?outputType=xml",
		"https://www.example.com/tncms/sitemap/news.xml",
		"https://www.example.de/sitemaps/nachrichten.xml",
		"https://www.example.es/sitemap-noticias.xml",
		"https://www.example.fr/sitemap-actualites.xml",
		"https://www.example.jp/sitemap/%E3%83%8B%E3%83%A5%E3%83%BC%E3%82%B9.xml", // ニュース
	}
	for _, u := range news {
		require.Greater(t, sitemap.NewsScore(u), 0.5, u)
	}
	plain := []string{
		"https://www.example.com/sitemap.xml",
		"https://www.example.com/sitemap_index.xml",
		"https://www.example.com/post-sitemap.xml",
		"https://www.example.com/sitemaps/2026-11.xml",
	}
	for _, u := range plain {
		s := sitemap.NewsScore(u)
		require.LessOrEqual(t, s, 0.5, u)
		require.GreaterOrEqual(t, s, 0.0, u)
	}
	notNews := []string{
		"https://www.example.com/image-sitemap.xml",
		"https://www.example.com/video-news-sitemap.xml",
		"https://www.example.com/author-sitemap.xml",
		"https://www.example.com/category-sitemap.xml",
		"https://www.example.com/sitemap_tags.xml",
		"https://www.example.com/newsletter-sitemap.xml",
	}
	for _, u := range notNews {
		require.Negative(t, sitemap.NewsScore(u), u)
	}
	require.Less(t, sitemap.NewsScore("https://x/sitemap-latest.xml"), sitemap.NewsScore("https://x/sitemap-news.xml"))
	require.Zero(t, sitemap.NewsScore("::not a url"))
}

// The robots.txt of a publisher that lists 30 sitemaps: ranked by name,
// the news ones come first, whatever their line.
func TestNewsScoreRanksRobotsLines(t *testing.T) {
	t.Parallel()
	lines := []string{
		"https://www.example.co.uk/cars/sitemap.xml",
		"https://www.example.co.uk/sitemaps/video/video_sitemap_index.xml",
		"https://www.example.co.uk/film/sitemap.xml",
		"https://www.example.co.uk/books/sitemap.xml",
		"https://www.example.co.uk/sitemap-news.xml",
		"https://www.example.co.uk/sitemap.xml",
	}
	ranked := slices.Clone(lines)
	sort.SliceStable(ranked, func(i, j int) bool { return sitemap.NewsScore(ranked[i]) > sitemap.NewsScore(ranked[j]) })
	require.Equal(t, "https://www.example.co.uk/sitemap-news.xml", ranked[0])
	require.Equal(t, "https://www.example.co.uk/sitemaps/video/video_sitemap_index.xml", ranked[len(ranked)-1])
}

func TestKnownPaths(t *testing.T) {
	t.Parallel()
	news := sitemap.KnownNewsPaths()
	require.Equal(t, "/news-sitemap.xml", news[0])
	for _, p := range news {
		require.Greater(t, sitemap.NewsScore("https://example.com"+p), 0.5, p)
	}
	news[0] = "changed"
	require.Equal(t, "/news-sitemap.xml", sitemap.KnownNewsPaths()[0], "a fresh slice each call")
	require.Equal(t, "/sitemap.xml", sitemap.KnownPaths()[0])
}

func TestLooksLikeSitemapURL(t *testing.T) {
	t.Parallel()
	for u, want := range map[string]bool{
		"https://x.example/sitemap.xml":                                     true,
		"https://x.example/sitemaps/news.xml.gz":                            true,
		"https://x.example/sitemap.txt":                                     true,
		"https://x.example/arc/outboundfeeds/sitemap-index/?outputType=xml": true,
		"https://x.example/sitemap/":                                        false,
		"https://x.example/sitemap.html":                                    false,
		"https://x.example/news.xml":                                        false,
		"https://x.example/feed.xml":                                        false,
	} {
		require.Equal(t, want, sitemap.LooksLikeSitemapURL(u), u)
	}
}
