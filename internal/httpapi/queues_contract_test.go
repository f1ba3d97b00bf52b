package httpapi_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/httpapi"
	"github.com/seedengine/seedengine/internal/httpapi/httpapitest"
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
		require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
		loc := r.Header.Get("Location")
		require.True(t, strings.HasPrefix(loc, "/api/v1/queues/batch/"), loc)
		id := strings.TrimPrefix(loc, "/api/v1/queues/batch/")

		var b seedengine.Batch
		require.NoError(t, json.Unmarshal(r.Body, &b))
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
		require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
		require.NoError(t, json.Unmarshal(r.Body, &b))
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
	s, _ := newContractEnv(t, sqlstoretest.OpenSQLite(t))
	many := make([]string, 1001)
	for i := range many {
		many[i] = fmt.Sprintf("com:sg:example%d.com", i)
	}
	body := func(kv ...any) map[string]any {
		return httpapitest.With(map[string]any{"country": "sg", "category": "news", "domainIds": []string{"gov:sg:mom.gov.sg"}}, kv...)
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
		{"other country, after a repeat", body("domainIds", []string{"gov:sg:mom.gov.sg", "gov:sg:mom.gov.sg", "gov:jp:mhlw.go.jp"}), "body.domainIds[2]"},
		{"domainIds and date", body("date", "2026-01-28"), "body.date"},
		{"authority without date", body("authority", "gov"), "body.authority"},
		{"partition without research", body("domainIds", nil, "date", "2026-01-28"), "body.date"},
		{"date not a calendar date", body("domainIds", nil, "date", "2026-02-30"), "body.date"},
		{"date malformed", body("domainIds", nil, "date", "28.01.2026"), "body.date"},
		{"unknown authority", body("domainIds", nil, "date", "2026-01-28", "authority", "king"), "body.authority"},
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
			p := s.call(t, http.MethodPost, "/api/v1/queues/contract", s.writer, tt.body).Problem(t, http.StatusUnprocessableEntity, "invalid")
			require.Contains(t, locations(p), tt.loc, "%+v", p)
		})
	}
	s.call(t, http.MethodPost, "/api/v1/queues/contract", s.reader, body()).Problem(t, http.StatusForbidden, "forbidden")
	_, total, err := s.batches.FindBatches(t.Context(), seedengine.BatchFilter{})
	require.NoError(t, err)
	require.Zero(t, total, "no invalid request creates a batch")
}

// newContractEnv is newSeedEnv with the domain registry, which contract
// batches read for research partitions.
func newContractEnv(t *testing.T, db *sqlstore.DB) (*seedEnv, *sqlstore.DomainService) {
	t.Helper()
	domains := sqlstore.NewDomainService(db)
	s := &seedEnv{seeds: sqlstore.NewSeedService(db), batches: sqlstore.NewBatchService(db)}
	s.env = setup(t, func(_ *httpapi.Config, d *httpapi.Deps) {
		d.Seeds = s.seeds
		d.Batches = sqlstoretest.RowsOnlyBatches(s.batches)
		d.Domains = domains
	})
	s.admin = s.keys.mustCreate(t, "ops-alice", seedengine.ScopeAdmin)
	s.writer = s.keys.mustCreate(t, "bot-bob", seedengine.ScopeWrite)
	s.reader = s.keys.mustCreate(t, "dash", seedengine.ScopeRead)
	return s, domains
}

var (
	glNews = seedengine.Partition{Country: "gl", Category: "news", Date: "2026-01-28"}
	dkNews = seedengine.Partition{Country: "dk", Category: "news", Date: "2026-01-28"}
)

// registerGreenland registers what research for gl/news found, as research
// classifies it, and Danish research that found dr.dk.
func registerGreenland(t *testing.T, domains seedengine.DomainService) {
	t.Helper()
	sight := func(ids ...string) []seedengine.DomainSighting {
		out := make([]seedengine.DomainSighting, len(ids))
		for i, id := range ids {
			out[i] = seedengine.DomainSighting{ID: id, AuthorityRule: "test"}
		}
		return out
	}
	require.NoError(t, domains.RegisterDomains(t.Context(), glNews, time.Time{},
		sight("other:gl:sermitsiaq.ag", "media:gb:reuters.com", "other:gl:knr.gl", "other:gl:naalakkersuisut.gl")))
	require.NoError(t, domains.RegisterDomains(t.Context(), dkNews, time.Time{}, sight("media:dk:dr.dk", "media:gb:reuters.com")))
}

// contractParams is what a contract batch's params say.
type contractParams struct {
	Date           string `json:"date"`
	Duplicates     int    `json:"duplicates"`
	OtherCountries int    `json:"other_countries"`
	Partition      *struct {
		Date      string `json:"date"`
		Authority string `json:"authority"`
		Domains   int    `json:"domains"`
	} `json:"partition"`
}

func (s *seedEnv) acceptContract(t *testing.T, body map[string]any) (seedengine.Batch, contractParams) {
	t.Helper()
	r := s.call(t, http.MethodPost, "/api/v1/queues/contract", s.writer, body)
	require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
	var b seedengine.Batch
	require.NoError(t, json.Unmarshal(r.Body, &b))
	var params contractParams
	require.NoError(t, json.Unmarshal(b.Params, &params), string(b.Params))
	return b, params
}

func (s *seedEnv) chunkInputs(t *testing.T, b seedengine.Batch) []string {
	t.Helper()
	var inputs []string
	for i := range b.Chunks.Total {
		c, err := s.batches.FindBatchChunk(t.Context(), b.ID, i)
		require.NoError(t, err)
		inputs = append(inputs, compactJSON(t, c.Input))
	}
	return inputs
}

// TestContractBatchOtherCountriesFromResearch: research for gl files
// reuters.com as media:gb:reuters.com (a rule gives its country), and a
// contract batch for gl takes it because the registry has it in a gl
// partition. An id of another country that research for gl never found is
// still refused.
func TestContractBatchOtherCountriesFromResearch(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s, domains := newContractEnv(t, db)
		registerGreenland(t, domains)

		b, params := s.acceptContract(t, map[string]any{"country": "GL", "category": "news",
			"domainIds": []string{"other:gl:sermitsiaq.ag", "MEDIA:GB:reuters.com", "media:gb:reuters.com", "other:gl:unknown.gl"}})
		require.Equal(t, "gl", b.Country)
		require.Equal(t, seedengine.ItemCounts{Total: 3}, b.Items)
		require.Equal(t, 1, params.OtherCountries)
		require.Equal(t, 1, params.Duplicates)
		require.Nil(t, params.Partition)
		require.Equal(t, []string{`{"domain_ids":["other:gl:sermitsiaq.ag","media:gb:reuters.com","other:gl:unknown.gl"]}`}, s.chunkInputs(t, b),
			"an id of the batch's country needs no research")

		for _, tt := range []struct {
			name, country string
			ids           []string
			loc           string
		}{
			{"registered for dk only", "gl", []string{"media:gb:reuters.com", "media:dk:dr.dk"}, "body.domainIds[1]"},
			{"not registered", "gl", []string{"media:gb:bbc.co.uk"}, "body.domainIds[0]"},
			{"registered for gl, batch for dk", "dk", []string{"other:gl:sermitsiaq.ag"}, "body.domainIds[0]"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				p := s.call(t, http.MethodPost, "/api/v1/queues/contract", s.writer,
					map[string]any{"country": tt.country, "category": "news", "domainIds": tt.ids}).Problem(t, http.StatusUnprocessableEntity, "invalid")
				require.Equal(t, []string{tt.loc}, locations(p), "%+v", p)
				require.Contains(t, p.Detail, "no research for the batch's country registered it")
				require.NotContains(t, p.Detail, tt.ids[len(tt.ids)-1], "the id sent is not echoed")
			})
		}
	})
}

// TestContractBatchForResearchPartition: {country, category, date} without
// domainIds contracts every domain research registered in the partition,
// in domain_id order, optionally of one authority.
func TestContractBatchForResearchPartition(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s, domains := newContractEnv(t, db)
		registerGreenland(t, domains)

		b, params := s.acceptContract(t, map[string]any{"country": "gl", "category": "news", "date": "2026-01-28", "chunkSize": 2})
		require.Equal(t, seedengine.BatchContract, b.Kind)
		require.Equal(t, "gl", b.Country)
		require.Equal(t, "news", b.Category)
		require.Equal(t, seedengine.ItemCounts{Total: 4}, b.Items)
		require.Equal(t, seedengine.ChunkCounts{Total: 2}, b.Chunks)
		require.NotNil(t, params.Partition)
		require.Equal(t, "2026-01-28", params.Partition.Date)
		require.Empty(t, params.Partition.Authority)
		require.Equal(t, 4, params.Partition.Domains)
		require.Equal(t, time.Now().UTC().Format(seedengine.DateLayout), params.Date, "the day the batch was accepted")
		require.Equal(t, []string{
			`{"domain_ids":["media:gb:reuters.com","other:gl:knr.gl"]}`,
			`{"domain_ids":["other:gl:naalakkersuisut.gl","other:gl:sermitsiaq.ag"]}`,
		}, s.chunkInputs(t, b))

		b, params = s.acceptContract(t, map[string]any{"country": "gl", "category": "news", "date": "2026-01-28", "authority": "media"})
		require.Equal(t, seedengine.ItemCounts{Total: 1}, b.Items)
		require.Equal(t, "media", params.Partition.Authority)
		require.Equal(t, 1, params.Partition.Domains)
		require.Equal(t, []string{`{"domain_ids":["media:gb:reuters.com"]}`}, s.chunkInputs(t, b))

		for _, tt := range []struct {
			name string
			body map[string]any
			loc  string
		}{
			{"no domain of the authority", map[string]any{"date": "2026-01-28", "authority": "gov"}, "body.authority"},
			{"another date", map[string]any{"date": "2026-01-29"}, "body.date"},
			{"another category", map[string]any{"date": "2026-01-28", "category": "policy"}, "body.date"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				body := map[string]any{"country": "gl", "category": "news"}
				maps.Copy(body, tt.body)
				p := s.call(t, http.MethodPost, "/api/v1/queues/contract", s.writer, body).Problem(t, http.StatusUnprocessableEntity, "invalid")
				require.Equal(t, []string{tt.loc}, locations(p), "%+v", p)
			})
		}
	})
}

// TestContractBatchPartitionCap: a partition of more than 10,000 domains
// is refused, naming date and suggesting authority; one authority of it at
// a time is taken, up to exactly 10,000.
func TestContractBatchPartitionCap(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s, domains := newContractEnv(t, db)
		ds := make([]seedengine.DomainSighting, 10001)
		for i := range 10000 {
			ds[i] = seedengine.DomainSighting{ID: fmt.Sprintf("com:gl:d%05d.example", i)}
		}
		ds[10000] = seedengine.DomainSighting{ID: "gov:gl:naalakkersuisut.gl"}
		require.NoError(t, domains.RegisterDomains(t.Context(), glNews, time.Time{}, ds))

		p := s.call(t, http.MethodPost, "/api/v1/queues/contract", s.writer,
			map[string]any{"country": "gl", "category": "news", "date": "2026-01-28"}).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{"body.date"}, locations(p))
		require.Contains(t, p.Detail, "10001 domains")
		require.Contains(t, p.Detail, "authority")

		b, params := s.acceptContract(t, map[string]any{"country": "gl", "category": "news", "date": "2026-01-28", "authority": "com", "chunkSize": 100})
		require.Equal(t, seedengine.ItemCounts{Total: 10000}, b.Items)
		require.Equal(t, seedengine.ChunkCounts{Total: 100}, b.Chunks)
		require.Equal(t, 10000, params.Partition.Domains)
		inputs := s.chunkInputs(t, b)
		require.Contains(t, inputs[0], `"com:gl:d00000.example"`)
		require.Contains(t, inputs[99], `"com:gl:d09999.example"]`, "every page read, in order")
	})
}
