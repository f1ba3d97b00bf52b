package httpapi_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// The OpenAPI document describes the liveness routes: the request's
// bounds and example, the results' verdict filter.
func TestLivenessInOpenAPI(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do(t, request{Path: "/openapi.json"})
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name   string         `json:"name"`
				Schema map[string]any `json:"schema"`
			} `json:"parameters"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]map[string]any `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &doc))
	var verdict map[string]any
	for _, p := range doc.Paths["/api/v1/queues/batch/{batchId}/results"]["get"].Parameters {
		if p.Name == "verdict" {
			verdict = p.Schema
		}
	}
	require.Equal(t, []any{"alive", "blocked", "dead", "parked"}, verdict["enum"])
	domains := doc.Components.Schemas["LivenessQueueRequest"].Properties["domains"]
	require.EqualValues(t, 10000, domains["maxItems"])
	require.EqualValues(t, 1, domains["minItems"])
	require.Equal(t, []any{"mom.gov.sg", "https://www.who.int/news", "gov:sg:mti.gov.sg"}, domains["examples"].([]any)[0])
}
