package sitemap

import (
	"strings"
	"time"
)

// parseDate parses a sitemap or feed date: W3C datetime first (sitemaps,
// Atom, dc:date), then the RFC 822/1123 forms of RSS pubDate. It returns the
// zero time when b is neither. Results are in UTC.
func parseDate(b []byte) time.Time {
	b = trimSpace(b)
	if len(b) == 0 {
		return time.Time{}
	}
	if t, ok := parseW3C(b); ok {
		return t
	}
	return parseRFC822(string(b))
}

// parseW3C parses the W3C datetime profile of ISO 8601 used by sitemaps:
// YYYY, YYYY-MM, YYYY-MM-DD, YYYY-MM-DDThh:mm[:ss[.s+]]TZD. It is lenient
// where real sitemaps are: a space instead of T, a missing zone (UTC), and
// zones written +hhmm or +hh. It does not allocate.
func parseW3C(b []byte) (time.Time, bool) {
	num := func(s []byte) (int, bool) {
		n := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, len(s) > 0
	}
	if len(b) < 4 {
		return time.Time{}, false
	}
	year, ok := num(b[:4])
	if !ok || year < 1 {
		return time.Time{}, false
	}
	month, day := 1, 1
	var hour, minute, sec, nsec, offset int
	rest := b[4:]
	if len(rest) > 0 {
		if len(rest) < 3 || rest[0] != '-' {
			return time.Time{}, false
		}
		if month, ok = num(rest[1:3]); !ok {
			return time.Time{}, false
		}
		rest = rest[3:]
		if len(rest) > 0 {
			if len(rest) < 3 || rest[0] != '-' {
				return time.Time{}, false
			}
			if day, ok = num(rest[1:3]); !ok {
				return time.Time{}, false
			}
			rest = rest[3:]
		}
	}
	if len(rest) > 0 {
		if rest[0] != 'T' && rest[0] != 't' && rest[0] != ' ' {
			return time.Time{}, false
		}
		rest = rest[1:]
		if len(rest) < 5 || rest[2] != ':' {
			return time.Time{}, false
		}
		h, ok1 := num(rest[:2])
		m, ok2 := num(rest[3:5])
		if !ok1 || !ok2 {
			return time.Time{}, false
		}
		hour, minute = h, m
		rest = rest[5:]
		if len(rest) >= 3 && rest[0] == ':' {
			if sec, ok = num(rest[1:3]); !ok {
				return time.Time{}, false
			}
			rest = rest[3:]
			if len(rest) > 1 && (rest[0] == '.' || rest[0] == ',') {
				i := 1
				scale := 100000000
				for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
					nsec += int(rest[i]-'0') * scale
					scale /= 10
					i++
				}
				if i == 1 {
					return time.Time{}, false
				}
				rest = rest[i:]
			}
		}
		switch {
		case len(rest) == 0:
		case len(rest) == 1 && (rest[0] == 'Z' || rest[0] == 'z'):
		case rest[0] == '+' || rest[0] == '-':
			z := rest[1:]
			var zh, zm int
			switch {
			case len(z) == 2:
				zh, ok = num(z)
			case len(z) == 4:
				zh, ok = num(z[:2])
				if ok {
					zm, ok = num(z[2:])
				}
			case len(z) == 5 && z[2] == ':':
				zh, ok = num(z[:2])
				if ok {
					zm, ok = num(z[3:])
				}
			default:
				ok = false
			}
			if !ok || zh > 23 || zm > 59 {
				return time.Time{}, false
			}
			offset = zh*3600 + zm*60
			if rest[0] == '-' {
				offset = -offset
			}
		default:
			return time.Time{}, false
		}
	}
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 60 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	if t.Day() != day { // 2024-02-30 and the like
		return time.Time{}, false
	}
	return t.Add(-time.Duration(offset) * time.Second), true
}

// rfc822Layouts are the pubDate forms seen in RSS, after the optional day
// name is removed and a zone name is replaced by its numeric offset.
var rfc822Layouts = []string{
	"2 Jan 2006 15:04:05 -0700",
	"2 Jan 2006 15:04 -0700",
	"2 Jan 06 15:04:05 -0700",
	"2 Jan 06 15:04 -0700",
	"2 January 2006 15:04:05 -0700",
	"2 January 2006 15:04 -0700",
	"2 Jan 2006 15:04:05",
	"2 Jan 2006",
}

// rfc822Zones are the zone names RFC 822 defines, plus UTC.
var rfc822Zones = map[string]string{
	"UT": "+0000", "UTC": "+0000", "GMT": "+0000", "Z": "+0000",
	"EST": "-0500", "EDT": "-0400", "CST": "-0600", "CDT": "-0500",
	"MST": "-0700", "MDT": "-0600", "PST": "-0800", "PDT": "-0700",
}

func parseRFC822(s string) time.Time {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.IndexByte(s, ','); i >= 0 && i <= 10 {
		s = strings.TrimSpace(s[i+1:])
	} else if len(s) > 4 && s[3] == ' ' && s[0] >= 'A' && s[0] <= 'Z' && (s[4] < 'A') {
		s = s[4:] // "Mon 02 Jan 2006 ..." without the comma
	}
	if i := strings.LastIndexByte(s, ' '); i >= 0 {
		if off, ok := rfc822Zones[strings.ToUpper(s[i+1:])]; ok {
			s = s[:i+1] + off
		}
	}
	for _, layout := range rfc822Layouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
