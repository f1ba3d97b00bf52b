package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/httpapi"
)

func TestBodyTooLarge(t *testing.T) {
	t.Parallel()
	small := func(c *httpapi.Config, _ *httpapi.Deps) { c.MaxBodyBytes = 1024 }
	big := `{"name":"` + strings.Repeat("a", 2000) + `","scope":"read"}`

	t.Run("declared length", func(t *testing.T) {
		t.Parallel()
		e := setup(t, small)
		r := e.do(t, request{Method: "POST", Path: "/api/v1/keys", Body: big})
		p := r.Problem(t, http.StatusRequestEntityTooLarge, "too_large")
		require.Contains(t, p.Detail, "1024")
	})
	t.Run("chunked", func(t *testing.T) {
		t.Parallel()
		e := setup(t, small)
		// A reader of unknown length makes the client send it chunked, so
		// only reading can find it too large.
		r := e.do(t, request{Method: "POST", Path: "/api/v1/keys", Body: io.MultiReader(strings.NewReader(big))})
		p := r.Problem(t, http.StatusRequestEntityTooLarge, "too_large")
		require.Contains(t, p.Detail, "1024")
	})
	t.Run("at the limit is read", func(t *testing.T) {
		t.Parallel()
		e := setup(t, small)
		body := `{"name":"n","scope":"read"}`
		body += strings.Repeat(" ", 1024-len(body))
		r := e.do(t, request{Method: "POST", Path: "/api/v1/keys", Body: io.MultiReader(strings.NewReader(body))})
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	})
}

func TestDefaultBodyLimitFitsLargeBatches(t *testing.T) {
	t.Parallel()
	e := setup(t)
	// Several MiB, as a 10,000-URL batch is: read and validated, not refused
	// as too large, and not echoed back.
	huge := strings.Repeat("x", 4<<20)
	r := e.do(t, request{Method: "POST", Path: "/api/v1/keys", Body: `{"name":"` + huge + `","scope":"read"}`})
	p := r.Problem(t, http.StatusUnprocessableEntity, "invalid")
	require.Equal(t, []string{"body.name"}, locations(p))
	require.Less(t, len(r.Body), 2048, "the value must not be echoed back")
}

func TestMalformedJSONIs400(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, body := range []string{`{"name":`, `not json`, `[1,2`} {
		r := e.do(t, request{Method: "POST", Path: "/api/v1/keys", Body: body})
		p := r.Problem(t, http.StatusBadRequest, "invalid")
		require.Equal(t, []string{"body"}, locations(p))
		require.NotContains(t, string(r.Body), "not json", "the body must not be echoed back")
	}
}

func TestValidationNamesTheField(t *testing.T) {
	t.Parallel()
	e := setup(t)
	tests := []struct {
		name      string
		method    string
		path      string
		body      string
		locations []string
	}{
		{"bad enum in body", "POST", "/api/v1/keys", `{"name":"ci","scope":"root"}`, []string{"body.scope"}},
		{"missing field", "POST", "/api/v1/keys", `{"name":"ci"}`, []string{"body.scope"}},
		{"unknown field", "POST", "/api/v1/keys", `{"name":"ci","scope":"read","colour":"red"}`, []string{"body.colour"}},
		{"two bad fields", "POST", "/api/v1/keys", `{"name":"","scope":"x"}`, []string{"body.name", "body.scope"}},
		{"name with control characters", "POST", "/api/v1/keys", `{"name":"a\u0007b","scope":"read"}`, []string{"body.name"}},
		{"limit too large", "GET", "/api/v1/queues/batches?limit=5000", "", []string{"query.limit"}},
		{"limit not a number", "GET", "/api/v1/queues/batches?limit=ten", "", []string{"query.limit"}},
		{"unknown kind", "GET", "/api/v1/queues/batches?kind=weird", "", []string{"query.kind"}},
		{"misspelt filter", "GET", "/api/v1/queues/batches?stauts=queued", "", []string{"query.stauts"}},
		{"batch id with bad characters", "GET", "/api/v1/queues/batch/a%20b", "", []string{"path.batchId"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var body any
			if tt.body != "" {
				body = tt.body
			}
			r := e.do(t, request{Method: tt.method, Path: tt.path, Body: body})
			p := r.Problem(t, http.StatusUnprocessableEntity, "invalid")
			require.Equal(t, tt.locations, locations(p))
			for _, fe := range p.Errors {
				require.NotEmpty(t, fe.Message)
			}
		})
	}
}

func TestValidationErrorsAreCapped(t *testing.T) {
	t.Parallel()
	e := setup(t)
	var b strings.Builder
	b.WriteString(`{"name":"ci","scope":"read"`)
	for i := range 500 {
		fmt.Fprintf(&b, `,"extra%d":%q`, i, strings.Repeat("v", 200))
	}
	b.WriteString("}")
	r := e.do(t, request{Method: "POST", Path: "/api/v1/keys", Body: b.String()})
	p := r.Problem(t, http.StatusUnprocessableEntity, "invalid")
	require.Len(t, p.Errors, 100)
	require.Contains(t, p.Detail, "500 errors")
	require.NotContains(t, string(r.Body), "vvvv")
}

func TestPanicIs500AndLogged(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do(t, request{Path: "/api/v1/queues/batch/panic", Header: http.Header{"X-Request-Id": {"trace-panic-1"}}})
	p := r.Problem(t, http.StatusInternalServerError, "internal")
	require.Equal(t, "Internal error.", p.Detail)
	require.Equal(t, "trace-panic-1", p.RequestID)
	require.NotContains(t, string(r.Body), "hunter2")
	require.NotContains(t, string(r.Body), "goroutine")

	panics := e.logs.lines(t, "http_panic")
	require.Len(t, panics, 1)
	require.Equal(t, "trace-panic-1", panics[0]["request_id"])
	require.Contains(t, panics[0]["panic"], "hunter2")
	require.Contains(t, panics[0]["stack"], "FindBatchByID")
	require.Equal(t, "/api/v1/queues/batch/{batchId}", panics[0]["route"])

	access := e.logs.lines(t, "http_request")
	require.Len(t, access, 1)
	require.EqualValues(t, 500, access[0]["status"])

	// The server goes on serving.
	r = e.do(t, request{Path: "/health"})
	require.Equal(t, http.StatusOK, r.StatusCode)
}

func TestInternalErrorHidesDetails(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do(t, request{Path: "/api/v1/queues/batch/broken"})
	p := r.Problem(t, http.StatusInternalServerError, "internal")
	require.Equal(t, "Internal error.", p.Detail)
	require.NotContains(t, string(r.Body), "hunter2")

	logged := e.logs.lines(t, "http_error")
	require.Len(t, logged, 1)
	require.Equal(t, p.RequestID, logged[0]["request_id"])
	require.Contains(t, logged[0]["error"], "hunter2")
}

func TestResponsesCarryNoSchemaLink(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do(t, request{Path: "/api/v1/queues/stats"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.Empty(t, r.Header.Get("Link"))
	require.NotContains(t, r.JSON(t), "$schema")
}
