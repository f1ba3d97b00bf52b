package contract

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/sitemap"
)

// child is an entry of a sitemap index, ranked before it becomes a
// candidate.
type child struct {
	loc  string
	mod  time.Time
	prio float64
}

// fetchSitemap reads a sitemap as a stream: a urlset's counts, or an
// index's children, of which the most news-like and freshest become
// candidates (Config.MaxIndexChildren of them).
func (r *run) fetchSitemap(ctx context.Context, c *Candidate) {
	resp, err := r.d.f.Stream(ctx, fetch.Request{URL: c.URL, Kind: fetch.KindSitemap, Admit: r.admit})
	if err != nil {
		c.Error = failReason(err)
		return
	}
	defer resp.Body.Close()
	if !c.answered(&resp.Response) {
		return
	}
	now := r.d.cfg.Now()
	keep := r.d.cfg.MaxIndexChildren
	var children []child
	offSite := 0
	var preview []PreviewItem
	res, err := sitemap.Parse(resp.Body, sitemap.Options{}, func(e sitemap.Entry) error {
		if !r.onSite(e.Loc) {
			offSite++
		}
		preview = addPreview(preview, e)
		ch := child{loc: e.Loc, mod: e.LastMod, prio: childPriority(e.Loc, e.LastMod, now)}
		// Keep the best `keep` children, in a slice ordered by priority.
		i := sort.Search(len(children), func(i int) bool { return children[i].prio < ch.prio })
		if i < keep {
			if len(children) < keep {
				children = append(children, child{})
			}
			copy(children[i+1:], children[i:])
			children[i] = ch
		}
		return nil
	})
	c.Format, c.Gzip, c.NewsItems, c.OffSite = string(res.Type), res.Gzip, res.News, offSite
	if !res.Newest.IsZero() {
		c.Newest = timePtr(res.Newest)
	}
	if err != nil {
		switch {
		case errors.Is(err, sitemap.ErrNotSitemap):
			c.Error = "not_a_sitemap"
		case errors.Is(err, sitemap.ErrDoctype):
			c.Error = "doctype_refused"
		case errors.Is(err, sitemap.ErrTooLarge):
			c.Error = "too_large"
		default:
			c.Error = "sitemap_parse_error"
		}
		if res.Entries == 0 || c.Error == "not_a_sitemap" || c.Error == "doctype_refused" {
			if c.Error == "not_a_sitemap" && isHTML(c.MIMEType, nil) {
				c.Format = "html"
			}
			return
		}
		c.Error = ""
	}
	if res.Type != sitemap.TypeIndex {
		c.Items = res.Entries
		c.Preview = preview
		r.addToParents(c)
		return
	}
	c.Children = res.Entries
	for _, ch := range children {
		if !r.onSite(ch.loc) && !r.onSite(c.URL) {
			continue
		}
		cc := r.addSitemap(ch.loc, ViaSitemapIndex, c.URL, c.Depth+1, ch.prio)
		if cc == nil {
			continue
		}
		if !ch.mod.IsZero() {
			cc.Lastmod = timePtr(ch.mod)
		}
		if cc.Depth > r.d.cfg.MaxSitemapDepth {
			cc.Skipped = SkipDepth
		}
	}
}

// childPriority ranks an index child by its name and its lastmod: news
// sitemaps first, then by freshness, so the one news child among fifteen
// archives is read first and stale archives last.
func childPriority(loc string, mod, now time.Time) float64 {
	fresh := 0.0
	if !mod.IsZero() {
		switch age := now.Sub(mod); {
		case age <= 2*24*time.Hour:
			fresh = 3
		case age <= 30*24*time.Hour:
			fresh = 1.5
		case age > 365*24*time.Hour:
			fresh = -3
		}
	}
	ns := sitemap.NewsScore(loc)
	if ns > 0.5 {
		return prioNewsMap + 5*ns + fresh
	}
	return prioSitemap - 8 + 5*ns + fresh
}

// addToParents adds a child sitemap's counts to the indexes above it.
func (r *run) addToParents(c *Candidate) {
	for p := c.Parent; p != ""; {
		pc := r.find(KindSitemap, p)
		if pc == nil {
			return
		}
		pc.Items += c.Items
		pc.NewsItems += c.NewsItems
		if c.Newest != nil && (pc.Newest == nil || c.Newest.After(*pc.Newest)) {
			pc.Newest = c.Newest
		}
		p = pc.Parent
	}
}

// addPreview keeps the newest entries of a sitemap (by news publication
// date, else lastmod), newest first; undated entries only while there is
// room.
func addPreview(p []PreviewItem, e sitemap.Entry) []PreviewItem {
	const keep = 5
	it := PreviewItem{URL: e.Loc, Date: timePtr(e.Date())}
	if e.News != nil {
		it.Title = e.News.Title
	}
	i := len(p)
	for i > 0 && it.Date != nil && (p[i-1].Date == nil || it.Date.After(*p[i-1].Date)) {
		i--
	}
	if i >= keep {
		return p
	}
	p = append(p, PreviewItem{})
	copy(p[i+1:], p[i:])
	p[i] = it
	if len(p) > keep {
		p = p[:keep]
	}
	return p
}
