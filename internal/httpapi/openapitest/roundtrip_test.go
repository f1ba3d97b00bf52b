package openapitest

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/client"
)

// TestClientRoundTrip drives a real seedengine serve process on loopback
// through the generated client only: create a key, research, a research
// batch polled to completion, datasets, then a seed created, listed and
// promoted. Problems must decode into the client's Problem type.
func TestClientRoundTrip(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the seedengine binary")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := startServer(ctx, t)

	// No key exists, so the API is open on loopback: create the first key.
	open, err := client.NewClientWithResponses(base)
	require.NoError(t, err)
	created, err := open.CreateKeyWithResponse(ctx, client.CreateKeyJSONRequestBody{Name: "roundtrip", Scope: client.KeyCreateRequestScopeAdmin})
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, created.StatusCode(), "%s", created.Body)
	token := created.JSON201.Token

	// From now on the API is closed, and a refusal is a problem.
	unauth, err := open.ListSeedsWithResponse(ctx, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusUnauthorized, unauth.StatusCode())
	require.NotNil(t, unauth.ApplicationproblemJSON401)
	require.Equal(t, client.ProblemCodeUnauthorized, unauth.ApplicationproblemJSON401.Code)

	c, err := client.NewClientWithResponses(base, client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+token)
		return nil
	}))
	require.NoError(t, err)

	research, err := c.CreateResearchWithResponse(ctx, client.CreateResearchJSONRequestBody{
		Country: "sg", Category: "news",
		Urls: &[]string{"https://www.mom.gov.sg/newsroom", "https://www.straitstimes.com/singapore"},
	})
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, research.StatusCode(), "%s", research.Body)
	require.EqualValues(t, 2, research.JSON201.Accepted)

	queued, err := c.EnqueueResearchWithResponse(ctx, client.EnqueueResearchJSONRequestBody{
		Country: "sg", Category: "news", ChunkSize: ptr(int64(1)),
		Urls: &[]string{"https://www.moh.gov.sg/", "https://www.nus.edu.sg/", "https://www.channelnewsasia.com/"},
	})
	require.NoError(t, err)
	require.Equal(t, http.StatusAccepted, queued.StatusCode(), "%s", queued.Body)
	require.NotNil(t, queued.Headers202.Location)
	batchID := queued.JSON202.Id

	var batch *client.Batch
	for {
		got, err := c.GetBatchWithResponse(ctx, batchID)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, got.StatusCode(), "%s", got.Body)
		batch = got.JSON200
		if batch.FinishedAt != nil {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("batch %s not finished: %+v", batchID, batch)
		case <-time.After(50 * time.Millisecond):
		}
	}
	require.Equal(t, "completed", batch.Status)
	require.EqualValues(t, 3, batch.Chunks.Done)

	datasets, err := c.ListDatasetsWithResponse(ctx, &client.ListDatasetsParams{Country: ptr("sg")})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, datasets.StatusCode(), "%s", datasets.Body)
	require.NotEmpty(t, *datasets.JSON200.Items)
	chunks := int64(0)
	for _, p := range *datasets.JSON200.Items {
		chunks += p.Chunks
	}
	require.EqualValues(t, 4, chunks, "one chunk from research, three from the batch")

	domains, err := c.ListDomainsWithResponse(ctx, &client.ListDomainsParams{Country: ptr("sg"), Authority: ptr(client.ListDomainsParamsAuthorityGov)})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, domains.StatusCode(), "%s", domains.Body)
	require.NotEmpty(t, *domains.JSON200.Items)
	domainID := (*domains.JSON200.Items)[0].DomainId

	seed, err := c.CreateSeedWithResponse(ctx, client.CreateSeedJSONRequestBody{
		DomainId: domainID, Category: "news",
		Fetch: client.SeedFetchRequest{Type: client.SeedFetchRequestTypeRss, EntryUrl: "https://www.mom.gov.sg/rss.xml"},
	})
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, seed.StatusCode(), "%s", seed.Body)
	require.Equal(t, client.SeedStatusDraft, seed.JSON201.Status)
	seedID := seed.JSON201.SeedId

	seeds, err := c.ListSeedsWithResponse(ctx, &client.ListSeedsParams{Country: ptr("sg"), Status: ptr(client.ListSeedsParamsStatusDraft)})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, seeds.StatusCode(), "%s", seeds.Body)
	require.EqualValues(t, 1, seeds.JSON200.Total)
	require.Equal(t, seedID, (*seeds.JSON200.Items)[0].SeedId)

	promoted, err := c.PromoteSeedWithResponse(ctx, client.PromoteSeedJSONRequestBody{SeedId: seedID})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, promoted.StatusCode(), "%s", promoted.Body)
	require.Equal(t, client.SeedStatusActive, promoted.JSON200.Status)

	again, err := c.PromoteSeedWithResponse(ctx, client.PromoteSeedJSONRequestBody{SeedId: seedID})
	require.NoError(t, err)
	require.Equal(t, http.StatusConflict, again.StatusCode(), "%s", again.Body)
	require.Equal(t, client.ProblemCodeConflict, again.ApplicationproblemJSON409.Code)
}

func ptr[T any](v T) *T { return &v }

// startServer builds the seedengine binary from the main module, runs
// serve on 127.0.0.1:0 with an empty data directory and returns its base
// URL once it is ready. The process is stopped with SIGTERM at cleanup.
func startServer(ctx context.Context, t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "seedengine")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/seedengine")
	build.Dir = filepath.Join("..", "..", "..")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "build seedengine: %s", out)

	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "data"), "--log-format", "json")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SEEDENGINE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	done := make(chan struct{})
	addr := make(chan string, 1)
	var logs []string
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			logs = append(logs, sc.Text())
			var line struct{ Event, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Event == "http_listening" {
				addr <- line.Addr
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("serve log:\n%s", strings.Join(logs, "\n"))
		}
	})

	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case <-done:
		t.Fatalf("serve exited before listening")
	case <-ctx.Done():
		t.Fatalf("serve did not listen: %v", ctx.Err())
	}
	for {
		resp, err := http.Get(base + "/health/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("serve not ready: %v", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
