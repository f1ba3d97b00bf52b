package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/httpapi/httpapitest"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// Every operation of the OpenAPI document that takes a body is in
// bodyRoutes, so the body rules are tried on a route the day it is added.
func TestBodyRoutesAreEveryBody(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t))
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody *struct {
				Content map[string]json.RawMessage `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
	}
	r := s.do(t, request{Path: "/openapi.json"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.NoError(t, json.Unmarshal(r.Body, &doc))
	var documented, tried []string
	for tmpl, ops := range doc.Paths {
		for m, op := range ops {
			// A JSON body; a route taking a document (a seed import's
			// OPML) has its own tests of what it reads.
			if op.RequestBody != nil && op.RequestBody.Content["application/json"] != nil {
				documented = append(documented, strings.ToUpper(m)+" "+samplePath(tmpl))
			}
		}
	}
	for _, rt := range bodyRoutes() {
		tried = append(tried, rt.method+" "+rt.path)
	}
	require.ElementsMatch(t, documented, tried)
}

// jsonValue is a JSON value that keeps its members in order, so a test
// can change one member's name and send the rest as they were.
type jsonValue struct {
	members []jsonMember // object
	elems   []*jsonValue // array
	object  bool
	array   bool
	raw     json.RawMessage // anything else
}

type jsonMember struct {
	name  string
	value *jsonValue
}

func parseOrdered(t *testing.T, b []byte) *jsonValue {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := readOrdered(dec)
	require.NoError(t, err)
	return v
}

func readOrdered(dec *json.Decoder) (*jsonValue, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		v := &jsonValue{object: true}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			m, err := readOrdered(dec)
			if err != nil {
				return nil, err
			}
			v.members = append(v.members, jsonMember{k.(string), m})
		}
		_, err = dec.Token()
		return v, err
	case json.Delim('['):
		v := &jsonValue{array: true}
		for dec.More() {
			e, err := readOrdered(dec)
			if err != nil {
				return nil, err
			}
			v.elems = append(v.elems, e)
		}
		_, err = dec.Token()
		return v, err
	}
	raw, err := json.Marshal(tok)
	return &jsonValue{raw: raw}, err
}

func (v *jsonValue) write(b *strings.Builder) {
	switch {
	case v.object:
		b.WriteByte('{')
		for i, m := range v.members {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(m.name)
			b.Write(k)
			b.WriteByte(':')
			m.value.write(b)
		}
		b.WriteByte('}')
	case v.array:
		b.WriteByte('[')
		for i, e := range v.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			e.write(b)
		}
		b.WriteByte(']')
	default:
		b.Write(v.raw)
	}
}

func (v *jsonValue) String() string {
	var b strings.Builder
	v.write(&b)
	return b.String()
}

// memberSite is one member of a body: where it is, as problems name it,
// and how to change it.
type memberSite struct {
	loc   string // body.records[0].raw_url
	owner *jsonValue
	index int
}

// sites lists every member of v at every depth.
func sites(v *jsonValue, loc string) []memberSite {
	var out []memberSite
	for i, m := range v.members {
		out = append(out, memberSite{loc: loc + "." + m.name, owner: v, index: i})
		out = append(out, sites(m.value, loc+"."+m.name)...)
	}
	for i, e := range v.elems {
		out = append(out, sites(e, loc+"["+strconv.Itoa(i)+"]")...)
	}
	return out
}

// caseVariants are spellings of name that encoding/json would match to a
// field called name: letters of the other case, and the non-ASCII runes
// that fold to an ASCII letter (the Kelvin sign K to k, the long s ſ to s).
func caseVariants(name string) []string {
	var out []string
	flip := func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}
	if r, n := utf8.DecodeRuneInString(name); unicode.IsLetter(r) {
		out = append(out, string(flip(r))+name[n:])
	}
	out = append(out, strings.Map(flip, name))
	for from, to := range map[string]string{"k": "\u212a", "s": "\u017f"} {
		if strings.Contains(name, from) {
			out = append(out, strings.Replace(name, from, to, 1))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// keptUnknown are the members of httpapitest.DatasetBody that no schema
// names: a dataset keeps them as they are.
var keptUnknown = map[string]bool{"note": true, "x_custom": true, "extra_top": true}

// A member spelt otherwise than its field, beside a member whose name
// differs only in case, or twice, is refused with 422 naming it, at every
// depth of every body route: encoding/json would fill the field from
// either spelling (or the last copy) while other readers see two members
// (or take the first).
func TestCaseVariantMembersAre422(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t))
	jsonCT := http.Header{"Content-Type": {"application/json"}}
	tried := 0
	for _, rt := range bodyRoutes() {
		name := rt.method + " " + rt.path
		for _, site := range sites(parseOrdered(t, []byte(rt.body)), "body") {
			m := site.owner.members[site.index]
			parent := site.loc[:len(site.loc)-len(m.name)]
			// The member twice, spelt the same, at whatever depth.
			sent := rootOf(t, rt.body, site, m.name, true)
			p := s.do(t, request{Method: rt.method, Path: rt.path, Body: sent, Header: jsonCT}).Problem(t, http.StatusUnprocessableEntity, "invalid")
			require.Equal(t, []string{site.loc}, httpapitest.Locations(p), "%s: %s", name, sent)
			require.Contains(t, p.Detail, "duplicate", name)
			for _, variant := range caseVariants(m.name) {
				// Spelt otherwise, alone: refused where it is a field's
				// name; an unknown member a dataset keeps may be spelt
				// any way.
				sent := rootOf(t, rt.body, site, variant, false)
				r := s.do(t, request{Method: rt.method, Path: rt.path, Body: sent, Header: jsonCT})
				if keptUnknown[m.name] {
					require.Equal(t, http.StatusCreated, r.StatusCode, "%s: %s: %s", name, sent, r.Body)
				} else {
					p := r.Problem(t, http.StatusUnprocessableEntity, "invalid")
					require.Equal(t, []string{parent + variant}, httpapitest.Locations(p), "%s: %s", name, sent)
					require.Contains(t, p.Detail, "case-sensitive", name)
				}

				// Beside the field: which one a reader takes must not
				// matter, so neither is taken.
				sent = rootOf(t, rt.body, site, variant, true)
				p := s.do(t, request{Method: rt.method, Path: rt.path, Body: sent, Header: jsonCT}).Problem(t, http.StatusUnprocessableEntity, "invalid")
				require.Equal(t, []string{parent + variant}, httpapitest.Locations(p), "%s: %s", name, sent)
				tried++
			}
		}
	}
	require.Greater(t, tried, 100)
}

// rootOf is body with the member at site renamed to variant or, with
// both, a copy named variant added after it.
func rootOf(t *testing.T, body string, site memberSite, variant string, both bool) string {
	t.Helper()
	root := parseOrdered(t, []byte(body))
	for _, s := range sites(root, "body") {
		if s.loc != site.loc {
			continue
		}
		m := s.owner.members[s.index]
		if !both {
			s.owner.members[s.index].name = variant
		} else {
			ms := slices.Clone(s.owner.members[:s.index+1])
			ms = append(ms, jsonMember{name: variant, value: m.value})
			s.owner.members = append(ms, s.owner.members[s.index+1:]...)
		}
		return root.String()
	}
	t.Fatalf("no member at %s", site.loc)
	return ""
}

// The probe's cases: a read key never becomes an admin key through a
// member spelt "Scope", and a promotion never acts on the second of two
// seed ids.
func TestCaseVariantsMakeNoAdminKey(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t))
	for _, body := range []string{
		`{"name":"x","scope":"read","Scope":"admin"}`,
		`{"name":"x","Scope":"admin","scope":"read"}`,
		`{"name":"x","SCOPE":"admin"}`,
		`{"name":"x","scope":"read","\u017fcope":"admin"}`,
		`{"name":"x","scope":"read","sc\u006fpe":"admin"}`, // the same key, escaped: a plain repeat
	} {
		s.do(t, request{Method: "POST", Path: "/api/v1/keys", Body: body}).Problem(t, http.StatusUnprocessableEntity, "invalid")
	}
	r := s.do(t, request{Path: "/api/v1/keys"})
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	require.Empty(t, httpapitest.Decode[struct{ Items []seedengine.APIKey }](t, r).Items)

	for _, id := range []string{"gov:sg:a.gov.sg", "gov:sg:b.gov.sg"} {
		r := s.post(t, "/api/v1/seeds", httpapitest.SeedBody(id))
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	}
	body := fmt.Sprintf(`{"seedId":%q,"SEEDID":%q}`, "gov:sg:a.gov.sg::news", "gov:sg:b.gov.sg::news")
	s.do(t, request{Method: "POST", Path: "/api/v1/seeds/promote", Body: body}).Problem(t, http.StatusUnprocessableEntity, "invalid")
	for _, id := range []string{"gov:sg:a.gov.sg::news", "gov:sg:b.gov.sg::news"} {
		r := s.do(t, request{Path: "/api/v1/seeds/" + url.PathEscape(id)})
		require.Equal(t, "draft", r.JSON(t)["status"], id)
	}
}
