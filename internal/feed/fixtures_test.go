package feed_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/feed"
)

// expected is the part of gofeed's expected parse result the tests use. RSS
// files list "items", Atom files "entries".
type expected struct {
	Title   string            `json:"title"`
	Items   []json.RawMessage `json:"items"`
	Entries []json.RawMessage `json:"entries"`
}

func TestParseGofeedFixtures(t *testing.T) {
	t.Parallel()
	var names []string
	for _, dir := range []string{"rss", "atom"} {
		err := filepath.WalkDir(filepath.Join("testdata", dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || d.Name() == "LICENSE-NOTE.md" || !strings.HasSuffix(p, ".xml") {
				return nil
			}
			names = append(names, p)
			return nil
		})
		require.NoError(t, err)
	}
	require.Len(t, names, 206)
	for _, p := range names {
		t.Run(strings.TrimPrefix(p, "testdata"+string(filepath.Separator)), func(t *testing.T) {
			t.Parallel()
			body, err := os.ReadFile(p)
			require.NoError(t, err)
			raw, err := os.ReadFile(strings.TrimSuffix(p, ".xml") + ".json")
			require.NoError(t, err)
			var want expected
			require.NoError(t, json.Unmarshal(raw, &want))

			info, err := feed.Parse(body)
			require.NoError(t, err)
			require.Equal(t, len(want.Items)+len(want.Entries), info.Items)
			require.Equal(t, strings.TrimSpace(want.Title), info.Title)
			wantFormat := feed.FormatRSS
			if strings.HasPrefix(filepath.Base(p), "atom") || filepath.Base(filepath.Dir(p)) == "atom" {
				wantFormat = feed.FormatAtom
			}
			require.Equal(t, wantFormat, info.Format)
		})
	}
}
