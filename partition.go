package seedengine

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// CountryIntl is the pseudo-country of international bodies (.int domains).
const CountryIntl = "intl"

// DateLayout is the layout of partition dates.
const DateLayout = "2006-01-02"

// Partition is one (country, category, date) slice of the raw datasets.
// Country is lower case (ISO 3166-1 alpha-2 or "intl"), category a slug and
// date a real calendar date in DateLayout.
type Partition struct {
	Country  string `json:"country"`
	Category string `json:"category"`
	Date     string `json:"date"`
}

// Validate reports the first invalid field of p as an EINVALID error.
func (p Partition) Validate() error {
	if err := ValidateCountry(p.Country); err != nil {
		return err
	}
	if err := ValidateCategory(p.Category); err != nil {
		return err
	}
	return ValidateDate(p.Date)
}

// NormalizeCountry lower-cases and trims a country code; it does not
// validate it.
func NormalizeCountry(s string) string {
	return strings.ToLower(strings.TrimSpace(s))
}

// ValidateCountry accepts a lower-case ISO 3166-1 alpha-2 code that is
// assigned, or "intl".
func ValidateCountry(c string) error {
	if c == CountryIntl || isoCountries[c] {
		return nil
	}
	if c == "" {
		return FieldErrorf("country", "country is required")
	}
	return FieldErrorf("country", "country is not an ISO 3166-1 alpha-2 code or %q", CountryIntl)
}

// ValidateCategory accepts a lower-case slug of 1 to 40 characters from
// [a-z0-9_].
func ValidateCategory(c string) error {
	if c == "" {
		return FieldErrorf("category", "category is required")
	}
	if len(c) > 40 {
		return FieldErrorf("category", "category must be at most 40 characters")
	}
	for i := 0; i < len(c); i++ {
		b := c[i]
		if (b < 'a' || b > 'z') && (b < '0' || b > '9') && b != '_' {
			return FieldErrorf("category", "category must match [a-z0-9_]{1,40}")
		}
	}
	return nil
}

// ValidateDate accepts a real calendar date in YYYY-MM-DD form.
func ValidateDate(d string) error {
	if d == "" {
		return FieldErrorf("date", "date is required")
	}
	if len(d) != len(DateLayout) {
		return FieldErrorf("date", "date must be YYYY-MM-DD")
	}
	if _, err := time.Parse(DateLayout, d); err != nil {
		return FieldErrorf("date", "date must be a real calendar date in YYYY-MM-DD form")
	}
	return nil
}

// Truncate shortens s to at most n bytes, ending it with "…" when cut and
// never splitting a UTF-8 sequence, so error messages and stored reasons
// stay bounded and valid. n below 4 leaves room for nothing but "…".
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := max(n-len("…"), 0)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// isoCountries is the set of officially assigned ISO 3166-1 alpha-2 codes,
// lower case, plus the exceptionally reserved "uk" used by the .uk ccTLD.
var isoCountries = func() map[string]bool {
	const codes = "ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bl bm bn bo bq br bs bt bv bw by bz " +
		"ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm do dz ec ee eg eh er es et fi fj fk fm fo fr " +
		"ga gb gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu gw gy hk hm hn hr ht hu id ie il im in io iq ir is it je jm jo jp " +
		"ke kg kh ki km kn kp kr kw ky kz la lb lc li lk lr ls lt lu lv ly ma mc md me mf mg mh mk ml mm mn mo mp mq mr ms mt mu mv mw mx my mz " +
		"na nc ne nf ng ni nl no np nr nu nz om pa pe pf pg ph pk pl pm pn pr ps pt pw py qa re ro rs ru rw " +
		"sa sb sc sd se sg sh si sj sk sl sm sn so sr ss st sv sx sy sz tc td tf tg th tj tk tl tm tn to tr tt tv tw tz " +
		"ua ug um us uy uz va vc ve vg vi vn vu wf ws ye yt za zm zw uk"
	m := make(map[string]bool, 260)
	for _, c := range strings.Fields(codes) {
		m[c] = true
	}
	return m
}()

// Countries returns every country a partition may name: the ISO 3166-1
// alpha-2 codes ValidateCountry accepts and CountryIntl, sorted.
func Countries() []string {
	out := make([]string, 0, len(isoCountries)+1)
	for c := range isoCountries {
		out = append(out, c)
	}
	out = append(out, CountryIntl)
	slices.Sort(out)
	return out
}
