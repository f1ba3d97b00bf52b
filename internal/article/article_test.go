package article_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/article"
)

func extract(t *testing.T, page, contentType, pageURL string) *article.Article {
	t.Helper()
	a, err := article.Extract(strings.NewReader(page), contentType, pageURL)
	require.NoError(t, err)
	return a
}

// A news page's own statements win over guesses: JSON-LD's headline,
// authors, dates (their time zones kept) and section; its articleBody is
// only a teaser of the page's text, so the body is the generic
// extractor's, its paragraphs apart and without the headline.
func TestStructuredDataFirstTeaserRefused(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("testdata/jsonld-teaser.html")
	require.NoError(t, err)
	a := extract(t, string(page), "", "https://riverside-daily.co.uk/news/2026/11/flood-barriers?utm=x")
	require.Equal(t, "Flood barriers hold as river peaks", a.Title)
	require.Equal(t, []string{"Ana Lima", "Tom Berg"}, a.Authors)
	require.Equal(t, "2026-11-28T08:15:00Z", a.PublishedAt.Format(time.RFC3339), "JSON-LD's date, not OpenGraph's")
	require.Equal(t, "2026-11-28T11:00:00+01:00", a.ModifiedAt.Format(time.RFC3339), "its time zone kept")
	require.Equal(t, "https://riverside-daily.co.uk/news/2026/11/flood-barriers", a.CanonicalURL)
	require.Equal(t, "https://riverside-daily.co.uk/img/barrier.jpg", a.ImageURL)
	require.Equal(t, "en", a.Language)
	require.Equal(t, "Riverside Daily", a.SiteName)
	require.Equal(t, "Local", a.Section)
	require.True(t, strings.HasPrefix(a.Text, "The barriers went up on Friday. Engineers"), a.Text)
	require.Equal(t, 3, strings.Count(a.Text, "\n\n")+1, "three paragraphs")
	require.NotContains(t, a.Text, "Cookie settings")
	require.NotContains(t, a.Text, "Home")
	require.Equal(t, "generic", a.Methods["text"])
	require.Equal(t, "json_ld", a.Methods["published_at"])
	require.Equal(t, "json_ld", a.Methods["authors"])
	require.Empty(t, a.NotArticle)
	require.Greater(t, a.WordCount, 90)
}

// A whole articleBody (longer than what the page shows, as on pages that
// load the rest by script) is the body.
func TestWholeStructuredBodyTaken(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("The whole story is in the structured data and only its start is on the page. ", 20)
	page := `<html><head><script type="application/ld+json">{"@type":"NewsArticle","headline":"Whole","articleBody":"` + body + `"}</script></head>
<body><article><p>The whole story is in the structured data and only its start is on the page.</p><p>Subscribe to read more.</p></article></body></html>`
	a := extract(t, page, "", "https://example.com/whole")
	require.Equal(t, "json_ld", a.Methods["text"])
	require.Equal(t, strings.TrimSpace(body), a.Text)
	require.Empty(t, a.NotArticle)
}

// microdata and meta fill in what JSON-LD does not state.
func TestMicrodataAndMeta(t *testing.T) {
	t.Parallel()
	para := strings.Repeat("Local traders reopened their stalls after the storm and counted the cost of the week. ", 8)
	page := `<html lang="de-AT"><head><meta name="author" content="By Eva Gruber and Max Huber"><meta name="description" content="Storm damage"></head>
<body><div itemscope itemtype="https://schema.org/NewsArticle"><h1 itemprop="headline">Markt öffnet wieder</h1>
<time itemprop="datePublished" datetime="2026-11-20T07:30:00+01:00">20. November</time>
<div itemprop="articleBody"><p>` + para + `</p><p>` + para + `</p></div></div></body></html>`
	a := extract(t, page, "text/html; charset=utf-8", "https://example.at/markt")
	require.Equal(t, "Markt öffnet wieder", a.Title)
	require.Equal(t, "microdata", a.Methods["title"])
	require.Equal(t, "2026-11-20T07:30:00+01:00", a.PublishedAt.Format(time.RFC3339))
	require.Equal(t, "microdata", a.Methods["published_at"])
	require.Equal(t, []string{"Eva Gruber", "Max Huber"}, a.Authors)
	require.Equal(t, "meta", a.Methods["authors"])
	require.Equal(t, "de", a.Language)
	require.Equal(t, "Storm damage", a.Description)
}

// A page in a legacy charset it declares is read as such.
func TestDeclaredCharset(t *testing.T) {
	t.Parallel()
	para := strings.Repeat("Der B\xe4cker \xf6ffnet um f\xfcnf Uhr und backt Br\xf6tchen f\xfcr das ganze Dorf. ", 12)
	page := "<html><head><meta charset=\"iso-8859-1\"><title>B\xe4ckerei</title></head><body><article><p>" + para + "</p><p>" + para + "</p></article></body></html>"
	a := extract(t, page, "", "")
	require.Equal(t, "Bäckerei", a.Title)
	require.Contains(t, a.Text, "Der Bäcker öffnet um fünf Uhr")
}

// Pages that are not articles say why; input that is not HTML is an
// error.
func TestNotArticles(t *testing.T) {
	t.Parallel()
	section := `<html><head><title>Sport</title><meta property="og:type" content="website"></head><body><ul><li><a href="/a">Match report</a></li><li><a href="/b">Transfer news</a></li></ul></body></html>`
	a := extract(t, section, "", "https://example.com/sport")
	require.NotEmpty(t, a.NotArticle)

	video := `<html><head><meta property="og:type" content="video.other"><title>Clip</title></head><body><video src="/v.mp4"></video><p>` + strings.Repeat("A short clip of the parade through the old town on Sunday afternoon. ", 10) + `</p></body></html>`
	a = extract(t, video, "", "https://example.com/clip")
	require.Equal(t, article.NotArticleType, a.NotArticle)

	for _, in := range []string{"", "just some text", `{"json": true}`, "%PDF-1.7\n", "\x89PNG\r\n\x1a\n", `<?xml version="1.0"?><rss version="2.0"><channel/></rss>`} {
		_, err := article.Extract(strings.NewReader(in), "", "")
		require.ErrorIs(t, err, article.ErrNotHTML, "%q", in)
	}
	_, err := article.Extract(strings.NewReader(section), "", "not a url")
	require.Error(t, err)
}
