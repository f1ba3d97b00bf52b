package robots

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/cases/*.txt")
	for _, s := range seeds {
		body, err := os.ReadFile(s)
		require.NoError(f, err)
		f.Add(body, "bot", "/x/y?z")
	}
	for _, name := range []string{"www.reddit.com", "store.usps.com", "www.google.com"} {
		body, err := os.ReadFile(filepath.Join("testdata/real", name))
		require.NoError(f, err)
		f.Add(body, "seedengine", "https://"+name+"/search?q=1")
	}
	f.Add([]byte("User-agent: *\nDisallow: /*a*$\nAllow: /$"), "*", "/aaa")
	f.Fuzz(func(t *testing.T, body []byte, agent, rawURL string) {
		r := Parse(body)
		got := r.Allowed(agent, rawURL)
		require.Equal(t, got, r.Allowed(agent, rawURL), "Allowed is deterministic")
		require.Equal(t, got, Parse(body).Allowed(agent, rawURL), "Parse is deterministic")
		g := r.Group(agent)
		require.NotNil(t, g)
		require.Equal(t, got, g.Allowed(PathQuery(rawURL)), "Group.Allowed agrees")
		g.CrawlDelay()
		g.Agents()
		r.Sitemaps(nil)
	})
}

// FuzzMatch checks the fast matcher against the reference matcher.
func FuzzMatch(f *testing.F) {
	f.Add("/a*b$", "/axxb")
	f.Add("*.php$", "/x.php")
	f.Add("/a$b*", "/a$bc")
	f.Fuzz(func(t *testing.T, pattern, path string) {
		if len(pattern) > 64 || len(path) > 256 {
			return
		}
		require.Equal(t, refMatch(pattern, path), Match(pattern, path), "Match(%q, %q)", pattern, path)
	})
}
