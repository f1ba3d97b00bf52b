package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/httpapi/docsassets"
)

// The open routes are plain net/http handlers writing bytes prepared in
// New where they can: they are polled by load balancers and orchestrators
// and must cost next to nothing.

type healthStatus struct {
	Status    string    `json:"status" enum:"ok"`
	Timestamp time.Time `json:"timestamp"`
	Version   string    `json:"version"`
}

func (s *Server) handleHealth(w http.ResponseWriter, _ *http.Request) {
	b := make([]byte, 0, 96+len(s.versionJSON))
	b = append(b, `{"status":"ok","timestamp":"`...)
	b = time.Now().UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","version":`...)
	b = append(b, s.versionJSON...)
	b = append(b, "}\n"...)
	writeJSONBytes(w, http.StatusOK, b)
}

type liveStatus struct {
	Alive     bool      `json:"alive"`
	Timestamp time.Time `json:"timestamp"`
}

func (s *Server) handleLive(w http.ResponseWriter, _ *http.Request) {
	b := make([]byte, 0, 64)
	b = append(b, `{"alive":true,"timestamp":"`...)
	b = time.Now().UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, "\"}\n"...)
	writeJSONBytes(w, http.StatusOK, b)
}

type readiness struct {
	Ready     bool                   `json:"ready"`
	Timestamp time.Time              `json:"timestamp"`
	Checks    map[string]checkResult `json:"checks" doc:"One entry per dependency: database, object_store, queue."`
	Code      string                 `json:"code,omitempty" enum:"unavailable" doc:"Set when not ready, as in a problem."`
	Detail    string                 `json:"detail,omitempty" doc:"Names the failing checks when not ready."`
}

type checkResult struct {
	Status     string  `json:"status" enum:"ok,fail"`
	Error      string  `json:"error,omitempty" doc:"Why the check failed; details are in the server log under the request id."`
	DurationMS float64 `json:"duration_ms"`
}

// handleReady runs every check concurrently under one deadline. A check
// still running at the deadline counts as failed; its goroutine is left to
// finish on its own since the context tells it to stop.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	st := &reqState{srv: s, path: r.URL.Path}
	if rw, ok := w.(*respWriter); ok {
		st = &rw.st
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.ReadyTimeout)
	defer cancel()

	type outcome struct {
		name string
		err  error
		took time.Duration
	}
	results := make(chan outcome, len(s.deps.Checks))
	start := time.Now()
	for name, c := range s.deps.Checks {
		go func() {
			t := time.Now()
			err := runCheck(ctx, c)
			results <- outcome{name, err, time.Since(t)}
		}()
	}

	body := readiness{Ready: true, Timestamp: start.UTC(), Checks: make(map[string]checkResult, len(s.deps.Checks))}
	for range s.deps.Checks {
		var o outcome
		select {
		case o = <-results:
		case <-ctx.Done():
		}
		if o.name == "" {
			break
		}
		res := checkResult{Status: "ok", DurationMS: ms(o.took)}
		if o.err != nil {
			res.Status = "fail"
			res.Error = s.checkError(st, o.name, o.err)
		}
		body.Checks[o.name] = res
	}
	for name := range s.deps.Checks {
		if _, done := body.Checks[name]; !done {
			err := fmt.Errorf("check %s: %w", name, context.DeadlineExceeded)
			body.Checks[name] = checkResult{Status: "fail", Error: s.checkError(st, name, err), DurationMS: ms(time.Since(start))}
		}
	}

	var failing []string
	for _, name := range sortedKeys(body.Checks) {
		if body.Checks[name].Status != "ok" {
			failing = append(failing, name)
		}
	}
	status := http.StatusOK
	if len(failing) > 0 {
		status = http.StatusServiceUnavailable
		body.Ready = false
		body.Code = seedengine.EUNAVAILABLE
		body.Detail = "not ready: " + strings.Join(failing, ", ")
	}
	b, _ := json.Marshal(body)
	writeJSONBytes(w, status, append(b, '\n'))
}

// runCheck turns a panicking check into a failed one, so one broken
// dependency probe cannot take the process down.
func runCheck(ctx context.Context, c seedengine.Checker) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("check panicked: %v", v)
		}
	}()
	return c.Check(ctx)
}

// checkError logs why a check failed and returns what may be shown: the
// endpoint is open, and driver errors carry hosts, users and paths.
func (s *Server) checkError(st *reqState, name string, err error) string {
	s.logger.LogAttrs(context.Background(), slog.LevelWarn, "readiness check failed",
		slog.String("event", "health_check_failed"),
		slog.String("request_id", st.id),
		slog.String("check", name),
		slog.String("error", err.Error()),
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out after " + s.cfg.ReadyTimeout.String()
	case seedengine.ErrorCode(err) != seedengine.EINTERNAL:
		return seedengine.ErrorMessage(err)
	}
	return "check failed"
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

type serviceInfo struct {
	Name        string    `json:"name" example:"seedengine"`
	Version     string    `json:"version"`
	Build       buildInfo `json:"build"`
	Environment string    `json:"environment"`
	Categories  []string  `json:"categories" doc:"Known category values."`
	APIs        []apiInfo `json:"apis" doc:"Every route, grouped by API."`
}

type buildInfo struct {
	Commit    string `json:"commit"`
	GoVersion string `json:"go_version"`
}

type apiInfo struct {
	Name      string         `json:"name" example:"queues"`
	Version   string         `json:"version" example:"v1"`
	BasePath  string         `json:"base_path" example:"/api/v1/queues"`
	Endpoints []endpointInfo `json:"endpoints"`
}

type endpointInfo struct {
	Method  string `json:"method"`
	Path    string `json:"path"`
	Summary string `json:"summary"`
	Scope   string `json:"scope,omitempty" enum:"read,write,admin" doc:"Scope needed; absent for open routes."`
}

// rootBody is generated from the route table so it cannot drift from the
// routes actually served.
func (s *Server) rootBody() serviceInfo {
	doc := serviceInfo{
		Name:        seedengine.Name,
		Version:     s.cfg.Version,
		Build:       buildInfo{Commit: s.cfg.Commit, GoVersion: s.cfg.GoVersion},
		Environment: s.cfg.Environment,
		Categories:  s.cfg.Categories,
		APIs:        []apiInfo{},
	}
	index := map[string]int{}
	for _, rt := range s.routes {
		i, ok := index[rt.group]
		if !ok {
			i = len(doc.APIs)
			index[rt.group] = i
			doc.APIs = append(doc.APIs, apiInfo{Name: rt.group, Version: "v1", BasePath: rt.basePath})
		}
		doc.APIs[i].Endpoints = append(doc.APIs[i].Endpoints, endpointInfo{
			Method:  rt.Method,
			Path:    rt.Path,
			Summary: rt.Summary,
			Scope:   string(rt.Scope),
		})
	}
	return doc
}

func (s *Server) handleRoot(w http.ResponseWriter, _ *http.Request) {
	writeJSONBytes(w, http.StatusOK, s.rootJSON)
}

func (s *Server) handleOpenAPI(w http.ResponseWriter, _ *http.Request) {
	writeOpenAPI(w, s.openapiJSON)
}

func (s *Server) handleOpenAPI30(w http.ResponseWriter, _ *http.Request) {
	writeOpenAPI(w, s.openapi30JSON)
}

func writeOpenAPI(w http.ResponseWriter, doc []byte) {
	h := w.Header()
	h["Content-Type"] = []string{"application/openapi+json"}
	h["Content-Length"] = []string{strconv.Itoa(len(doc))}
	_, _ = w.Write(doc)
}

// docsAssetPath is where the docs page's files are served. The version
// in the path is what lets them be cached for good.
const docsAssetPath = "/docs/assets/" + docsassets.Version + "/"

// docsPage renders /openapi.json with Stoplight Elements, served from the
// binary (internal/httpapi/docsassets) so the page needs no network.
const docsPage = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="referrer" content="no-referrer">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>seedengine API reference</title>
    <link rel="stylesheet" href="` + docsAssetPath + docsassets.Stylesheet + `">
    <script src="` + docsAssetPath + docsassets.Script + `"></script>
  </head>
  <body style="height: 100vh;">
    <elements-api
      apiDescriptionUrl="/openapi.json"
      router="hash"
      layout="sidebar"
      tryItCredentialsPolicy="same-origin"
    ></elements-api>
  </body>
</html>
`

// docsCSP lets the page load its own origin's scripts, styles and
// documents only. Elements sets inline styles.
const docsCSP = "default-src 'none'; base-uri 'none'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; " +
	"sandbox allow-same-origin allow-scripts; " +
	"script-src 'self'; style-src 'self' 'unsafe-inline'"

func (s *Server) handleDocs(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", docsCSP)
	// Revalidated, so that a new version's asset paths are picked up.
	h.Set("Cache-Control", "no-cache")
	_, _ = w.Write([]byte(docsPage))
}

// handleDocsAsset serves the docs page's files. Their path holds the
// viewer's version, so a response may be cached for good.
func (s *Server) handleDocsAsset(w http.ResponseWriter, r *http.Request) {
	a, ok := docsassets.Lookup(r.PathValue("file"))
	if !ok || r.PathValue("version") != docsassets.Version {
		st := &reqState{srv: s, path: r.URL.Path}
		if rw, ok := w.(*respWriter); ok {
			st = &rw.st
		}
		writeProblem(w, newProblem(st, http.StatusNotFound, seedengine.ENOTFOUND,
			"no such docs asset; the page loads those under "+docsAssetPath))
		return
	}
	h := w.Header()
	h["Content-Type"] = []string{a.ContentType}
	h["Content-Length"] = []string{strconv.Itoa(len(a.Body))}
	h["Cache-Control"] = []string{"public, max-age=31536000, immutable"}
	h["X-Content-Type-Options"] = []string{"nosniff"}
	_, _ = w.Write(a.Body)
}

func writeJSONBytes(w http.ResponseWriter, status int, b []byte) {
	h := w.Header()
	h["Content-Type"] = []string{"application/json"}
	h["Cache-Control"] = []string{"no-store"}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// docJSON documents a plain route answering JSON of type T with status
// 200 and the given extra statuses.
func docJSON[T any](extra ...int) func(huma.Registry, *huma.Operation) {
	return func(reg huma.Registry, op *huma.Operation) {
		content := map[string]*huma.MediaType{
			"application/json": {Schema: reg.Schema(reflect.TypeFor[T](), true, "")},
		}
		op.Responses = map[string]*huma.Response{"200": {Description: "OK", Content: content}}
		for _, st := range extra {
			op.Responses[strconv.Itoa(st)] = &huma.Response{Description: http.StatusText(st), Content: content}
		}
	}
}

// docText documents a plain route answering text.
func docText(desc string) func(huma.Registry, *huma.Operation) {
	return func(_ huma.Registry, op *huma.Operation) {
		op.Responses = map[string]*huma.Response{"200": {
			Description: desc,
			Content:     map[string]*huma.MediaType{"text/plain": {Schema: &huma.Schema{Type: huma.TypeString}}},
		}}
	}
}

// handleConsole hands /console/ to the operator console, when there is one.
func (s *Server) handleConsole(w http.ResponseWriter, r *http.Request) {
	if s.deps.Console == nil {
		st := &reqState{srv: s, path: r.URL.Path}
		if rw, ok := w.(*respWriter); ok {
			st = &rw.st
		}
		writeProblem(w, newProblem(st, http.StatusNotFound, seedengine.ENOTFOUND, "this server has no console"))
		return
	}
	s.deps.Console.ServeHTTP(w, r)
}
