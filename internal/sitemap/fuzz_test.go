package sitemap

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that no input panics, and that the entries handed to fn
// agree with the Result and the documented guarantees.
func FuzzParse(f *testing.F) {
	for _, tc := range fixtureCases {
		data, err := os.ReadFile(filepath.Join("testdata", tc.file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"", "<", "<!", "<!--", "<![CDATA[", "<?", "</", "<a", "<a/>", "&", "\ufeff",
		urlset(`<url><loc>https://a.example/&#x41;&amp;</loc><lastmod>2024-01-01T00:00:00Z</lastmod></url>`),
		`<!DOCTYPE x [<!ENTITY a "b">]><urlset/>`,
		`<rss><channel><item><guid>https://a.example/</guid></item></channel></rss>`,
		`<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="https://a.example/"/></entry></feed>`,
		"https://a.example/\nftp://x\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opt := Options{MaxBytes: 1 << 20, MaxEntries: 1000}
		n, news := 0, 0
		res, err := Parse(bytes.NewReader(data), opt, func(e Entry) error {
			n++
			if e.News != nil {
				news++
			}
			if !validLoc([]byte(e.Loc)) {
				t.Fatalf("invalid loc passed to fn: %q", e.Loc)
			}
			if !e.LastMod.IsZero() && e.LastMod.Location().String() != "UTC" {
				t.Fatalf("lastmod not in UTC: %v", e.LastMod)
			}
			return nil
		})
		if res.Entries != n || res.News != news {
			t.Fatalf("result counts %d/%d, fn saw %d/%d", res.Entries, res.News, n, news)
		}
		if n > opt.MaxEntries || res.Bytes > opt.MaxBytes {
			t.Fatalf("limits exceeded: %+v", res)
		}
		if err == nil && res.Type == "" {
			t.Fatal("no error and no type")
		}
		if errors.Is(err, ErrNotSitemap) && n > 0 {
			t.Fatalf("ErrNotSitemap after %d entries", n)
		}
	})
}
