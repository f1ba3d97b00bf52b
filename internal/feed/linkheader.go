package feed

import (
	"net/http"
	"net/url"
	"strings"
)

// Link is one link-value of an HTTP Link header (RFC 8288).
type Link struct {
	Target string            // the URI reference between < and >, unresolved
	Params map[string]string // parameter names lower case; values unquoted; title* decoded into "title*"
}

// ParseLinkHeader parses every Link header value in h into its link-values.
// It is lenient: a malformed link-value is skipped, not fatal. Commas and
// semicolons inside <…> and inside quoted strings do not split.
func ParseLinkHeader(h http.Header) []Link {
	var out []Link
	for _, v := range h.Values("Link") {
		out = appendLinks(out, v)
	}
	return out
}

// FromLinkHeader extracts alternate feed links from HTTP Link headers
// (RFC 8288), resolved against pageURL. A link counts when its rel contains
// "alternate" and its type is a feed type, or a generic XML type with a URL
// that looks like a feed. Links whose anchor parameter names another resource
// are skipped. The result is de-duplicated by URL; comment feeds are dropped.
func FromLinkHeader(pageURL string, h http.Header) []Candidate {
	base, err := parseAbs(pageURL)
	if err != nil {
		return nil
	}
	var out []Candidate
	seen := map[string]bool{}
	for _, l := range ParseLinkHeader(h) {
		alt := false
		for _, r := range strings.Fields(strings.ToLower(l.Params["rel"])) {
			if r == "alternate" {
				alt = true
			}
		}
		if !alt {
			continue
		}
		if a, ok := l.Params["anchor"]; ok && a != "" {
			au, ok := resolve(base, a)
			if !ok || au.String() != mustResolve(base) {
				continue
			}
		}
		u, ok := resolve(base, l.Target)
		if !ok {
			continue
		}
		typ := mediaType(l.Params["type"])
		if !LooksLikeFeedType(typ) && !((typ == "text/xml" || typ == "application/xml") && looksLikeFeedURL(u)) {
			continue
		}
		title := l.Params["title*"]
		if title == "" {
			title = l.Params["title"]
		}
		c := Candidate{URL: u.String(), Source: SourceLinkHeader, Type: typ, Title: cleanText(title)}
		if seen[c.URL] || IsCommentFeed(c) {
			continue
		}
		seen[c.URL] = true
		out = append(out, c)
	}
	return out
}

// mustResolve returns base normalised the way resolve normalises links.
func mustResolve(base *url.URL) string {
	if u, ok := resolve(base, base.String()); ok {
		return u.String()
	}
	return base.String()
}

// appendLinks parses one header value: link-value *( "," link-value ).
func appendLinks(out []Link, v string) []Link {
	i := 0
	for i < len(v) {
		// Find the next '<'.
		lt := strings.IndexByte(v[i:], '<')
		if lt < 0 {
			break
		}
		i += lt + 1
		gt := strings.IndexByte(v[i:], '>')
		if gt < 0 {
			break
		}
		l := Link{Target: strings.TrimSpace(v[i : i+gt]), Params: map[string]string{}}
		i += gt + 1
		// Parameters until a ',' outside quotes, or the end.
		for i < len(v) {
			i = skipSpace(v, i)
			if i >= len(v) {
				break
			}
			if v[i] == ',' {
				i++
				break
			}
			if v[i] != ';' {
				// Garbage between parameters: skip to the next ';' or ','.
				j := strings.IndexAny(v[i:], ";,")
				if j < 0 {
					i = len(v)
					break
				}
				i += j
				continue
			}
			i = skipSpace(v, i+1)
			start := i
			for i < len(v) && v[i] != '=' && v[i] != ';' && v[i] != ',' {
				i++
			}
			name := strings.ToLower(strings.TrimSpace(v[start:i]))
			val := ""
			if i < len(v) && v[i] == '=' {
				i = skipSpace(v, i+1)
				if i < len(v) && v[i] == '"' {
					var b strings.Builder
					i++
					for i < len(v) && v[i] != '"' {
						if v[i] == '\\' && i+1 < len(v) {
							i++
						}
						b.WriteByte(v[i])
						i++
					}
					i++ // closing quote
					val = b.String()
				} else {
					start := i
					for i < len(v) && v[i] != ';' && v[i] != ',' {
						i++
					}
					val = strings.TrimSpace(v[start:i])
				}
			}
			if name == "" {
				continue
			}
			if strings.HasSuffix(name, "*") {
				val = decodeExtValue(val)
			}
			if _, dup := l.Params[name]; !dup { // RFC 8288: first occurrence wins
				l.Params[name] = val
			}
		}
		out = append(out, l)
	}
	return out
}

func skipSpace(v string, i int) int {
	for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
		i++
	}
	return i
}

// decodeExtValue decodes an RFC 8187 ext-value (UTF-8”%E2%82%AC). Other
// charsets and malformed values are returned percent-decoded as far as
// possible.
func decodeExtValue(v string) string {
	parts := strings.SplitN(v, "'", 3)
	if len(parts) == 3 {
		v = parts[2]
	}
	if d, err := url.PathUnescape(v); err == nil {
		return d
	}
	return v
}
