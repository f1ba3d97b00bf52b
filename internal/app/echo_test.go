package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/httpapi/httpapitest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// TestErrorsNeverEchoInput holds decisions.md ("Input values are never
// echoed back") for every API route of the running application: each
// path parameter, each query parameter and each string member of the
// request body (the body's schema walked from /openapi.json, nested
// objects, arrays and free-form maps included) gets a canary value in an
// otherwise valid request, sent twice (so a conflict with what the first
// one stored is tried too), and no answer of 400 or more may carry the
// canary or a distinctive piece of it, in its body or its headers.
//
// The routes come from the OpenAPI document the server serves, so a new
// route is covered as soon as it exists; a new path parameter or body
// route without a sample here fails the test rather than going untried.
//
// Not tried: header parameters. The only one is the Content-Type of
// PATCH /api/v1/seeds/{seedId}, checked by the route middleware before
// any handler (checkBody in internal/httpapi/middleware.go, whose 415
// names no value), and a canary with control characters cannot be sent
// as a header at all. Nor object keys: a key is the name of a field,
// which errors name by design. Nor numbers: a number is not a string
// member.
func TestErrorsNeverEchoInput(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		// The stand-ins make every batch kind accepted rather than refused
		// as not implemented, so its request is validated in full. The
		// queue is not started: nothing is probed or fetched.
		s := newStack(t, db, withProber(noProber{}), withContract(noRunner{}), withCollector(noFetcher{}),
			withMetadata(metadataOpts{}))
		echoWalk(t, s)
	})
}

// The canaries. Each begins with a marker, so a message that truncates
// what it quotes still shows it.
var echoCanaries = []struct {
	name  string
	value string
	// sanitized sends a body's string as valid JSON (encoding/json turns
	// invalid UTF-8 into U+FFFD); otherwise the bytes go raw.
	sanitized bool
}{
	{"markup", `zqEchoCanary"<script>javascript:alert(1)</script>` + "\u00ff", false},
	{"bytes", "zqCtrlCanary\x00\x01\x1b[2J\x7f\u2028\xff\xfe%ff\\x41endOfCanary", false},
	{"controls", "zqCtrlCanary\x00\x01\x1b[2J\x7f\u2028\xff\xfe%ff\\x41endOfCanary", true},
	// Letters and digits pass most formats (a category, a batch id, a
	// key name), so the checks behind them, and "not found", are reached.
	{"plain", "zqplaincanary7", false},
}

// echoNeedles are the pieces of the canaries an answer must not hold,
// lower-cased: the markers, the markup, and every 8-byte run of printable
// ASCII of a canary (what survives quoting, escaping and truncation).
func echoNeedles() []string {
	set := map[string]bool{}
	for _, n := range []string{"zqEchoCanary", "zqCtrlCanary", "zqplaincanary", "endOfCanary", "javascript", "<script>", "</script>", "alert(1)"} {
		set[strings.ToLower(n)] = true
	}
	printable := regexp.MustCompile(`[ -~]{8,}`)
	for _, c := range echoCanaries {
		for _, run := range printable.FindAllString(c.value, -1) {
			for i := 0; i+8 <= len(run); i++ {
				w := run[i : i+8]
				if strings.ContainsAny(w, `"\`) {
					continue // escaped by any quoting
				}
				set[strings.ToLower(w)] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// echoPathSamples are valid values of every path parameter of the API.
// {seedId} is replaced per case by a seed made for the case.
var echoPathSamples = map[string]string{
	"batchId": "01JBATCHDOESNOTEXIST000000",
	"country": "sg", "category": "news", "date": "2026-01-28", "chunk": "raw_0001", "file": "items_0001",
	"seedId":   "gov:sg:mom.gov.sg::news",
	"domainId": "gov:sg:mom.gov.sg",
	"id":       "999999", // a dead letter's job id
	"keyId":    "999999", // not the test's own key
	"itemId":   "999999", // no such item
}

// echoBodies are valid bodies of every route that takes one, by method
// and path template; {n} is a number unique to the case, so a case that
// creates something does not collide with another.
func echoBodies() map[string]string {
	out := map[string]string{}
	tmpl := map[string]string{
		"/api/v1/datasets/sg/news/2026-01-28": "/api/v1/datasets/{country}/{category}/{date}",
	}
	for _, rt := range bodyRoutes() {
		p := rt.path
		if t, ok := tmpl[p]; ok {
			p = t
		}
		out[rt.method+" "+p] = rt.body
	}
	// Each case its own seed (the fixture seed would make every create a
	// conflict answered before anything else is looked at).
	out["POST /api/v1/seeds"] = `{"domain_id":"gov:sg:echo{n}.gov.sg","category":"news","source":{"name":"Echo"},` +
		`"fetch":{"type":"rss","entry_url":"https://www.echo{n}.gov.sg/rss.xml"},"policy":{"robots_url":"https://www.echo{n}.gov.sg/robots.txt"}}`
	out["POST /api/v1/seeds/promote"] = `{"seedId":"{seedId}","reason":"echo test"}`
	out["PATCH /api/v1/seeds/{seedId}"] = `{"source":{"name":"Echo"},"fetch":{"schedule":"*/30 * * * *"}}`
	out["POST /api/v1/seeds/{seedId}/reject"] = `{"reason_code":"other","reason":"echo test"}`
	out["POST /api/v1/seeds/{seedId}/choose"] = `{"candidate_url":"https://www.echo{n}.gov.sg/rss.xml"}`
	out["POST /api/v1/seeds/bulk"] = `{"action":"promote","seed_ids":["{seedId}"],"reason":"echo test"}`
	for _, a := range []string{"archive", "reactivate", "suspend", "reopen"} {
		out["POST /api/v1/seeds/{seedId}/"+a] = `{"reason":"echo test"}`
	}
	return out
}

type echoParam struct {
	Name   string          `json:"name"`
	In     string          `json:"in"`
	Schema json.RawMessage `json:"schema"`
}

type echoOp struct {
	Parameters  []echoParam `json:"parameters"`
	RequestBody *struct {
		Content map[string]struct {
			Schema map[string]any `json:"schema"`
		} `json:"content"`
	} `json:"requestBody"`
}

// echoStep is one step into a JSON body: an object member or an array's
// first element.
type echoStep struct {
	key   string
	index bool
}

func echoLoc(steps []echoStep) string {
	var b strings.Builder
	b.WriteString("body")
	for _, s := range steps {
		if s.index {
			b.WriteString("[0]")
		} else {
			b.WriteString("." + s.key)
		}
	}
	return b.String()
}

// echoStringMembers lists where a body of schema holds a string: its
// properties, array items and the values of free-form maps (as the member
// echo_probe), nested as deep as the schema goes.
func echoStringMembers(t *testing.T, schemas map[string]map[string]any, schema map[string]any, at []echoStep, depth int) [][]echoStep {
	t.Helper()
	require.Less(t, depth, 12, "the body schema at %s nests too deep; is it recursive?", echoLoc(at))
	if ref, ok := schema["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		s, ok := schemas[name]
		require.True(t, ok, "unknown schema %s", ref)
		return echoStringMembers(t, schemas, s, at, depth+1)
	}
	var out [][]echoStep
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		subs, _ := schema[k].([]any)
		for _, sub := range subs {
			if m, ok := sub.(map[string]any); ok {
				out = append(out, echoStringMembers(t, schemas, m, at, depth+1)...)
			}
		}
	}
	types := map[string]bool{}
	switch v := schema["type"].(type) {
	case string:
		types[v] = true
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				types[s] = true
			}
		}
	}
	with := func(s echoStep) []echoStep { return append(append([]echoStep(nil), at...), s) }
	if props, ok := schema["properties"].(map[string]any); ok {
		names := make([]string, 0, len(props))
		for k := range props {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if m, ok := props[k].(map[string]any); ok {
				out = append(out, echoStringMembers(t, schemas, m, with(echoStep{key: k}), depth+1)...)
			}
		}
	}
	switch ap := schema["additionalProperties"].(type) {
	case bool:
		if ap {
			out = append(out, with(echoStep{key: "echo_probe"}))
		}
	case map[string]any:
		if len(ap) == 0 {
			out = append(out, with(echoStep{key: "echo_probe"}))
		} else {
			out = append(out, echoStringMembers(t, schemas, ap, with(echoStep{key: "echo_probe"}), depth+1)...)
		}
	}
	if items, ok := schema["items"].(map[string]any); ok && types["array"] {
		out = append(out, echoStringMembers(t, schemas, items, with(echoStep{index: true}), depth+1)...)
	}
	if types["string"] {
		out = append(out, at)
	}
	return out
}

// echoSet sets the member at steps of cur to v, making the objects and
// arrays on the way that are not there.
func echoSet(cur any, steps []echoStep, v any) any {
	if len(steps) == 0 {
		return v
	}
	if steps[0].index {
		arr, _ := cur.([]any)
		if len(arr) == 0 {
			arr = []any{nil}
		}
		arr[0] = echoSet(arr[0], steps[1:], v)
		return arr
	}
	m, _ := cur.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	m[steps[0].key] = echoSet(m[steps[0].key], steps[1:], v)
	return m
}

// echoJSONString writes s as a JSON string with its bytes as they are
// (invalid UTF-8 included): only quotes, backslashes and control
// characters are escaped.
func echoJSONString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// echoCase is one request with a canary in it.
type echoCase struct {
	name, method, tmpl string
	path               map[string]string // path parameter values, escaped
	query              url.Values
	body               []byte // nil: none
	contentType        string // of a document body; "": JSON
}

// echoDocuments are the valid bodies of the routes that take a document
// instead of JSON, with its media type; a canary is sent as a line of it.
var echoDocuments = map[string][2]string{
	"POST /api/v1/seeds/import": {"text/plain", "https://www.echo{n}.gov.sg/feed.xml\n"},
}

func echoWalk(t *testing.T, s *stack) {
	// An admin key for every call: with a key, the API is no longer open.
	r := s.post(t, "/api/v1/keys", map[string]any{"name": "echo-admin", "scope": "admin"})
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	token, _ := r.JSON(t)["token"].(string)
	require.NotEmpty(t, token)
	call := func(method, path string, body []byte, contentType ...string) response {
		req := request{Method: method, Path: path, Token: token}
		if body != nil {
			req.Body = body
		}
		if len(contentType) > 0 && contentType[0] != "" {
			req.Header = http.Header{"Content-Type": {contentType[0]}}
		}
		return s.do(t, req)
	}

	// What the samples name exists: research (registering its domains),
	// a dataset chunk and a seed.
	for _, c := range []struct{ path, body string }{
		{"/api/v1/research", `{"country":"sg","category":"news","date":"2026-01-28","urls":["https://www.mom.gov.sg/"]}`},
		{"/api/v1/datasets/sg/news/2026-01-28", httpapitest.DatasetBody("sg", "news", "2026-01-28", 2)},
	} {
		r := call(http.MethodPost, c.path, []byte(c.body))
		require.Less(t, r.StatusCode, 300, "%s: %s", c.path, r.Body)
	}
	n := 0
	newSeed := func() string {
		n++
		b, _ := json.Marshal(httpapitest.SeedBody(fmt.Sprintf("gov:sg:echo%d.gov.sg", n)))
		r := call(http.MethodPost, "/api/v1/seeds", b)
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
		return fmt.Sprintf("gov:sg:echo%d.gov.sg::news", n)
	}

	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	r = s.do(t, request{Path: "/openapi.json"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.NoError(t, json.Unmarshal(r.Body, &doc))

	bodies := echoBodies()
	needles := echoNeedles()
	placeholder := regexp.MustCompile(`\{(\w+)\}`)
	tmpls := make([]string, 0, len(doc.Paths))
	for p := range doc.Paths {
		tmpls = append(tmpls, p)
	}
	sort.Strings(tmpls)

	var cases []echoCase
	routes := 0
	for _, tmpl := range tmpls {
		methods := make([]string, 0, len(doc.Paths[tmpl]))
		for m := range doc.Paths[tmpl] {
			methods = append(methods, m)
		}
		sort.Strings(methods)
		for _, m := range methods {
			method := strings.ToUpper(m)
			switch method {
			case "GET", "POST", "PUT", "PATCH", "DELETE":
			default:
				continue
			}
			var op echoOp
			require.NoError(t, json.Unmarshal(doc.Paths[tmpl][m], &op), "%s %s", method, tmpl)
			routes++
			name := method + " " + tmpl

			// The valid parts of the request.
			valid := map[string]string{}
			for _, ph := range placeholder.FindAllStringSubmatch(tmpl, -1) {
				v, ok := echoPathSamples[ph[1]]
				require.True(t, ok, "%s: no sample value for path parameter {%s}; add one to echoPathSamples", name, ph[1])
				valid[ph[1]] = url.PathEscape(v)
			}
			var validBody, docType string
			var members [][]echoStep
			if d, ok := echoDocuments[name]; ok {
				docType, validBody = d[0], d[1]
			} else if op.RequestBody != nil {
				var ok bool
				validBody, ok = bodies[name]
				require.True(t, ok, "%s takes a body: add a valid one to echoBodies", name)
				c, ok := op.RequestBody.Content["application/json"]
				require.True(t, ok, "%s: its body is not application/json", name)
				members = echoStringMembers(t, doc.Components.Schemas, c.Schema, nil, 0)
				require.NotEmpty(t, members, "%s: a body without a string member", name)
			}
			base := func(label string) echoCase {
				c := echoCase{name: name + " " + label, method: method, tmpl: tmpl, path: map[string]string{}, query: url.Values{}}
				for k, v := range valid {
					c.path[k] = v
				}
				if op.RequestBody != nil {
					c.body = []byte(validBody)
					c.contentType = docType
				}
				return c
			}

			for _, cn := range echoCanaries {
				if !cn.sanitized {
					// Path and query go percent-encoded: the raw bytes
					// are the interesting ones there.
					for _, p := range op.Parameters {
						switch p.In {
						case "path":
							c := base(cn.name + " in path." + p.Name)
							c.path[p.Name] = url.PathEscape(cn.value)
							cases = append(cases, c)
						case "query":
							c := base(cn.name + " in query." + p.Name)
							c.query.Set(p.Name, cn.value)
							cases = append(cases, c)
						case "header":
							// Not tried: see the test's comment.
						default:
							t.Fatalf("%s: parameter %s is in %s; teach this test about it", name, p.Name, p.In)
						}
					}
					// A query parameter the route does not know.
					c := base(cn.name + " in query.zq")
					c.query.Set("zq", cn.value)
					cases = append(cases, c)
				}
				if docType != "" {
					c := base(cn.name + " in the document")
					c.body = []byte(cn.value + "\n")
					cases = append(cases, c)
				}
				for _, at := range members {
					var v any
					require.NoError(t, json.Unmarshal([]byte(validBody), &v), name)
					const mark = "\x00echo-canary\x00"
					v = echoSet(v, at, mark)
					b, err := json.Marshal(v)
					require.NoError(t, err)
					canary := echoJSONString(cn.value)
					if cn.sanitized {
						canary = echoJSONString(strings.ToValidUTF8(cn.value, "\ufffd"))
					}
					markJSON, _ := json.Marshal(mark)
					require.Equal(t, 1, bytes.Count(b, markJSON))
					c := base(cn.name + " in " + echoLoc(at))
					c.body = bytes.Replace(b, markJSON, []byte(canary), 1)
					cases = append(cases, c)
				}
			}
		}
	}
	require.Greater(t, routes, 40, "the OpenAPI document lists the API's routes")

	refused := 0
	for _, c := range cases {
		// {seedId} and the body of promote name a seed of this case, in
		// the state a new seed has (draft), so every route of a seed gets
		// past "not found" to its own checks.
		var seedID string
		if strings.Contains(c.tmpl, "{seedId}") || c.tmpl == "/api/v1/seeds/promote" || c.tmpl == "/api/v1/seeds/bulk" {
			seedID = newSeed()
		}
		path := placeholder.ReplaceAllStringFunc(c.tmpl, func(ph string) string {
			k := ph[1 : len(ph)-1]
			if k == "seedId" && c.path[k] == url.PathEscape(echoPathSamples[k]) {
				return url.PathEscape(seedID)
			}
			return c.path[k]
		})
		if len(c.query) > 0 {
			path += "?" + c.query.Encode()
		}
		body := c.body
		if body != nil {
			n++
			body = bytes.ReplaceAll(body, []byte("{n}"), []byte(fmt.Sprint(n)))
			body = bytes.ReplaceAll(body, []byte("{seedId}"), []byte(seedID))
		}
		for try := 1; try <= 2; try++ {
			r := call(c.method, path, body, c.contentType)
			if r.StatusCode < 400 {
				continue
			}
			refused++
			if piece, where := echoFind(r, needles); piece != "" {
				t.Errorf("%s (try %d): %d echoes %q in its %s:\n%s", c.name, try, r.StatusCode, piece, where, r.Body)
			}
		}
	}
	t.Logf("%d routes, %d cases, %d answers refused the canary", routes, len(cases), refused)
	require.Greater(t, refused, len(cases)/2, "most cases are refused; is the test reaching the routes?")
}

// echoFind returns the first needle found in r's headers or body, raw or
// as its JSON strings decode, and where it was.
func echoFind(r response, needles []string) (string, string) {
	look := func(s string) string {
		s = strings.ToLower(s)
		for _, n := range needles {
			if strings.Contains(s, n) {
				return n
			}
		}
		return ""
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			if n := look(k + ": " + v); n != "" {
				return n, "header " + k
			}
		}
	}
	if n := look(string(r.Body)); n != "" {
		return n, "body"
	}
	var v any
	if json.Unmarshal(r.Body, &v) == nil {
		var strs []string
		var walk func(any)
		walk = func(v any) {
			switch x := v.(type) {
			case string:
				strs = append(strs, x)
			case []any:
				for _, e := range x {
					walk(e)
				}
			case map[string]any:
				for k, e := range x {
					strs = append(strs, k)
					walk(e)
				}
			}
		}
		walk(v)
		for _, s := range strs {
			if n := look(s); n != "" {
				return n, "body (decoded)"
			}
		}
	}
	if !utf8.Valid(r.Body) {
		return "invalid UTF-8", "body"
	}
	return "", ""
}

// The stand-ins of the outbound work. The queue is not started, so none
// is ever called.
type (
	noProber  struct{}
	noRunner  struct{}
	noFetcher struct{}
)

var errNoNetwork = errors.New("echo test: no outbound work")

func (noProber) Probe(context.Context, string) seedengine.LivenessResult {
	return seedengine.LivenessResult{}
}

func (noRunner) Discover(context.Context, string, string) *contract.Evidence { return nil }

func (noFetcher) Do(context.Context, fetch.Request) (*fetch.Response, error) {
	return nil, errNoNetwork
}

func (noFetcher) Stream(context.Context, fetch.Request) (*fetch.StreamResponse, error) {
	return nil, errNoNetwork
}
