package seedengine_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

var testPartition = seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}

const canonicalDataset = `{"meta":{"dataset_id":"sg-news-2026-01-28-0001","country":"SG","category":"news","date":"2026-01-28",` +
	`"discovered_at":"2026-01-28T03:12:00Z","research_methods":["search"],"queries":["mom news"],` +
	`"engine":{"name":"seedengine","version":"1.0.0"},"record_count":2,"a_extra":1,"z_extra":{"k":[1,2]}},` +
	`"records":[{"raw_url":"https://www.mom.gov.sg/newsroom?a=1&b=2","normalized_url":"https://www.mom.gov.sg/newsroom?a=1&b=2",` +
	`"normalized_domain":"mom.gov.sg","domain_id":"gov:sg:mom.gov.sg","authority":"gov","authority_rule":"suffix:gov.sg",` +
	`"source_type":"government","discovery_method":"search","confidence":0.95,"content_hints":["news"],"lang":"en"},` +
	`{"raw_url":"https://example.com/","normalized_url":"","normalized_domain":"","domain_id":"","authority":"",` +
	`"authority_rule":"","source_type":"","confidence":0}],"producer":"elsewhere"}`

func TestDatasetJSONRoundTripIsByteExact(t *testing.T) {
	t.Parallel()
	var ds seedengine.Dataset
	require.NoError(t, json.Unmarshal([]byte(canonicalDataset), &ds))
	require.Equal(t, "SG", ds.Meta.Country)
	require.Equal(t, time.Date(2026, 1, 28, 3, 12, 0, 0, time.UTC), ds.Meta.DiscoveredAt.UTC())
	require.JSONEq(t, `1`, string(ds.Meta.Extra["a_extra"]))
	require.JSONEq(t, `{"k":[1,2]}`, string(ds.Meta.Extra["z_extra"]))
	require.Len(t, ds.Records, 2)
	require.Equal(t, seedengine.AuthorityGov, ds.Records[0].Authority)
	require.JSONEq(t, `"en"`, string(ds.Records[0].Extra["lang"]))
	require.Nil(t, ds.Records[1].Extra)
	require.JSONEq(t, `"elsewhere"`, string(ds.Extra["producer"]))

	var buf bytes.Buffer
	n, err := ds.WriteTo(&buf)
	require.NoError(t, err)
	require.Equal(t, int64(buf.Len()), n)
	require.Equal(t, canonicalDataset, buf.String(), "known fields in order, extras sorted, URLs not HTML-escaped")

	b, err := ds.MarshalJSON()
	require.NoError(t, err)
	require.Equal(t, canonicalDataset, string(b))
}

func TestDatasetJSONOrderIsDeterministic(t *testing.T) {
	t.Parallel()
	rec := seedengine.DatasetRecord{RawURL: "https://a.example/", Extra: map[string]json.RawMessage{}}
	for _, k := range []string{"zz", "b", "y", "a", "c", "x"} {
		rec.Extra[k] = json.RawMessage(` { "v" : "` + k + `" } `)
	}
	// A name that is also a known field never appears twice.
	rec.Extra["raw_url"] = json.RawMessage(`"shadow"`)
	first, err := json.Marshal(rec)
	require.NoError(t, err)
	for range 20 {
		again, err := json.Marshal(rec)
		require.NoError(t, err)
		require.Equal(t, string(first), string(again))
	}
	require.Equal(t, `{"raw_url":"https://a.example/","normalized_url":"","normalized_domain":"","domain_id":"","authority":"",`+
		`"authority_rule":"","source_type":"","confidence":0,"a":{"v":"a"},"b":{"v":"b"},"c":{"v":"c"},"x":{"v":"x"},"y":{"v":"y"},"zz":{"v":"zz"}}`,
		string(first))

	rec.Extra["bad"] = json.RawMessage(`{not json`)
	_, err = json.Marshal(rec)
	require.Error(t, err)
}

func TestDatasetJSONMetaOmitsUnknownTimeAndEngine(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(seedengine.DatasetMeta{Country: "SG", Category: "news", Date: "2026-01-28", RecordCount: 1})
	require.NoError(t, err)
	require.Equal(t, `{"dataset_id":"","country":"SG","category":"news","date":"2026-01-28","research_methods":[],"queries":[],"record_count":1}`, string(b))
}

func TestDatasetJSONCaseVariantNamesAreExtra(t *testing.T) {
	t.Parallel()
	// encoding/json alone would fill RawURL from "Raw_URL" and lose the
	// original spelling.
	var rec seedengine.DatasetRecord
	require.NoError(t, json.Unmarshal([]byte(`{"raw_url":"https://a.example/","Raw_URL":"https://b.example/","Confidence":"x"}`), &rec))
	require.Equal(t, "https://a.example/", rec.RawURL)
	require.Zero(t, rec.Confidence)
	require.JSONEq(t, `"https://b.example/"`, string(rec.Extra["Raw_URL"]))
	require.JSONEq(t, `"x"`, string(rec.Extra["Confidence"]))

	// Escaped names take the slow path and still decode.
	require.NoError(t, json.Unmarshal([]byte(`{"raw\u005furl":"https://c.example/","n\u00e4me":1}`), &rec))
	require.Equal(t, "https://c.example/", rec.RawURL)
	require.JSONEq(t, `1`, string(rec.Extra["näme"]))
}

func TestDatasetJSONDecodeReplacesEveryField(t *testing.T) {
	t.Parallel()
	rec := seedengine.DatasetRecord{RawURL: "old", DomainID: "gov:sg:mom.gov.sg", Extra: map[string]json.RawMessage{"x": json.RawMessage(`1`)}}
	require.NoError(t, json.Unmarshal([]byte(`{"raw_url":"new"}`), &rec))
	require.Equal(t, seedengine.DatasetRecord{RawURL: "new"}, rec)
}

func TestDatasetJSONTypeErrorsNameTheField(t *testing.T) {
	t.Parallel()
	var rec seedengine.DatasetRecord
	err := json.Unmarshal([]byte(`{"raw_url":"https://a.example/","confidence":"high"}`), &rec)
	var te *json.UnmarshalTypeError
	require.ErrorAs(t, err, &te)
	require.Equal(t, "confidence", te.Field)

	var m seedengine.DatasetMeta
	err = json.Unmarshal([]byte(`{"discovered_at":"yesterday"}`), &m)
	require.Equal(t, "discovered_at", seedengine.ErrorField(err))
}

// datasetJSON builds a dataset document for tests; recs are raw JSON
// records.
func datasetJSON(meta string, recs ...string) string {
	return `{"meta":` + meta + `,"records":[` + strings.Join(recs, ",") + `]}`
}

func metaJSON(count int) string {
	return fmt.Sprintf(`{"country":"SG","category":"news","date":"2026-01-28","record_count":%d}`, count)
}

const goodRecord = `{"raw_url":"https://www.mom.gov.sg/","domain_id":"gov:sg:mom.gov.sg","authority":"gov","confidence":1}`

func TestValidateDataset(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in  string
		wantField string // "" with wantErr: EINVALID without a field
		wantErr   bool
		records   int
	}{
		{name: "valid", in: datasetJSON(metaJSON(2), goodRecord, `{"raw_url":"x"}`), records: 2},
		{name: "meta after records", in: `{"records":[` + goodRecord + `],"x":[1,{"y":2}],"meta":` + metaJSON(1) + "}\n\n", records: 1},
		{name: "records null", in: `{"meta":` + metaJSON(0) + `,"records":null}`, wantErr: true, wantField: "records"},
		{name: "no meta", in: `{"records":[` + goodRecord + `]}`, wantErr: true, wantField: "meta"},
		{name: "meta null", in: `{"meta":null,"records":[` + goodRecord + `]}`, wantErr: true, wantField: "meta.country"},
		{name: "lower-case country", in: datasetJSON(`{"country":"sg","category":"news","date":"2026-01-28","record_count":1}`, goodRecord), wantErr: true, wantField: "meta.country"},
		{name: "other category", in: datasetJSON(`{"country":"SG","category":"policy","date":"2026-01-28","record_count":1}`, goodRecord), wantErr: true, wantField: "meta.category"},
		{name: "other date", in: datasetJSON(`{"country":"SG","category":"news","date":"2026-01-29","record_count":1}`, goodRecord), wantErr: true, wantField: "meta.date"},
		{name: "count mismatch", in: datasetJSON(metaJSON(3), goodRecord), wantErr: true, wantField: "meta.record_count"},
		{name: "empty", in: datasetJSON(metaJSON(0)), wantErr: true, wantField: "records"},
		{name: "no raw_url", in: datasetJSON(metaJSON(2), goodRecord, `{"normalized_url":"x"}`), wantErr: true, wantField: "records[1].raw_url"},
		{name: "null record", in: datasetJSON(metaJSON(1), `null`), wantErr: true, wantField: "records[0].raw_url"},
		{name: "record not object", in: datasetJSON(metaJSON(1), `7`), wantErr: true, wantField: "records[0]"},
		{name: "raw_url not string", in: datasetJSON(metaJSON(1), `{"raw_url":5}`), wantErr: true, wantField: "records[0].raw_url"},
		{name: "bad domain_id", in: datasetJSON(metaJSON(1), `{"raw_url":"x","domain_id":"gov:xx:mom.gov.sg"}`), wantErr: true, wantField: "records[0].domain_id"},
		{name: "bad authority", in: datasetJSON(metaJSON(1), `{"raw_url":"x","authority":"king"}`), wantErr: true, wantField: "records[0].authority"},
		{name: "confidence high", in: datasetJSON(metaJSON(1), `{"raw_url":"x","confidence":1.5}`), wantErr: true, wantField: "records[0].confidence"},
		{name: "confidence negative", in: datasetJSON(metaJSON(1), `{"raw_url":"x","confidence":-0.1}`), wantErr: true, wantField: "records[0].confidence"},
		{name: "confidence string", in: datasetJSON(metaJSON(1), `{"raw_url":"x","confidence":"high"}`), wantErr: true, wantField: "records[0].confidence"},
		{name: "bad time", in: datasetJSON(`{"country":"SG","category":"news","date":"2026-01-28","discovered_at":"noon","record_count":1}`, goodRecord), wantErr: true, wantField: "meta.discovered_at"},
		{name: "count as string", in: datasetJSON(`{"country":"SG","category":"news","date":"2026-01-28","record_count":"1"}`, goodRecord), wantErr: true, wantField: "meta.record_count"},
		{name: "meta not object", in: `{"meta":[],"records":[]}`, wantErr: true, wantField: "meta"},
		{name: "records not array", in: `{"meta":` + metaJSON(1) + `,"records":{}}`, wantErr: true, wantField: "records"},
		{name: "meta twice", in: `{"meta":` + metaJSON(1) + `,"meta":` + metaJSON(1) + `,"records":[` + goodRecord + `]}`, wantErr: true, wantField: "meta"},
		{name: "records twice", in: `{"meta":` + metaJSON(1) + `,"records":[` + goodRecord + `],"records":[]}`, wantErr: true, wantField: "records"},
		{name: "syntax error in record", in: `{"meta":` + metaJSON(2) + `,"records":[` + goodRecord + `,{"raw_url":}]}`, wantErr: true, wantField: "records[1]"},
		{name: "cut off", in: `{"meta":` + metaJSON(2) + `,"records":[` + goodRecord, wantErr: true, wantField: "records"},
		{name: "trailing data", in: datasetJSON(metaJSON(1), goodRecord) + `{}`, wantErr: true},
		{name: "trailing garbage", in: datasetJSON(metaJSON(1), goodRecord) + ` x`, wantErr: true},
		{name: "array", in: `[]`, wantErr: true},
		{name: "empty body", in: ``, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			meta, n, err := seedengine.ValidateDataset(strings.NewReader(tt.in), testPartition)
			if !tt.wantErr {
				require.NoError(t, err)
				require.Equal(t, tt.records, n)
				require.Equal(t, tt.records, meta.RecordCount)
				return
			}
			require.Error(t, err)
			require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err), err.Error())
			require.Equal(t, tt.wantField, seedengine.ErrorField(err), err.Error())
			require.NotEmpty(t, seedengine.ErrorMessage(err))
			require.NotContains(t, seedengine.ErrorMessage(err), "Go value", "messages speak JSON, not Go")
		})
	}
}

func TestValidateDatasetChecksThePartition(t *testing.T) {
	t.Parallel()
	_, _, err := seedengine.ValidateDataset(strings.NewReader(datasetJSON(metaJSON(1), goodRecord)), seedengine.Partition{Country: "SG", Category: "news", Date: "2026-01-28"})
	require.Equal(t, "country", seedengine.ErrorField(err))

	intl := seedengine.Partition{Country: "intl", Category: "news", Date: "2026-01-28"}
	_, _, err = seedengine.ValidateDataset(strings.NewReader(datasetJSON(`{"country":"INTL","category":"news","date":"2026-01-28","record_count":1}`, goodRecord)), intl)
	require.NoError(t, err)
}

type failingReader struct {
	r   io.Reader
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

func TestValidateDatasetPassesReaderErrorsThrough(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection reset")
	in := &failingReader{r: strings.NewReader(`{"meta":` + metaJSON(1) + `,"records":[` + goodRecord), err: boom}
	_, _, err := seedengine.ValidateDataset(in, testPartition)
	require.ErrorIs(t, err, boom)
	require.Equal(t, seedengine.EINTERNAL, seedengine.ErrorCode(err), "a failing reader is not the client's bad JSON")
}

func TestDatasetReaderMetaFirstStopsEarly(t *testing.T) {
	t.Parallel()
	in := &failingReader{r: strings.NewReader(`{"meta":` + metaJSON(5) + `,"records":[` + goodRecord), err: errors.New("never read this far")}
	dr := seedengine.NewDatasetReader(in)
	m, ok := dr.Meta()
	require.True(t, ok)
	require.Equal(t, 5, m.RecordCount)
	require.NoError(t, dr.Err())
}

func TestDatasetReaderMetaLast(t *testing.T) {
	t.Parallel()
	dr := seedengine.NewDatasetReader(strings.NewReader(`{"records":[{"raw_url":"a"},{"raw_url":"b","x":1}],"meta":` + metaJSON(2) + `}`))
	_, ok := dr.Meta()
	require.False(t, ok, "meta is after the records")
	var urls []string
	for dr.Next() {
		urls = append(urls, dr.Record().RawURL)
	}
	require.NoError(t, dr.Err())
	require.Equal(t, []string{"a", "b"}, urls)
	m, ok := dr.Meta()
	require.True(t, ok)
	require.Equal(t, "SG", m.Country)
	require.False(t, dr.Next())
}

// genReader produces a valid dataset of n records on the fly, so a test
// can stream far more than it could afford to hold.
type genReader struct {
	n, i  int
	buf   bytes.Buffer
	state int
	peak  uint64 // highest HeapAlloc seen while reading
}

func (g *genReader) Read(p []byte) (int, error) {
	for g.buf.Len() < len(p) && g.state < 3 {
		switch g.state {
		case 0:
			g.buf.WriteString(`{"records":[`)
			g.state = 1
		case 1:
			if g.i == g.n {
				g.buf.WriteString(`],"meta":` + metaJSON(g.n) + `}`)
				g.state = 3
				break
			}
			if g.i > 0 {
				g.buf.WriteByte(',')
			}
			fmt.Fprintf(&g.buf, `{"raw_url":"https://www%d.example.gov.sg/path/to/a/page?id=%d","normalized_url":"https://www%d.example.gov.sg/path/to/a/page","normalized_domain":"example.gov.sg","domain_id":"gov:sg:example.gov.sg","authority":"gov","authority_rule":"suffix:gov.sg","source_type":"government","confidence":0.9,"content_hints":["news"],"extra":{"seen":%d}}`, g.i, g.i, g.i, g.i)
			g.i++
			if g.i%20000 == 0 {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				g.peak = max(g.peak, ms.HeapAlloc)
			}
		}
	}
	if g.buf.Len() == 0 {
		return 0, io.EOF
	}
	return g.buf.Read(p)
}

func TestValidateDatasetStreamsInConstantMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 33 MB")
	}
	// Not parallel: it measures the heap.
	const records = 100_000 // about 33 MB of JSON
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	g := &genReader{n: records}
	meta, n, err := seedengine.ValidateDataset(g, testPartition)
	require.NoError(t, err)
	require.Equal(t, records, n)
	require.Equal(t, records, meta.RecordCount)
	growth := int64(g.peak) - int64(before.HeapAlloc)
	t.Logf("heap before %d MB, peak while reading %d MB", before.HeapAlloc>>20, g.peak>>20)
	require.Less(t, growth, int64(16<<20), "reading 33 MB must not hold it")
}

func TestDatasetValidateInMemory(t *testing.T) {
	t.Parallel()
	ds := seedengine.Dataset{
		Meta:    seedengine.DatasetMeta{Country: "SG", Category: "news", Date: "2026-01-28", RecordCount: 1},
		Records: []seedengine.DatasetRecord{{RawURL: "https://a.example/", Confidence: 0.5}},
	}
	require.NoError(t, ds.Validate(testPartition))
	ds.Records[0].Confidence = 2
	require.Equal(t, "records[0].confidence", seedengine.ErrorField(ds.Validate(testPartition)))
	ds.Records[0].Confidence = 1
	ds.Meta.RecordCount = 2
	require.Equal(t, "meta.record_count", seedengine.ErrorField(ds.Validate(testPartition)))
}

func FuzzValidateDataset(f *testing.F) {
	f.Add([]byte(canonicalDataset))
	f.Add([]byte(datasetJSON(metaJSON(1), goodRecord)))
	f.Add([]byte(`{"records":[{"raw_url":"a","x":{"y":[1,"]"]}}],"meta":{}}`))
	f.Add([]byte(`{"meta":{"Country":"SG","n\u00e4me":null},"records":[null,1,"x",{"raw_url":"\\\""}]}`))
	f.Add([]byte(`{"meta":{"record_count":1e400}}`))
	f.Add([]byte(`{"a":`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, _ = seedengine.ValidateDataset(bytes.NewReader(data), testPartition)

		dr := seedengine.NewDatasetReader(bytes.NewReader(data))
		dr.Meta()
		for dr.Next() {
			_ = dr.Record()
		}
		_ = dr.Err()

		// What decodes re-encodes, and re-encoding is stable.
		var ds seedengine.Dataset
		if json.Unmarshal(data, &ds) != nil {
			return
		}
		first, err := ds.MarshalJSON()
		require.NoError(t, err)
		var again seedengine.Dataset
		require.NoError(t, json.Unmarshal(first, &again), string(first))
		second, err := again.MarshalJSON()
		require.NoError(t, err)
		require.Equal(t, string(first), string(second))
	})
}

// BenchmarkDatasetReader reads a 20 MB dataset record by record, the work
// of every consumer of raw files (validation, backfill, seed orchestration).
func BenchmarkDatasetReader(b *testing.B) {
	var buf bytes.Buffer
	_, err := io.Copy(&buf, &genReader{n: 66_000}) // about 20 MB
	require.NoError(b, err)
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		dr := seedengine.NewDatasetReader(bytes.NewReader(data))
		n := 0
		for dr.Next() {
			n++
		}
		require.NoError(b, dr.Err())
		require.Equal(b, 66_000, n)
	}
}

// referenceRecord decodes a record the plain way: known names exactly,
// each into its field with encoding/json, every other member kept raw.
func referenceRecord(b []byte) (seedengine.DatasetRecord, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return seedengine.DatasetRecord{}, err
	}
	var r seedengine.DatasetRecord
	fields := map[string]any{
		"raw_url": &r.RawURL, "normalized_url": &r.NormalizedURL, "normalized_domain": &r.NormalizedDomain,
		"domain_id": &r.DomainID, "authority": &r.Authority, "authority_rule": &r.AuthorityRule,
		"source_type": &r.SourceType, "discovery_method": &r.DiscoveryMethod, "confidence": &r.Confidence,
		"content_hints": &r.ContentHints,
	}
	for k, v := range m {
		if p, ok := fields[k]; ok {
			if err := json.Unmarshal(v, p); err != nil {
				return seedengine.DatasetRecord{}, err
			}
			continue
		}
		if r.Extra == nil {
			r.Extra = map[string]json.RawMessage{}
		}
		r.Extra[k] = v
	}
	return r, nil
}

// FuzzDecodeRecord holds the record decoder, with its fast path for the
// common shape, to the plain reference decoding.
func FuzzDecodeRecord(f *testing.F) {
	f.Add([]byte(goodRecord))
	f.Add([]byte(`{"raw_url":"https://a.example/?q=é","confidence":1e-3,"content_hints":["a","b"],"x":{"y":[1,"]",{"z":null}]},"X":true}`))
	f.Add([]byte(`{"raw_url":"a\"b","content_hints":[],"confidence":-0.0}`))
	f.Add([]byte(` { "raw_url" : "a" , "raw_url" : "b" , "n" : 01 } `))
	f.Add([]byte(`{"confidence":1.}`))
	f.Add([]byte(`{"raw_url":"\xff"}`))
	f.Add([]byte(`{"content_hints":null,"authority":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := referenceRecord(data)
		var got seedengine.DatasetRecord
		gotErr := json.Unmarshal(data, &got)
		if wantErr != nil || gotErr != nil {
			require.Equal(t, wantErr != nil, gotErr != nil, "reference error %v, decoder error %v", wantErr, gotErr)
			return
		}
		require.Equal(t, want, got)
	})
}

// hugeReader streams head, then size bytes of fill, then tail, sampling
// the heap as it goes and counting what was read.
type hugeReader struct {
	head, tail string
	fill       byte
	size       int
	off        int
	read       int
	peak       uint64
}

func (h *hugeReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		switch {
		case h.off < len(h.head):
			c := copy(p[n:], h.head[h.off:])
			n += c
			h.off += c
		case h.off < len(h.head)+h.size:
			c := min(len(p)-n, len(h.head)+h.size-h.off)
			for i := range c {
				p[n+i] = h.fill
			}
			n += c
			h.off += c
		case h.off < len(h.head)+h.size+len(h.tail):
			c := copy(p[n:], h.tail[h.off-len(h.head)-h.size:])
			n += c
			h.off += c
		default:
			h.read += n
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		}
	}
	h.read += n
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h.peak = max(h.peak, ms.HeapAlloc)
	return n, nil
}

func TestDatasetReaderBoundsEachValue(t *testing.T) {
	// Not parallel: it measures the heap.
	const huge = 200 << 20
	for _, tc := range []struct {
		name, head, tail, field, msg string
	}{
		{"unknown member", `{"meta":` + metaJSON(1) + `,"blob":"`, `","records":[` + goodRecord + `]}`, "blob", "blob: member larger than 1 MiB"},
		{"record", `{"meta":` + metaJSON(2) + `,"records":[` + goodRecord + `,{"raw_url":"`, `"}]}`, "records[1]", "records[1]: record larger than 1 MiB"},
		{"meta", `{"meta":{"dataset_id":"`, `"},"records":[]}`, "meta", "meta: object larger than 1 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			in := &hugeReader{head: tc.head, tail: tc.tail, fill: 'x', size: huge}
			_, _, err := seedengine.ValidateDataset(in, testPartition)
			require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err), "%v", err)
			require.Equal(t, tc.field, seedengine.ErrorField(err))
			require.Equal(t, tc.msg, seedengine.ErrorMessage(err))
			require.Less(t, in.read, 4<<20, "reading stops soon after the limit")
			require.NotZero(t, in.peak)
			growth := int64(in.peak) - int64(before.HeapAlloc)
			require.Less(t, growth, int64(16<<20), "a %d MB member must not be held", huge>>20)
		})
	}
}

func TestDatasetReaderAcceptsValuesUpToTheLimit(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", seedengine.MaxDatasetValue-200)
	in := `{"meta":` + metaJSON(2) + `,"notes":"` + big + `","records":[` + goodRecord + `,{"raw_url":"https://a.example/","x_note":"` + big + `"}]}`
	_, n, err := seedengine.ValidateDataset(strings.NewReader(in), testPartition)
	require.NoError(t, err)
	require.Equal(t, 2, n)
}

// raw_url has one limit everywhere URLs come in: research caps it at
// MaxRawURLBytes, and so does a saved dataset.
func TestDatasetRawURLLimit(t *testing.T) {
	t.Parallel()
	url := func(n int) string { return "https://a.example/" + strings.Repeat("x", n-len("https://a.example/")) }
	for n, ok := range map[int]bool{seedengine.MaxRawURLBytes: true, seedengine.MaxRawURLBytes + 1: false, 1_000_000: false} {
		in := `{"meta":` + metaJSON(1) + `,"records":[{"raw_url":"` + url(n) + `"}]}`
		_, _, err := seedengine.ValidateDataset(strings.NewReader(in), testPartition)
		if ok {
			require.NoError(t, err, n)
			continue
		}
		require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err), n)
		require.Equal(t, "records[0].raw_url", seedengine.ErrorField(err), n)
	}
}
