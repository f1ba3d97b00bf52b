package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

func TestContractBatchAccepted(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newSeedEnv(t, db)
		ids := []string{"gov:sg:mom.gov.sg", "GOV:SG:mti.gov.sg", "edu:sg:nus.edu.sg", "gov:sg:mom.gov.sg", "com:sg:example.com"}
		r := s.call(t, http.MethodPost, "/api/v1/queues/contract", s.writer,
			map[string]any{"country": "SG", "category": "news", "domainIds": ids, "chunkSize": 2})
		require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.body))
		loc := r.Header.Get("Location")
		require.True(t, strings.HasPrefix(loc, "/api/v1/queues/batch/"), loc)
		id := strings.TrimPrefix(loc, "/api/v1/queues/batch/")

		var b seedengine.Batch
		require.NoError(t, json.Unmarshal(r.body, &b))
		require.Equal(t, id, b.ID)
		require.Equal(t, seedengine.BatchContract, b.Kind)
		require.Equal(t, seedengine.BatchQueued, b.Status)
		require.Equal(t, "sg", b.Country)
		require.Equal(t, "news", b.Category)
		require.Equal(t, 2, b.ChunkSize)
		require.Equal(t, seedengine.ChunkCounts{Total: 2}, b.Chunks)
		require.Equal(t, seedengine.ItemCounts{Total: 4}, b.Items, "the repeat is dropped")
		var params struct {
			Date       string `json:"date"`
			Duplicates int    `json:"duplicates"`
		}
		require.NoError(t, json.Unmarshal(b.Params, &params), string(b.Params))
		require.Equal(t, time.Now().UTC().Format(seedengine.DateLayout), params.Date)
		require.Equal(t, 1, params.Duplicates)

		stored, err := s.batches.FindBatchByID(t.Context(), id)
		require.NoError(t, err)
		require.Equal(t, b.Items, stored.Items)
		var inputs []string
		for i := range 2 {
			c, err := s.batches.FindBatchChunk(t.Context(), id, i)
			require.NoError(t, err)
			inputs = append(inputs, fmt.Sprintf("%d:%s", c.Items, compactJSON(t, c.Input)))
		}
		require.Equal(t, []string{
			`2:{"domain_ids":["gov:sg:mom.gov.sg","gov:sg:mti.gov.sg"]}`,
			`2:{"domain_ids":["edu:sg:nus.edu.sg","com:sg:example.com"]}`,
		}, inputs, "ids lower case, in request order")

		// The default chunk size is 20.
		r = s.call(t, http.MethodPost, "/api/v1/queues/contract", s.writer,
			map[string]any{"country": "intl", "category": "policy", "domainIds": []string{"ngo:intl:who.int"}})
		require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.body))
		require.NoError(t, json.Unmarshal(r.body, &b))
		require.Equal(t, 20, b.ChunkSize)
	})
}

func compactJSON(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(raw, &v))
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestContractBatchValidation(t *testing.T) {
	t.Parallel()
	s := newSeedEnv(t, sqlstoretest.OpenSQLite(t))
	many := make([]string, 1001)
	for i := range many {
		many[i] = fmt.Sprintf("com:sg:example%d.com", i)
	}
	body := func(kv ...any) map[string]any {
		m := map[string]any{"country": "sg", "category": "news", "domainIds": []string{"gov:sg:mom.gov.sg"}}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(m, kv[i].(string))
				continue
			}
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name string
		body map[string]any
		loc  string
	}{
		{"domainIds missing", body("domainIds", nil), "body.domainIds"},
		{"domainIds empty", body("domainIds", []string{}), "body.domainIds"},
		{"more than 1,000", body("domainIds", many), "body.domainIds"},
		{"not a domain_id", body("domainIds", []string{"gov:sg:mom.gov.sg", "mom.gov.sg"}), "body.domainIds[1]"},
		{"bad authority", body("domainIds", []string{"boss:sg:mom.gov.sg"}), "body.domainIds[0]"},
		{"other country", body("domainIds", []string{"gov:sg:mom.gov.sg", "gov:sg:mti.gov.sg", "gov:jp:mhlw.go.jp"}), "body.domainIds[2]"},
		{"chunkSize 0", body("chunkSize", 0), "body.chunkSize"},
		{"chunkSize 101", body("chunkSize", 101), "body.chunkSize"},
		{"unknown country", body("country", "zz"), "body.country"},
		{"country missing", body("country", nil), "body.country"},
		{"category missing", body("category", nil), "body.category"},
		{"category bad", body("category", "News"), "body.category"},
		{"unknown field", body("force", true), "body.force"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := s.call(t, http.MethodPost, "/api/v1/queues/contract", s.writer, tt.body).problem(t, http.StatusUnprocessableEntity, "invalid")
			require.Contains(t, locations(p), tt.loc, "%+v", p)
		})
	}
	s.call(t, http.MethodPost, "/api/v1/queues/contract", s.reader, body()).problem(t, http.StatusForbidden, "forbidden")
	_, total, err := s.batches.FindBatches(t.Context(), seedengine.BatchFilter{})
	require.NoError(t, err)
	require.Zero(t, total, "no invalid request creates a batch")
}
