package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// extract prints one page's article as JSON, the body in "text" and the
// fields under the API's names; input that is not HTML exits with 2.
func TestExtractCommand(t *testing.T) {
	t.Parallel()
	page := filepath.Join("..", "..", "internal", "article", "testdata", "jsonld-teaser.html")
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"extract", "--url", "https://riverside-daily.co.uk/news/2026/11/flood-barriers", page},
		func(string) string { return "" }, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	var got map[string]any
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &got), stdout.String())
	require.Equal(t, "Flood barriers hold as river peaks", got["title"])
	require.Equal(t, []any{"Ana Lima", "Tom Berg"}, got["authors"])
	require.Equal(t, "2026-11-28T08:15:00Z", got["published_at"])
	require.True(t, strings.HasPrefix(got["text"].(string), "The barriers went up on Friday."))
	require.Equal(t, "json_ld", got["methods"].(map[string]any)["authors"])

	// Standard input, and a file that is not HTML.
	notHTML := filepath.Join(t.TempDir(), "feed.xml")
	require.NoError(t, os.WriteFile(notHTML, []byte(`<?xml version="1.0"?><rss version="2.0"><channel/></rss>`), 0o644))
	err = run(t.Context(), []string{"extract", notHTML}, func(string) string { return "" }, &bytes.Buffer{}, &bytes.Buffer{})
	require.ErrorContains(t, err, "not an HTML page")
	require.Equal(t, 2, exitCode(err))
	err = run(t.Context(), []string{"extract"}, func(string) string { return "" }, &bytes.Buffer{}, &bytes.Buffer{})
	require.Equal(t, 2, exitCode(err))
}
