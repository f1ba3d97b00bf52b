package httpapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// caseTypes are request body types of the API with a valid body each:
// flat, nested (seedCreateRequest) and with arrays.
var caseTypes = []struct {
	typ  reflect.Type
	body string
}{
	{reflect.TypeFor[keyCreateRequest](), `{"name":"k","scope":"read"}`},
	{reflect.TypeFor[seedPromoteRequest](), `{"seedId":"gov:sg:a.gov.sg::news","reason":"ok"}`},
	{reflect.TypeFor[researchQueueRequest](), `{"country":"sg","category":"news","urls":["https://a.sg/"],"chunkSize":10,"queries":["q"]}`},
	{reflect.TypeFor[livenessQueueRequest](), `{"country":"sg","domains":["a.sg"],"chunkSize":5}`},
	{reflect.TypeFor[contractQueueRequest](), `{"country":"sg","category":"news","domainIds":["gov:sg:a.gov.sg"]}`},
	{reflect.TypeFor[seedCreateRequest](), `{"domain_id":"gov:sg:a.gov.sg","category":"news","source":{"name":"A","source_type":"government"},` +
		`"fetch":{"type":"rss","entry_url":"https://a.gov.sg/feed","selectors":{"Title":"h1"}},"policy":{"crawl_delay":1,"crawl_allowed":true},"metadata":{"key":1}}`},
	{reflect.TypeFor[seedReasonRequest](), `{"reason":"why"}`},
}

// FuzzCaseVariantsAgree holds strictJSON to encoding/json: whatever body
// the check lets through, decoding it with encoding/json (which matches
// member names to fields under case folding and keeps the last) gives the
// same value as decoding only the members spelt exactly as the fields
// are. A body where the two differ would be read one way by this service
// and another by everyone else.
func FuzzCaseVariantsAgree(f *testing.F) {
	for i, ct := range caseTypes {
		f.Add(uint8(i), ct.body)
		for _, v := range keyVariants(ct.body) {
			f.Add(uint8(i), v.body)
		}
	}
	reg := New(Config{}, Deps{}).api.OpenAPI().Components.Schemas
	nodes := make([]*bodyNode, len(caseTypes))
	for i, ct := range caseTypes {
		nodes[i] = compileBody(reg, reg.Schema(ct.typ, true, ""))
	}
	f.Fuzz(func(t *testing.T, which uint8, body string) {
		i := int(which) % len(caseTypes)
		typ := caseTypes[i].typ
		if checkJSON([]byte(body), nodes[i]) != nil || !json.Valid([]byte(body)) {
			return
		}
		loose := reflect.New(typ)
		if json.Unmarshal([]byte(body), loose.Interface()) != nil {
			return
		}
		var doc any
		require.NoError(t, json.Unmarshal([]byte(body), &doc))
		exact, err := json.Marshal(exactMembers(doc, typ))
		require.NoError(t, err)
		strict := reflect.New(typ)
		require.NoError(t, json.Unmarshal(exact, strict.Interface()), "%s", exact)
		require.Equal(t, strict.Interface(), loose.Interface(), "body %s", body)
	})
}

// The fuzz target's seeds alone: every member renamed to, or doubled by,
// each of its case variants.
func TestCaseVariantsAreRefused(t *testing.T) {
	t.Parallel()
	reg := New(Config{}, Deps{}).api.OpenAPI().Components.Schemas
	for _, ct := range caseTypes {
		node := compileBody(reg, reg.Schema(ct.typ, true, ""))
		require.Nil(t, checkJSON([]byte(ct.body), node), ct.body)
		for _, v := range keyVariants(ct.body) {
			if !v.doubled && (v.name == "key" || v.name == "Title") {
				// A metadata or selector key is a map's: any spelling
				// goes, but never two that differ only in case.
				require.Nil(t, checkJSON([]byte(v.body), node), v.body)
				continue
			}
			require.NotNil(t, checkJSON([]byte(v.body), node), v.body)
		}
	}
}

// exactMembers keeps of doc only the members typ has a field for, by
// exact name, at every depth: what a case-sensitive reader takes.
func exactMembers(doc any, typ reflect.Type) any {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch v := doc.(type) {
	case map[string]any:
		switch typ.Kind() {
		case reflect.Map:
			out := map[string]any{}
			for k, e := range v {
				out[k] = exactMembers(e, typ.Elem())
			}
			return out
		case reflect.Struct:
			out := map[string]any{}
			for i := range typ.NumField() {
				f := typ.Field(i)
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "" || name == "-" || !f.IsExported() {
					continue
				}
				if e, ok := v[name]; ok {
					out[name] = exactMembers(e, f.Type)
				}
			}
			return out
		}
	case []any:
		if typ.Kind() == reflect.Slice {
			out := make([]any, len(v))
			for i, e := range v {
				out[i] = exactMembers(e, typ.Elem())
			}
			return out
		}
	}
	return doc
}

// keyVariant is a body with member name renamed to a case variant or,
// when doubled, followed by a copy under one.
type keyVariant struct {
	body, name string
	doubled    bool
}

// keyVariants are the keyVariants of every member name in body.
func keyVariants(body string) []keyVariant {
	var out []keyVariant
	for i := 0; i < len(body); i++ {
		if body[i] != '"' {
			continue
		}
		end := strings.IndexByte(body[i+1:], '"') + i + 1
		if end <= i || end+1 >= len(body) || body[end+1] != ':' {
			i = end
			continue
		}
		name := body[i+1 : end]
		for _, v := range nameVariants(name) {
			out = append(out, keyVariant{body: body[:i+1] + v + body[end:], name: name})
			val := memberValueEnd(body, end+2)
			out = append(out, keyVariant{body: body[:val] + `,"` + v + `":` + body[end+2:val] + body[val:], name: name, doubled: true})
		}
		i = end
	}
	return out
}

// memberValueEnd is where the value starting at i ends.
func memberValueEnd(body string, i int) int {
	dec := json.NewDecoder(strings.NewReader(body[i:]))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return i
	}
	return i + int(dec.InputOffset())
}

func nameVariants(name string) []string {
	var out []string
	if r, n := utf8.DecodeRuneInString(name); unicode.IsLower(r) {
		out = append(out, string(unicode.ToUpper(r))+name[n:])
	}
	out = append(out, strings.ToUpper(name))
	if strings.Contains(name, "k") {
		out = append(out, strings.Replace(name, "k", "\u212a", 1))
	}
	if strings.Contains(name, "s") {
		out = append(out, strings.Replace(name, "s", "\u017f", 1))
	}
	return out
}

func TestFoldKeyIsEqualFold(t *testing.T) {
	t.Parallel()
	names := []string{"scope", "Scope", "SCOPE", "\u017fcope", "kind", "\u212aind", "KIND", "stra\u00dfe", "STRASSE",
		"\u00e9t\u00e9", "\u00c9T\u00c9", "\u03c3\u03b1", "\u03a3\u0391", "\u03c2\u03b1", "seed_id", "seedId", "SEEDID", "x", "", "\u0130", "i", "\u0131"}
	for _, a := range names {
		for _, b := range names {
			require.Equal(t, strings.EqualFold(a, b), foldKey(a) == foldKey(b), "%q %q", a, b)
		}
	}
}
