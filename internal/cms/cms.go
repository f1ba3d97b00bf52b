// Package cms recognises the content management system behind a site
// from what its home page already shows — the generator meta tag, asset
// paths, API links, markup and response headers — and knows where each
// system serves its feeds and sitemaps by default. A contract run that
// knows the CMS tries those paths before the generic lists.
//
// The package is pure: it reads bytes the caller fetched. Every function
// is safe for concurrent use.
package cms

import (
	"bytes"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Profile is what one CMS does by default.
type Profile struct {
	// Name is a stable lower-case id ("wordpress", "arc_xp", …).
	Name string
	// Feeds are the CMS's site-wide feed paths (with query, if any), most
	// likely first.
	Feeds []string
	// NewsSitemaps are its Google News sitemap paths, most likely first.
	NewsSitemaps []string
	// Sitemaps are its general sitemap paths.
	Sitemaps []string
	// SectionFeed, when set, gives the feed of a section (a listing page
	// such as /news/) from the section's path, as the CMS builds it.
	SectionFeed func(sectionPath string) string

	generators []string // lower-case prefixes of <meta name="generator">
	markers    []string // substrings of the page (asset paths, globals, comments)
	headers    []header // response headers that name the CMS
}

// header names a response header whose value (lower-cased) contains
// substr; an empty substr matches any value.
type header struct{ name, substr string }

// Match is one recognised CMS with what gave it away.
type Match struct {
	Profile *Profile
	// Evidence says what matched: `generator "WordPress 6.4.3"`,
	// `marker "/pf/resources/"` or `header X-Generator: "Drupal 10"`.
	Evidence string
}

// Detect names the CMSs a page shows, the most certain first: a generator
// tag or header before a page marker, and among markers the one found with
// more of its markers. generator is the page's <meta name="generator">
// (feed.Page.Generator), body the page as fetched (only the first 512 KiB
// are read), h its response headers (nil allowed).
func Detect(generator string, body []byte, h http.Header) []Match {
	body = body[:min(len(body), 512<<10)]
	gen := strings.ToLower(strings.TrimSpace(generator))
	type scored struct {
		m     Match
		score int
	}
	var found []scored
	for _, p := range profiles {
		best, ev := 0, ""
		if gen != "" {
			for _, g := range p.generators {
				if strings.HasPrefix(gen, g) {
					best, ev = 100, "generator "+strconv.Quote(clip(generator))
					break
				}
			}
		}
		if best == 0 && h != nil {
			for _, hd := range p.headers {
				if v := h.Get(hd.name); v != "" && strings.Contains(strings.ToLower(v), hd.substr) {
					best, ev = 90, "header "+hd.name+": "+strconv.Quote(clip(v))
					break
				}
			}
		}
		if best == 0 {
			n := 0
			for _, mk := range p.markers {
				if bytes.Contains(body, []byte(mk)) {
					if n == 0 {
						ev = "marker " + strconv.Quote(mk)
					}
					n++
				}
			}
			if n > 0 {
				best = 10 * min(n, 5)
			}
		}
		if best > 0 {
			found = append(found, scored{Match{Profile: p, Evidence: ev}, best})
		}
	}
	slices.SortStableFunc(found, func(a, b scored) int { return b.score - a.score })
	out := make([]Match, len(found))
	for i, f := range found {
		out[i] = f.m
	}
	return out
}

// Lookup returns the profile named name, or nil.
func Lookup(name string) *Profile {
	for _, p := range profiles {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Profiles lists every known profile, in a fixed order.
func Profiles() []*Profile { return slices.Clone(profiles) }

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 60 {
		s = s[:60]
	}
	return s
}

// sectionSlash appends a suffix to a section path ending in a slash:
// /news → /news/feed/.
func sectionSlash(suffix string) func(string) string {
	return func(p string) string { return strings.TrimSuffix(p, "/") + "/" + suffix }
}

// sectionQuery appends a query to a section path: /news → /news?format=rss.
func sectionQuery(q string) func(string) string {
	return func(p string) string {
		if p != "/" {
			p = strings.TrimSuffix(p, "/")
		}
		return p + "?" + q
	}
}
