package simweb_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/simweb"
)

type urlset struct {
	URLs []struct {
		Loc     string `xml:"loc"`
		Lastmod string `xml:"lastmod"`
		News    *struct {
			Title string `xml:"title"`
			Date  string `xml:"publication_date"`
		} `xml:"news"`
	} `xml:"url"`
}

type sitemapIndex struct {
	Sitemaps []struct {
		Loc string `xml:"loc"`
	} `xml:"sitemap"`
}

type rss struct {
	Channel struct {
		Title string `xml:"title"`
		Items []struct {
			Title   string `xml:"title"`
			Link    string `xml:"link"`
			PubDate string `xml:"pubDate"`
		} `xml:"item"`
	} `xml:"channel"`
}

// fixedNow makes content byte-stable, as a test that compares content needs.
var fixedNow = time.Date(2026, 1, 28, 15, 4, 5, 0, time.UTC)

func TestDefaultContent(t *testing.T) {
	t.Parallel()
	e := setup(t, simweb.Site{Host: host})
	now := time.Now()

	resp, robots := e.get(t, "https://"+host+"/robots.txt")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Content-Type"), "text/plain")
	require.Contains(t, robots, "User-agent: *\n")
	require.Contains(t, robots, "Sitemap: https://"+host+"/sitemap.xml\n")

	resp, body := e.get(t, "https://"+host+"/sitemap.xml")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var us urlset
	require.NoError(t, xml.Unmarshal([]byte(body), &us))
	require.Len(t, us.URLs, 20)
	for _, u := range us.URLs {
		require.True(t, strings.HasPrefix(u.Loc, "https://"+host+"/"), u.Loc)
		mod, err := time.Parse(time.RFC3339, u.Lastmod)
		require.NoError(t, err)
		require.True(t, mod.Before(now))
		// Every listed URL exists.
		r, _ := e.get(t, u.Loc)
		require.Equal(t, http.StatusOK, r.StatusCode, u.Loc)
	}

	resp, body = e.get(t, "https://"+host+"/feed/")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Content-Type"), "application/rss+xml")
	var feed rss
	require.NoError(t, xml.Unmarshal([]byte(body), &feed))
	require.Len(t, feed.Channel.Items, 10)
	newest, err := time.Parse(time.RFC1123Z, feed.Channel.Items[0].PubDate)
	require.NoError(t, err)
	require.WithinDuration(t, now, newest, 4*24*time.Hour, "the feed is fresh")
	var prev time.Time
	for i, it := range feed.Channel.Items {
		d, err := time.Parse(time.RFC1123Z, it.PubDate)
		require.NoError(t, err)
		if i > 0 {
			require.True(t, d.Before(prev), "newest first")
		}
		prev = d
		r, page := e.get(t, it.Link)
		require.Equal(t, http.StatusOK, r.StatusCode)
		require.Contains(t, page, it.Title)
	}

	resp, _ = e.get(t, "https://"+host+"/comments/feed/")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	resp, _ = e.get(t, "https://"+host+"/feed")
	require.Equal(t, http.StatusMovedPermanently, resp.StatusCode)
	require.Equal(t, "https://"+host+"/feed/", resp.Header.Get("Location"))
	resp, _ = e.get(t, "https://"+host+"/news/99999-nothing/")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestContentIsDeterministic(t *testing.T) {
	t.Parallel()
	var bodies []string
	for range 2 {
		web, err := simweb.Start(simweb.Config{Now: func() time.Time { return fixedNow }})
		require.NoError(t, err)
		web.AddSite(simweb.Site{Host: host})
		req, err := http.NewRequest(http.MethodGet, "http://"+web.HTTPAddr()+"/feed/", nil)
		require.NoError(t, err)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.NoError(t, web.Close())
		bodies = append(bodies, string(b))
	}
	require.Equal(t, bodies[0], bodies[1])
	require.Contains(t, bodies[0], "2026", "dates follow Config.Now")
}

func TestLayouts(t *testing.T) {
	t.Parallel()
	e := setup(t,
		simweb.Site{Host: "news.example", Layout: simweb.LayoutNews},
		simweb.Site{Host: "gov.example", Layout: simweb.LayoutGov},
		simweb.Site{Host: "blog.example", Layout: simweb.LayoutBlog},
		simweb.Site{Host: "static.example", Layout: simweb.LayoutStatic})

	t.Run("news", func(t *testing.T) {
		_, robots := e.get(t, "https://news.example/robots.txt")
		require.Contains(t, robots, "Sitemap: https://news.example/sitemap_index.xml\n")
		require.Contains(t, robots, "Sitemap: https://news.example/news-sitemap.xml\n")
		_, home := e.get(t, "https://news.example/")
		require.NotContains(t, home, `rel="alternate"`)
		r, _ := e.get(t, "https://news.example/feed/")
		require.Equal(t, http.StatusNotFound, r.StatusCode)

		_, body := e.get(t, "https://news.example/sitemap_index.xml")
		var idx sitemapIndex
		require.NoError(t, xml.Unmarshal([]byte(body), &idx))
		require.Len(t, idx.Sitemaps, 4)
		total, gz := 0, 0
		for _, s := range idx.Sitemaps {
			r, body := e.get(t, s.Loc)
			require.Equal(t, http.StatusOK, r.StatusCode)
			data := []byte(body)
			if strings.HasSuffix(s.Loc, ".gz") {
				gz++
				require.Equal(t, "application/x-gzip", r.Header.Get("Content-Type"))
				require.Empty(t, r.Header.Get("Content-Encoding"), "a gzip file, not a gzip-encoded response")
				zr, err := gzip.NewReader(bytes.NewReader(data))
				require.NoError(t, err)
				data, err = io.ReadAll(zr)
				require.NoError(t, err)
			}
			var us urlset
			require.NoError(t, xml.Unmarshal(data, &us))
			total += len(us.URLs)
		}
		require.Equal(t, 2, gz)
		require.Greater(t, total, 24)

		_, body = e.get(t, "https://news.example/news-sitemap.xml")
		require.Contains(t, body, `xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"`)
		var news urlset
		require.NoError(t, xml.Unmarshal([]byte(body), &news))
		require.Len(t, news.URLs, 10)
		require.NotNil(t, news.URLs[0].News)
		require.NotEmpty(t, news.URLs[0].News.Title)
	})

	t.Run("gov", func(t *testing.T) {
		_, home := e.get(t, "https://gov.example/")
		require.NotContains(t, home, `rel="alternate"`)
		require.Contains(t, home, `href="/newsroom/"`)
		_, room := e.get(t, "https://gov.example/newsroom/")
		require.Contains(t, room, `<a href="/newsroom/rss">`)
		r, body := e.get(t, "https://gov.example/newsroom/rss")
		require.Equal(t, http.StatusOK, r.StatusCode)
		var feed rss
		require.NoError(t, xml.Unmarshal([]byte(body), &feed))
		require.Len(t, feed.Channel.Items, 10)
		require.True(t, strings.HasPrefix(feed.Channel.Items[0].Link, "https://gov.example/newsroom/"))
		r, _ = e.get(t, "https://gov.example/sitemap.xml")
		require.Equal(t, http.StatusOK, r.StatusCode)
	})

	t.Run("blog", func(t *testing.T) {
		_, home := e.get(t, "https://blog.example/")
		require.Contains(t, home, `type="application/atom+xml"`)
		require.Contains(t, home, `type="application/feed+json"`)
		_, atom := e.get(t, "https://blog.example/atom.xml")
		var af struct {
			Entries []struct {
				Title string `xml:"title"`
			} `xml:"entry"`
		}
		require.NoError(t, xml.Unmarshal([]byte(atom), &af))
		require.Len(t, af.Entries, 10)
		r, js := e.get(t, "https://blog.example/feed.json")
		require.Contains(t, r.Header.Get("Content-Type"), "application/feed+json")
		var jf struct {
			Version string `json:"version"`
			Items   []struct {
				URL           string    `json:"url"`
				DatePublished time.Time `json:"date_published"`
			} `json:"items"`
		}
		require.NoError(t, json.Unmarshal([]byte(js), &jf))
		require.Equal(t, "https://jsonfeed.org/version/1.1", jf.Version)
		require.Len(t, jf.Items, 10)
	})

	t.Run("static", func(t *testing.T) {
		_, robots := e.get(t, "https://static.example/robots.txt")
		require.NotContains(t, robots, "Sitemap")
		for _, p := range []string{"/feed/", "/sitemap.xml", "/rss", "/atom.xml"} {
			r, _ := e.get(t, "https://static.example"+p)
			require.Equal(t, http.StatusNotFound, r.StatusCode, p)
		}
		_, section := e.get(t, "https://static.example/news/")
		require.Equal(t, 20, strings.Count(section, "<article>"))
	})
}

func TestPagesAndRobotsOverride(t *testing.T) {
	t.Parallel()
	blocked := "User-agent: *\nDisallow: /\n"
	e := setup(t,
		simweb.Site{Host: host, Robots: &blocked, Pages: map[string]simweb.Page{
			"/feed/": {ContentType: "application/rss+xml", Body: []byte("<rss/>"), Gzip: true,
				Header: http.Header{"Link": {`</feed/>; rel="self"`}}},
			"/index.php?format=feed&type=rss": {ContentType: "application/rss+xml", Body: []byte("<rss>joomla</rss>")},
			"/old":                            {Status: http.StatusMovedPermanently, Header: http.Header{"Location": {"/new"}}},
		}},
		simweb.Site{Host: "gone.example", RobotsStatus: http.StatusNotFound},
		simweb.Site{Host: "broken.example", RobotsStatus: http.StatusServiceUnavailable, Robots: new(string)},
		simweb.Site{Host: "walled.example", Scenario: simweb.ScenarioBotWall, Robots: &blocked})

	_, body := e.get(t, "https://"+host+"/robots.txt")
	require.Equal(t, blocked, body)

	resp, err := e.client.Get("https://" + host + "/feed/")
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.True(t, resp.Uncompressed, "sent gzip-encoded")
	require.Equal(t, "<rss/>", string(b))
	require.Equal(t, `</feed/>; rel="self"`, resp.Header.Get("Link"))

	_, body = e.get(t, "https://"+host+"/index.php?format=feed&type=rss")
	require.Equal(t, "<rss>joomla</rss>", body)
	resp, _ = e.get(t, "https://"+host+"/index.php")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	resp, _ = e.get(t, "https://"+host+"/old")
	require.Equal(t, http.StatusMovedPermanently, resp.StatusCode)
	require.Equal(t, "/new", resp.Header.Get("Location"))
	resp, _ = e.get(t, "https://"+host+"/")
	require.Equal(t, http.StatusOK, resp.StatusCode, "built-ins still served")

	resp, _ = e.get(t, "https://gone.example/robots.txt")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	resp, body = e.get(t, "https://broken.example/robots.txt")
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	require.Empty(t, body)

	resp, body = e.get(t, "https://walled.example/robots.txt")
	require.Equal(t, http.StatusOK, resp.StatusCode, "explicit robots wins over the wall")
	require.Equal(t, blocked, body)
	resp, _ = e.get(t, "https://walled.example/")
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
}

func TestAddSiteWhileServing(t *testing.T) {
	t.Parallel()
	e := setup(t, simweb.Site{Host: host})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := e.client.Get("https://" + host + "/")
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		})
	}
	for i := range 200 {
		sc := simweb.ScenarioHealthy
		if i%2 == 1 {
			sc = simweb.ScenarioServerError
		}
		e.web.AddSite(simweb.Site{Host: host, Scenario: sc})
		e.web.Generate(5, simweb.Mix{simweb.ScenarioSlow: 0.2})
	}
	close(stop)
	wg.Wait()
	e.web.AddSite(simweb.Site{Host: host, Scenario: simweb.ScenarioParked})
	_, body := e.get(t, "https://"+host+"/")
	require.Contains(t, body, "This domain is for sale", "the last configuration wins")
}

func TestAddSiteRejectsMistakes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	require.Panics(t, func() { e.web.AddSite(simweb.Site{}) })
	require.Panics(t, func() { e.web.AddSite(simweb.Site{Host: host, Scenario: "dead"}) })
	require.Panics(t, func() { e.web.AddSite(simweb.Site{Host: host, Layout: "joomla"}) })
	require.Panics(t, func() { e.web.AddSite(simweb.Site{Host: "https://" + host}) })
	e.web.AddSite(simweb.Site{Host: "MiXeD.Example."})
	s, ok := e.web.Site("mixed.example")
	require.True(t, ok)
	require.Equal(t, "mixed.example", s.Host)
}
