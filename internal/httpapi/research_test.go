package httpapi_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// The OpenAPI document gives POST /api/v1/research both its successes:
// 201 with a chunk, 200 when nothing was accepted.
func TestResearchCreateStatusesInOpenAPI(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do(t, request{Path: "/openapi.json"})
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Description string         `json:"description"`
				Content     map[string]any `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &doc))
	create := doc.Paths["/api/v1/research"]["post"]
	for _, status := range []string{"200", "201"} {
		require.Contains(t, create.Responses, status)
		require.Contains(t, create.Responses[status].Content, "application/json", status)
	}
	require.Contains(t, create.Responses["200"].Description, "Nothing was accepted")
}
