package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/httpapi"
	"github.com/seedengine/seedengine/internal/httpapi/httpapitest"
)

// fakeKeys is an in-memory seedengine.APIKeyService.
type fakeKeys struct {
	mu     sync.Mutex
	keys   []*seedengine.APIKey
	tokens map[string]*seedengine.APIKey
	n      int
	counts int // CountActiveAPIKeys calls
}

func newFakeKeys() *fakeKeys { return &fakeKeys{tokens: map[string]*seedengine.APIKey{}} }

func (f *fakeKeys) CreateAPIKey(_ context.Context, name string, scope seedengine.Scope) (*seedengine.APIKey, string, error) {
	if err := seedengine.ValidateAPIKeyName(name); err != nil {
		return nil, "", err
	}
	if !scope.Valid() {
		return nil, "", seedengine.FieldErrorf("scope", "bad scope")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, k := range f.keys {
		if k.Name == name {
			return nil, "", seedengine.Errorf(seedengine.ECONFLICT, "a key named %q exists", name)
		}
	}
	f.n++
	token := fmt.Sprintf("sek_%s_%04d_secret", scope, f.n)
	k := &seedengine.APIKey{ID: fmt.Sprintf("key%04d", f.n), Name: name, Scope: scope, Prefix: token[:8], CreatedAt: time.Now().UTC()}
	f.keys = append(f.keys, k)
	f.tokens[token] = k
	cp := *k
	return &cp, token, nil
}

func (f *fakeKeys) FindAPIKeyByToken(_ context.Context, token string) (*seedengine.APIKey, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k, ok := f.tokens[token]
	if !ok || !k.Active() {
		return nil, seedengine.Errorf(seedengine.EUNAUTHORIZED, "no such key")
	}
	cp := *k
	return &cp, nil
}

func (f *fakeKeys) FindAPIKeyByID(_ context.Context, id string) (*seedengine.APIKey, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, k := range f.keys {
		if k.ID == id {
			cp := *k
			return &cp, nil
		}
	}
	return nil, seedengine.Errorf(seedengine.ENOTFOUND, "no such key")
}

func (f *fakeKeys) FindAPIKeys(context.Context) ([]*seedengine.APIKey, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]*seedengine.APIKey, len(f.keys))
	for i, k := range f.keys {
		cp := *k
		out[i] = &cp
	}
	return out, nil
}

func (f *fakeKeys) RevokeAPIKey(_ context.Context, id string) (*seedengine.APIKey, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, k := range f.keys {
		if k.ID == id || k.Name == id {
			if k.RevokedAt == nil {
				now := time.Now().UTC()
				k.RevokedAt = &now
			}
			cp := *k
			return &cp, nil
		}
	}
	return nil, seedengine.Errorf(seedengine.ENOTFOUND, "no key %q", id)
}

func (f *fakeKeys) CountActiveAPIKeys(context.Context) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.counts++
	n := 0
	for _, k := range f.keys {
		if k.Active() {
			n++
		}
	}
	return n, nil
}

// mustCreate adds a key directly, as `seedengine apikey create` would.
func (f *fakeKeys) mustCreate(t *testing.T, name string, scope seedengine.Scope) string {
	t.Helper()
	_, token, err := f.CreateAPIKey(context.Background(), name, scope)
	require.NoError(t, err)
	return token
}

// fakeBatches is an in-memory seedengine.BatchService. Looking up the
// batch id "panic" panics and "broken" fails with an internal error, both
// with secrets in their text that must never reach a client.
type fakeBatches struct {
	mu      sync.Mutex
	batches []*seedengine.Batch
}

const secret = "postgres://admin:hunter2@10.0.0.5/seedengine"

func (f *fakeBatches) CreateBatch(_ context.Context, b *seedengine.Batch, _ []*seedengine.BatchChunk) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.batches = append(f.batches, b)
	return nil
}

func (f *fakeBatches) FindBatchByID(_ context.Context, id string) (*seedengine.Batch, error) {
	switch id {
	case "panic":
		panic("lost connection to " + secret)
	case "broken":
		return nil, fmt.Errorf("query batch: dial %s: connection refused", secret)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range f.batches {
		if b.ID == id {
			return b, nil
		}
	}
	return nil, seedengine.Errorf(seedengine.ENOTFOUND, "batch %q not found", id)
}

func (f *fakeBatches) FindBatches(_ context.Context, flt seedengine.BatchFilter) ([]*seedengine.Batch, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var match []*seedengine.Batch
	for i := len(f.batches) - 1; i >= 0; i-- {
		b := f.batches[i]
		if (flt.Kind == "" || b.Kind == flt.Kind) && (flt.Status == "" || b.Status == flt.Status) {
			match = append(match, b)
		}
	}
	total := len(match)
	if flt.Offset >= len(match) {
		return nil, total, nil
	}
	match = match[flt.Offset:]
	if flt.Limit > 0 && len(match) > flt.Limit {
		match = match[:flt.Limit]
	}
	return match, total, nil
}

func (f *fakeBatches) FindBatchChunk(context.Context, string, int) (*seedengine.BatchChunk, error) {
	return nil, seedengine.Errorf(seedengine.ENOTFOUND, "no chunk")
}

// fakeQueueStats returns fixed counts.
type fakeQueueStats struct {
	counts  []seedengine.JobCount
	through []seedengine.KindThroughput
	minutes int // of the last Throughput call
	err     error
}

func (f *fakeQueueStats) CountJobs(context.Context) ([]seedengine.JobCount, error) {
	return f.counts, f.err
}

func (f *fakeQueueStats) Throughput(_ context.Context, minutes int) ([]seedengine.KindThroughput, error) {
	f.minutes = minutes
	return f.through, f.err
}

// logBuffer collects JSON log lines from concurrent handlers.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines returns the decoded log lines whose event is event ("" for all).
func (b *logBuffer) lines(t *testing.T, event string) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.buf.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		if event == "" || m["event"] == event {
			out = append(out, m)
		}
	}
	return out
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// env is one server under test with its fakes.
type env struct {
	srv     *httpapi.Server
	ts      *httptest.Server
	keys    *fakeKeys
	batches *fakeBatches
	stats   *fakeQueueStats
	logs    *logBuffer
}

type option func(*httpapi.Config, *httpapi.Deps)

func setup(t *testing.T, opts ...option) *env {
	t.Helper()
	e := &env{
		keys:    newFakeKeys(),
		batches: &fakeBatches{},
		stats: &fakeQueueStats{counts: []seedengine.JobCount{
			{Kind: "research_chunk", State: "available", Count: 3},
			{Kind: "research_chunk", State: "running", Count: 1},
			{Kind: "liveness_chunk", State: "completed", Count: 7},
		}},
		logs: &logBuffer{},
	}
	cfg := httpapi.Config{
		Logger:      slog.New(slog.NewJSONHandler(e.logs, nil)),
		Version:     "1.2.3-test",
		Commit:      "abc123",
		Environment: "test",
		Categories:  []string{"news", "policy"},
		RateLimit:   -1, // most tests are not about the limit
	}
	deps := httpapi.Deps{APIKeys: e.keys, Batches: e.batches, QueueStats: e.stats}
	for _, o := range opts {
		o(&cfg, &deps)
	}
	e.srv = httpapi.New(cfg, deps)
	e.ts = httptest.NewServer(e.srv.Handler())
	t.Cleanup(e.ts.Close)
	return e
}

// request and response are the API's test client, shared with the
// application's flow tests (internal/app).
type (
	request  = httpapitest.Request
	response = httpapitest.Response
)

func (e *env) do(t *testing.T, r request) response {
	t.Helper()
	return httpapitest.Do(t, e.ts, r)
}

var locations = httpapitest.Locations

var errCheck = errors.New("dial tcp 10.1.2.3:5432: connection refused")

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
