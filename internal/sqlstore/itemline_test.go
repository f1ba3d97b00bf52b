package sqlstore

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

// An item's line in its file is json.Encoder's encoding of the item, HTML
// left unescaped, whether its stored JSON is the encoding itemEncoder
// writes (the id put in) or json.Marshal's of rows stored before (<, >
// and & escaped; decoded and encoded again).
func TestItemLine(t *testing.T) {
	t.Parallel()
	published := time.Date(2026, 11, 1, 8, 0, 0, 0, time.FixedZone("SGT", 8*3600))
	items := []seedengine.Item{
		{URL: "https://example.com/a?x=1&y=<2>", NormalizedURL: "https://example.com/a?x=1&y=<2>", Title: "Tom & Jerry <live>",
			SeedID: "media:sg:example.com::news", DomainID: "media:sg:example.com", Country: "sg", Category: "news",
			Source:      seedengine.ItemSource{EntryURL: "https://example.com/feed", FetchType: seedengine.FetchRSS, CheckID: 7},
			FirstSeenAt: time.Date(2026, 11, 1, 12, 0, 0, 123456789, time.UTC)},
		{URL: "https://example.com/b", NormalizedURL: "https://example.com/b", Title: "Line\u2028break, tab\t, quote \" and \\u0026 typed",
			PublishedAt: &published, Language: "zh", Sections: []string{"世界", "A&B"}, Recovered: true,
			SeedID: "media:sg:example.com::news", DomainID: "media:sg:example.com", Country: "sg", Category: "news",
			Source:      seedengine.ItemSource{EntryURL: "https://example.com/feed", FetchType: seedengine.FetchRSS, Document: "https://example.com/feed?paged=2"},
			FirstSeenAt: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)},
		{URL: "https://example.com/c", NormalizedURL: "https://example.com/c", Page: &seedengine.ItemPage{State: seedengine.PageQueued},
			SeedID: "media:sg:example.com::news", FirstSeenAt: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)},
	}
	enc := newItemEncoder()
	for i, it := range items {
		id := int64(1000 + i)
		var want bytes.Buffer
		e := json.NewEncoder(&want)
		e.SetEscapeHTML(false)
		filed := it
		filed.ID, filed.Page = id, nil
		require.NoError(t, e.Encode(filed))
		wantLine := bytes.TrimSuffix(want.Bytes(), []byte("\n"))

		stored, err := enc.encode(it)
		require.NoError(t, err)
		legacy := it
		legacy.ID, legacy.Page = 0, nil
		marshalled, err := json.Marshal(legacy)
		require.NoError(t, err)
		for k, body := range []string{stored, string(marshalled)} {
			v, err := itemLine(id, body)
			require.NoError(t, err)
			if k == 0 && i != 1 {
				require.IsType(t, json.RawMessage{}, v, "item %d: its stored JSON with the id put in", i)
			}
			var got bytes.Buffer
			if line, ok := v.(json.RawMessage); ok {
				got.Write(line)
			} else {
				e := json.NewEncoder(&got)
				e.SetEscapeHTML(false)
				require.NoError(t, e.Encode(v))
				got.Truncate(got.Len() - 1)
			}
			require.Equal(t, string(wantLine), got.String(), "item %d from %s", i, body)
		}
		back, err := decodeItem(id, stored)
		require.NoError(t, err)
		require.Equal(t, filed.URL, back.URL)
		require.Equal(t, id, back.ID)
	}
}
