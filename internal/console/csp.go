package console

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// policy is the Content-Security-Policy of every console response: this
// origin only, no framing, and inline code only when its text has one of
// the hashes given (so 'unsafe-inline' never appears). A console page may
// frame this origin only (frame-src, which default-src implies, said
// outright): the item page frames its archived page from
// /console/items/{id}/page, the one response that may be framed
// (items.go).
func policy(scripts, styles []string) string {
	src := func(hashes []string) string {
		s := "'self'"
		for _, h := range hashes {
			s += " '" + h + "'"
		}
		return s
	}
	return "default-src 'self'; script-src " + src(scripts) + "; style-src " + src(styles) +
		"; img-src 'self' data:; connect-src 'self'; frame-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'"
}

// riverUIStyles are the <style> texts River UI's scripts add to its page
// and the policy must let through: next-themes' switch-off of transitions
// while it applies the theme (River UI sets disableTransitionOnChange).
// TestQueueUICSP fails if River UI's bundle no longer holds them word for
// word. goober's <style id="_goober"> (react-hot-toast's keyframes) is left
// out on purpose: its text grows at run time, so no hash can allow it, and
// River UI draws its toasts with its own classes, not goober's.
var riverUIStyles = []string{
	"*,*::before,*::after{-webkit-transition:none!important;-moz-transition:none!important;-o-transition:none!important;-ms-transition:none!important;transition:none!important}",
}

// queuePolicy is the policy of River UI's responses. Its page is rendered
// once here and each inline <script> and <style> of it is allowed by its
// hash: River UI's page is the same for every request (its config holds
// only the prefix), and hashes taken now, before anyone can put data in
// it, never allow what an attacker might inject later, as a nonce added
// to every script of a response would.
func queuePolicy(ui http.Handler) string {
	req, err := http.NewRequest(http.MethodGet, queuePrefix, nil)
	if err != nil {
		return policy(nil, nil)
	}
	req.Header.Set("Accept", "text/html")
	rec := &recorder{header: http.Header{}}
	ui.ServeHTTP(rec, req)
	var scripts, styles []string
	if rec.status == 0 || rec.status == http.StatusOK {
		scripts, styles = inlineHashes(rec.buf.Bytes())
	}
	for _, s := range riverUIStyles {
		styles = append(styles, cspHash(s))
	}
	return policy(scripts, styles)
}

// inlineHashes returns the CSP hashes of the inline scripts and style
// elements of an HTML page, read as a browser reads them (raw text,
// CR LF as LF).
func inlineHashes(page []byte) (scripts, styles []string) {
	z := html.NewTokenizer(bytes.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return scripts, styles
		case html.StartTagToken:
			name, more := z.TagName()
			tag := atom.Lookup(name)
			if tag != atom.Script && tag != atom.Style {
				continue
			}
			external := false
			for more {
				var k []byte
				k, _, more = z.TagAttr()
				external = external || (tag == atom.Script && strings.EqualFold(string(k), "src"))
			}
			var text []byte
			if z.Next() == html.TextToken {
				text = z.Text()
			}
			switch {
			case external:
			case tag == atom.Script:
				scripts = append(scripts, cspHash(string(text)))
			default:
				styles = append(styles, cspHash(string(text)))
			}
		}
	}
}

func cspHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}
