package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// projectURL is where the project lives; it is also the default contact of
// the crawler's User-Agent (internal/fetch), which httpapi does not import.
const projectURL = "https://github.com/seedengine/seedengine"

// licenceName is the document's info.license. The repository has no
// LICENSE file yet, so there is no url or SPDX identifier to give; set one
// when it is added (and drop the info-license-strict lint exceptions in
// openapitest).
const licenceName = "No licence granted yet"

// tagDescriptions describes every route group, which is each operation's
// one tag. New panics when a route's group has no entry here, so a new
// group cannot reach the document undeclared.
var tagDescriptions = map[string]string{
	"service":  "What the service offers (`GET /`, generated from the route table) and its Prometheus metrics. Open.",
	"health":   "Liveness and readiness for load balancers and orchestrators. Open, not rate limited.",
	"queues":   "Batches of chunked jobs on the durable queue (research, liveness, contract): their progress, results and statistics, and jobs that failed for good.",
	"datasets": "Raw research datasets in the object store, by partition (country, category, date) and chunk.",
	"metadata": "The metadata snapshot (totals and counts by country, category and date) and its sync to git.",
	"research": "Research: lists of URLs for a partition become classified, de-duplicated domain records, stored as a dataset chunk.",
	"domains":  "Domains found by research, with the partitions they appeared in and their latest liveness.",
	"seeds":    "Seeds: per-domain retrieval contracts, created as drafts, promoted to active by a person, then suspended, reactivated or archived.",
	"items":    "Items: every new article URL the active seeds' entries list, recorded once, followed by cursor, exported as NDJSON and stored as immutable files per partition (country, category, day first seen).",
	"articles": "Articles: every stored page read as an article (body text, title, authors, dates, language), followed by cursor, searched in full text, exported as NDJSON and stored as files per partition (JSON Lines, and Parquet once the day is over); copies of one text are grouped (duplicate_of).",
	"keys":     "API keys and their scopes.",
}

// opError is an error response an operation gives besides those every
// operation of its kind gives (see operation).
type opError struct {
	status int
	when   string
}

// operationErrors are the notable errors of single operations, by
// operation id: documented as responses and named in the description.
var operationErrors = map[string][]opError{
	"retry-dead-letter":     {{http.StatusConflict, "the job is not a dead letter"}},
	"trigger-metadata-sync": {{http.StatusConflict, "no git remote is configured"}},
	"sync-metadata":         {{http.StatusConflict, "no git remote is configured"}},
	"create-seed":           {{http.StatusConflict, "a seed with this seed_id exists"}},
	"promote-seed":          {{http.StatusNotFound, "no seed has this seedId"}, {http.StatusConflict, "the seed is not a draft"}},
	"suspend-seed":          {{http.StatusConflict, "the seed is not active"}},
	"reactivate-seed":       {{http.StatusConflict, "the seed is not suspended"}},
	"archive-seed":          {{http.StatusConflict, "the seed is archived already"}},
}

// documentServer is the part of the OpenAPI document that is about the
// deployment rather than the routes.
func documentServer(c *huma.Config) {
	// The server cannot know its public URL (proxies, port mappings), and
	// a wrong absolute URL is worse than none: "/" is the default the
	// OpenAPI specification assumes when servers is absent, made explicit.
	c.Servers = []*huma.Server{{
		URL:         "/",
		Description: "The server this document was fetched from.",
	}}
	c.Info.Contact = &huma.Contact{Name: "seedengine", URL: projectURL}
	c.Info.License = &huma.License{Name: licenceName}
}

// finishOpenAPI completes the document once every route is registered:
// the global tags, and descriptions built from the final responses.
func (s *Server) finishOpenAPI() {
	oapi := s.api.OpenAPI()
	seen := map[string]bool{}
	for _, rt := range s.routes {
		if seen[rt.group] || findOperation(oapi, rt) == nil {
			continue
		}
		seen[rt.group] = true
		desc, ok := tagDescriptions[rt.group]
		if !ok {
			panic("httpapi: route group " + rt.group + " has no tag description in openapi.go")
		}
		oapi.Tags = append(oapi.Tags, &huma.Tag{Name: rt.group, Description: desc})
	}
	for id := range operationErrors {
		if !slices.ContainsFunc(s.routes, func(rt *route) bool { return rt.OperationID == id }) {
			panic("httpapi: operationErrors names unknown operation " + id)
		}
	}

	for _, rt := range s.routes {
		op := findOperation(oapi, rt)
		if op == nil {
			continue // a plain route without docs
		}
		op.Description = describe(rt, op)
		for _, code := range []string{"429", "503"} {
			if resp := op.Responses[code]; resp != nil {
				resp.Headers = map[string]*huma.Param{"Retry-After": retryAfterHeader}
			}
		}
	}
}

// retryAfterHeader documents the Retry-After of every 429 and 503.
var retryAfterHeader = &huma.Param{
	Description: "Seconds to wait before trying again.",
	Schema:      &huma.Schema{Type: huma.TypeInteger, Minimum: new(float64(1))},
}

func findOperation(oapi *huma.OpenAPI, rt *route) *huma.Operation {
	item := oapi.Paths[rt.Path]
	if item == nil {
		return nil
	}
	switch rt.Method {
	case http.MethodGet:
		return item.Get
	case http.MethodPost:
		return item.Post
	case http.MethodPut:
		return item.Put
	case http.MethodPatch:
		return item.Patch
	case http.MethodDelete:
		return item.Delete
	}
	return nil
}

// statusMeaning is what an error status means on every route, with the
// problem code it carries.
var statusMeaning = map[int]string{
	http.StatusBadRequest:            "400 `invalid`: more than one Authorization header, or a body that is not well-formed UTF-8 JSON or ended early",
	http.StatusRequestTimeout:        "408 `invalid`: the body did not arrive in time",
	http.StatusUnauthorized:          "401 `unauthorized`: no key, or an unknown or revoked one",
	http.StatusForbidden:             "403 `forbidden`: the key's scope is too low",
	http.StatusNotFound:              "404 `not_found`: no such resource",
	http.StatusConflict:              "409 `conflict`",
	http.StatusRequestEntityTooLarge: "413 `too_large`: the body is over the limit",
	http.StatusUnsupportedMediaType:  "415 `invalid`: a body without one JSON Content-Type in UTF-8",
	http.StatusMisdirectedRequest:    "421 `misdirected`: the request's Host is not one the service answers for (a service without keys answers loopback names and --allowed-hosts only)",
	http.StatusUnprocessableEntity:   "422 `invalid`: a bad field or parameter, named in `errors[]` (a member named otherwise than the schema's field, case included, is one)",
	http.StatusTooManyRequests:       "429 `rate_limited`: over the key's rate limit; retry after `Retry-After` seconds",
	http.StatusServiceUnavailable:    "503 `unavailable`: a dependency (keys, database, object store, queue) cannot serve right now; retry after `Retry-After` seconds",
}

// describe is an operation's description. The summary says what the
// operation does; this says who may call it and what its errors mean, so
// that a reader of the docs page or of a generated client need not look
// up the conventions elsewhere.
func describe(rt *route, op *huma.Operation) string {
	if rt.Scope == "" {
		return "Open: needs no API key and is not rate limited."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Needs an API key with the `%s` scope", rt.Scope)
	switch rt.Scope {
	case read:
		b.WriteString(" (or `write` or `admin`, which include it)")
	case write:
		b.WriteString(" (or `admin`, which includes it)")
	}
	b.WriteString(".\n\n")
	b.WriteString("Errors are `application/problem+json`:\n")
	notable := map[int][]string{}
	for _, e := range operationErrors[rt.OperationID] {
		notable[e.status] = append(notable[e.status], e.when)
	}
	var statuses []int
	for code := range op.Responses {
		if n, err := strconv.Atoi(code); err == nil && n >= 400 && n != http.StatusInternalServerError {
			statuses = append(statuses, n)
		}
	}
	slices.Sort(statuses)
	for _, st := range statuses {
		line := statusMeaning[st]
		if line == "" {
			line = strconv.Itoa(st) + " " + http.StatusText(st)
		}
		if when := notable[st]; len(when) > 0 {
			prefix, _, _ := strings.Cut(line, ": ")
			line = prefix + ": " + strings.Join(when, "; ")
		}
		b.WriteString("- " + line + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// downgrade is huma's OpenAPI 3.0.3 rendering of the document, plus what
// huma leaves 3.1-only: a $ref with sibling keywords (a field's doc next
// to its type's $ref), which 3.0 ignores and its linters reject. The $ref
// moves into a one-element allOf, keeping the siblings.
func downgrade(oapi *huma.OpenAPI) ([]byte, error) {
	b, err := oapi.Downgrade()
	if err != nil {
		return nil, err
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	wrapRefSiblings(doc)
	return json.Marshal(doc)
}

func wrapRefSiblings(v any) {
	switch v := v.(type) {
	case map[string]any:
		if ref, ok := v["$ref"]; ok && len(v) > 1 {
			delete(v, "$ref")
			v["allOf"] = []any{map[string]any{"$ref": ref}}
		}
		for _, child := range v {
			wrapRefSiblings(child)
		}
	case []any:
		for _, child := range v {
			wrapRefSiblings(child)
		}
	}
}
