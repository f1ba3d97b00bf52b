package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// openAPIDoc is the part of an OpenAPI document these tests read.
type openAPIDoc struct {
	OpenAPI string `json:"openapi"`
	Info    struct {
		Contact struct{ Name, URL string }
		License struct{ Name string }
	}
	Servers []struct{ URL string }
	Tags    []struct{ Name, Description string }
	Paths   map[string]map[string]struct {
		OperationID string                 `json:"operationId"`
		Description string                 `json:"description"`
		Tags        []string               `json:"tags"`
		Security    *[]map[string][]string `json:"security"`
		Responses   map[string]struct {
			Content map[string]any `json:"content"`
		} `json:"responses"`
	}
}

func getOpenAPI(t *testing.T, path string) (openAPIDoc, []byte) {
	t.Helper()
	e := setup(t)
	r := e.do(t, request{Path: path})
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.Equal(t, "application/openapi+json", r.Header.Get("Content-Type"))
	var doc openAPIDoc
	require.NoError(t, json.Unmarshal(r.Body, &doc))
	return doc, r.Body
}

// TestOpenAPIForLinters pins what Redocly's recommended rules and
// Spectral's oas ruleset ask for, so that a change breaking them fails
// here and not only in .ci/run's lint (internal/httpapi/openapitest).
func TestOpenAPIForLinters(t *testing.T) {
	t.Parallel()
	doc, _ := getOpenAPI(t, "/openapi.json")
	require.Equal(t, []struct{ URL string }{{"/"}}, doc.Servers)
	require.NotEmpty(t, doc.Info.Contact.URL)
	require.NotEmpty(t, doc.Info.License.Name)

	declared := map[string]bool{}
	for _, tag := range doc.Tags {
		require.NotEmpty(t, tag.Description, tag.Name)
		declared[tag.Name] = true
	}
	used := map[string]bool{}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			where := method + " " + path
			require.NotEmpty(t, op.Description, where)
			require.Len(t, op.Tags, 1, where)
			require.True(t, declared[op.Tags[0]], "%s: tag %s is not declared", where, op.Tags[0])
			used[op.Tags[0]] = true
			require.NotNil(t, op.Security, "%s: no security; open routes say security: []", where)
			if len(*op.Security) == 0 {
				require.False(t, strings.HasPrefix(path, "/api/"), "%s: API routes need a key", where)
				continue
			}
			var has4xx bool
			for code, resp := range op.Responses {
				if code[0] == '4' {
					has4xx = true
					require.Contains(t, resp.Content, "application/problem+json", "%s %s", where, code)
				}
			}
			require.True(t, has4xx, "%s: no 4XX response", where)
		}
	}
	require.Len(t, used, len(declared), "every declared tag is used")

	promote := doc.Paths["/api/v1/seeds/promote"]["post"]
	require.Contains(t, promote.Responses, "404")
	require.Contains(t, promote.Responses, "409")
	require.Contains(t, promote.Description, "not a draft")
	require.Empty(t, *doc.Paths["/health"]["get"].Security)
}

// TestOpenAPI30 checks the downgraded document: the same operations, and
// none of the 3.1-only forms 3.0 readers reject.
func TestOpenAPI30(t *testing.T) {
	t.Parallel()
	v31, _ := getOpenAPI(t, "/openapi.json")
	v30, body := getOpenAPI(t, "/openapi-3.0.json")
	require.Equal(t, "3.0.3", v30.OpenAPI)
	require.Equal(t, len(v31.Paths), len(v30.Paths))
	for path, ops := range v31.Paths {
		for method, op := range ops {
			require.Equal(t, op.OperationID, v30.Paths[path][method].OperationID, "%s %s", method, path)
		}
	}
	require.Equal(t, v31.Tags, v30.Tags)

	var raw any
	require.NoError(t, json.Unmarshal(body, &raw))
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["$ref"]; ok {
				require.Len(t, v, 1, "%s: $ref with siblings", at)
			}
			if ty, ok := v["type"]; ok && !strings.HasSuffix(at, "/properties") {
				_, isString := ty.(string)
				require.True(t, isString, "%s: type %v", at, ty)
			}
			for k, child := range v {
				walk(child, at+"/"+k)
			}
		case []any:
			for _, child := range v {
				walk(child, at+"[]")
			}
		}
	}
	walk(raw, "")
}
