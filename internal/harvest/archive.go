package harvest

import (
	"net/url"
	"strconv"
	"strings"
)

// PageURL is page n of a paged feed (WordPress's ?paged=n): the entry
// with its paged parameter set to n, its other parameters kept as they
// were written.
func PageURL(entry string, n int) string {
	u, err := url.Parse(entry)
	if err != nil {
		return entry
	}
	var kept []string
	for p := range strings.SplitSeq(u.RawQuery, "&") {
		if p != "" && !strings.HasPrefix(p, "paged=") {
			kept = append(kept, p)
		}
	}
	u.RawQuery = strings.Join(append(kept, "paged="+strconv.Itoa(n)), "&")
	return u.String()
}
