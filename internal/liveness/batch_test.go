package liveness_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/discover"
	"github.com/seedengine/seedengine/internal/liveness"
)

// fakeProber gives each domain the verdict in verdicts (alive when absent)
// and counts probes.
type fakeProber struct {
	mu       sync.Mutex
	verdicts map[string]seedengine.Verdict
	probes   map[string]int
}

func (p *fakeProber) Probe(ctx context.Context, domain string) seedengine.LivenessResult {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.probes[domain]++
	if ctx.Err() != nil {
		return seedengine.LivenessResult{Domain: domain, Reason: liveness.ReasonCanceled}
	}
	v, ok := p.verdicts[domain]
	if !ok {
		v = seedengine.VerdictAlive
	}
	reason := "ok"
	if v == "" {
		reason = "dns_error"
	}
	return seedengine.LivenessResult{Domain: domain, Verdict: v, Reason: reason, CheckedAt: time.Now()}
}

type fakeStore struct {
	mu      sync.Mutex
	results map[string]seedengine.LivenessResult
}

func (s *fakeStore) RecordLivenessResults(_ context.Context, _ string, rs []seedengine.LivenessResult) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range rs {
		s.results[r.Domain] = r
	}
	return nil
}

func (s *fakeStore) FindLivenessResults(context.Context, seedengine.LivenessFilter) ([]*seedengine.LivenessResult, int, error) {
	return nil, 0, nil
}

// fakeObjects keeps what is put, for chunks that may run at once.
type fakeObjects struct {
	mu      sync.Mutex
	objects map[string]string
}

func (o *fakeObjects) Put(_ context.Context, key string, r io.Reader, _ string) (int64, error) {
	b, err := io.ReadAll(r)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.objects[key] = string(b)
	return int64(len(b)), err
}

func TestChunkProcessor(t *testing.T) {
	t.Parallel()
	p := &fakeProber{verdicts: map[string]seedengine.Verdict{"dead.example": seedengine.VerdictDead, "nores.example": ""}, probes: map[string]int{}}
	store := &fakeStore{results: map[string]seedengine.LivenessResult{}}
	objects := &fakeObjects{objects: map[string]string{}}
	proc := liveness.ChunkProcessor(p, discover.DefaultClassifier(), store, objects)

	input, err := json.Marshal(liveness.ChunkInput{Domains: []string{
		"alive.example", "https://www.alive.example/x", "dead.example", "com:sg:Shop.example",
		"nores.example", "  ", "localhost", "mil:xx:a.example",
		"192.0.2.1", "http://0x7f.1/", "[2001:db8::1]", "other:sg:192.0.2.10", "other:sg:[2001:db8::1]",
		"exa mple.example",
	}})
	require.NoError(t, err)
	b := &seedengine.Batch{ID: "B1", Kind: seedengine.BatchLiveness, Country: "sg", ChunkSize: 14,
		Params: json.RawMessage(`{"date":"2026-01-28"}`)}
	c := &seedengine.BatchChunk{BatchID: "B1", Index: 2, Input: input, Items: 14}
	out, err := proc(t.Context(), b, c)
	require.NoError(t, err)
	require.Equal(t, 4, out.Succeeded, "three domains probed with a verdict and one duplicate")
	require.Equal(t, 10, out.Failed, "one without a verdict and nine invalid")

	var res liveness.ChunkResult
	require.NoError(t, json.Unmarshal(out.Result, &res))
	require.Equal(t, map[seedengine.Verdict]int{seedengine.VerdictAlive: 2, seedengine.VerdictDead: 1}, res.Verdicts)
	require.Equal(t, 1, res.NoVerdict)
	require.Equal(t, 1, res.Duplicates)
	require.Equal(t, []liveness.InvalidItem{
		{Index: 33, Input: "  ", Reason: discover.ReasonEmpty},
		{Index: 34, Input: "localhost", Reason: discover.ReasonNoRegistrableDomain},
		{Index: 35, Input: "mil:xx:a.example", Reason: liveness.ReasonInvalidDomainID},
		// An IP address is not a domain, however it is given.
		{Index: 36, Input: "192.0.2.1", Reason: discover.ReasonNoRegistrableDomain},
		{Index: 37, Input: "http://0x7f.1/", Reason: discover.ReasonNoRegistrableDomain},
		{Index: 38, Input: "[2001:db8::1]", Reason: discover.ReasonNoRegistrableDomain},
		{Index: 39, Input: "other:sg:192.0.2.10", Reason: discover.ReasonNoRegistrableDomain},
		{Index: 40, Input: "other:sg:[2001:db8::1]", Reason: discover.ReasonNoRegistrableDomain},
		{Index: 41, Input: "exa mple.example", Reason: discover.ReasonInvalidHost},
	}, res.Invalid, "indexes count from the start of the batch")
	key := "prod/liveness/country=sg/date=2026-01-28/B1.part-00002.jsonl"
	require.Equal(t, "prod/liveness/country=sg/date=2026-01-28/B1.jsonl", res.ResultsKey, "where the finisher merges the parts")
	require.Equal(t, 1, p.probes["alive.example"], "a duplicate is probed once")
	require.Equal(t, "com:sg:shop.example", store.results["shop.example"].DomainID, "a domain_id keeps its id")
	require.Len(t, store.results, 4)

	var lines int
	dec := json.NewDecoder(strings.NewReader(objects.objects[key]))
	for dec.More() {
		var r seedengine.LivenessResult
		require.NoError(t, dec.Decode(&r))
		lines++
	}
	require.Equal(t, 4, lines)

	// A chunk whose context ends fails the attempt, to be retried.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = proc(ctx, b, c)
	require.ErrorIs(t, err, context.Canceled)

	// Input that no retry can fix fails the chunk at once.
	_, err = proc(t.Context(), b, &seedengine.BatchChunk{BatchID: "B1", Input: json.RawMessage(`["x"]`)})
	require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err))
}
