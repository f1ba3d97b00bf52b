package article_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/article"
	"github.com/seedengine/seedengine/internal/pages"
	"github.com/seedengine/seedengine/internal/warc"
)

// fakePages serves pages by item and originals by payload digest.
type fakePages struct {
	mu        sync.Mutex
	pages     map[int64]*seedengine.Page
	originals map[string]*seedengine.Page
	findErr   error // FindPage's error for every item
	origErr   error // FindOriginal's error
	found     []int64
	digests   []string
}

func (f *fakePages) FindPage(_ context.Context, itemID int64) (*seedengine.Page, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.found = append(f.found, itemID)
	if f.findErr != nil {
		return nil, f.findErr
	}
	p, ok := f.pages[itemID]
	if !ok {
		return nil, seedengine.Errorf(seedengine.ENOTFOUND, "item %d has no page", itemID)
	}
	c := *p
	return &c, nil
}

func (f *fakePages) FindOriginal(_ context.Context, digest string) (*seedengine.Page, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.digests = append(f.digests, digest)
	if f.origErr != nil {
		return nil, f.origErr
	}
	p, ok := f.originals[digest]
	if !ok {
		return nil, seedengine.Errorf(seedengine.ENOTFOUND, "no stored page has this payload")
	}
	c := *p
	return &c, nil
}

// recorded is one RecordArticle call.
type recorded struct {
	article seedengine.Article
	copies  seedengine.CopyKey
}

// fakeArticles records articles, one per item, as the SQL store does:
// HasArticle is true once an item's is recorded.
type fakeArticles struct {
	mu       sync.Mutex
	records  []recorded
	has      map[int64]bool
	hasErr   error
	recErr   error
	hasCalls int
}

func (f *fakeArticles) HasArticle(_ context.Context, itemID int64) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hasCalls++
	return f.has[itemID], f.hasErr
}

func (f *fakeArticles) RecordArticle(_ context.Context, a *seedengine.Article, copies seedengine.CopyKey) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.recErr != nil {
		return false, f.recErr
	}
	if f.has[a.ItemID] {
		return false, nil
	}
	if f.has == nil {
		f.has = map[int64]bool{}
	}
	f.has[a.ItemID] = true
	a.ID = int64(len(f.records) + 1)
	f.records = append(f.records, recorded{*a, copies})
	return true, nil
}

// fakeRanges serves byte ranges of WARC files held in memory, as an
// object store does; err fails every read, and bodyErr fails it once
// part of the range is read.
type fakeRanges struct {
	mu      sync.Mutex
	files   map[string][]byte
	err     error
	bodyErr error
	reads   []string // "key@offset+length"
}

func (f *fakeRanges) NewRangeReader(_ context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, fmt.Sprintf("%s@%d+%d", key, offset, length))
	if f.err != nil {
		return nil, f.err
	}
	b, ok := f.files[key]
	if !ok {
		return nil, seedengine.Errorf(seedengine.ENOTFOUND, "no object %s", key)
	}
	if offset < 0 || offset > int64(len(b)) {
		return nil, fmt.Errorf("range %d+%d outside the object's %d bytes", offset, length, len(b))
	}
	b = b[offset:min(offset+length, int64(len(b)))]
	var r io.Reader = bytes.NewReader(b)
	if f.bodyErr != nil {
		r = io.MultiReader(bytes.NewReader(b[:len(b)/2]), errReader{f.bodyErr})
	}
	return io.NopCloser(r), nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// warcFile builds one WARC file in memory.
type warcFile struct {
	t   *testing.T
	key string
	buf bytes.Buffer
	w   *warc.Writer
}

func newWARCFile(t *testing.T, key string) *warcFile {
	f := &warcFile{t: t, key: key}
	var err error
	f.w, err = warc.NewWriter(&f.buf, key, map[string]string{"software": "seedengine test"})
	require.NoError(t, err)
	return f
}

var captured = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// write archives a response of url with the given header fields and
// body (revisiting orig when set) and returns its stored page.
func (f *warcFile) write(itemID int64, url, header string, body []byte, orig *warc.Record) (*seedengine.Page, warc.Record) {
	f.t.Helper()
	resp := append([]byte("HTTP/1.1 200 OK\r\n"+header+fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))), body...)
	var rv *warc.Revisit
	if orig != nil {
		r := orig.Revisit()
		rv = &r
	}
	rec, err := f.w.Write(warc.Capture{TargetURI: url, Date: captured, IP: "192.0.2.1", Response: resp}, rv)
	require.NoError(f.t, err)
	return &seedengine.Page{
		ItemID: itemID, SeedID: "seed-news", URL: url, State: seedengine.PageStored, Status: 200, MIME: rec.MIME,
		WARCFile: f.key, Offset: rec.Offset, Length: rec.Length, PayloadDigest: rec.PayloadDigest,
		Revisit: orig != nil, Partition: seedengine.Partition{Country: "gb", Category: "news", Date: "2026-03-04"},
	}, rec
}

const htmlHeader = "Content-Type: text/html; charset=utf-8\r\n"

// newsPage is an article page of more than MinWords words.
func newsPage(title string) []byte {
	return []byte(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>` + title + ` | Riverside Daily</title>
<meta property="og:title" content="` + title + `"><meta property="og:site_name" content="Riverside Daily"></head>
<body><nav><a href="/">Home</a> <a href="/local">Local</a></nav>
<article><h1>` + title + `</h1>
<p>The council voted on Tuesday to close the old bridge to cars from March, after engineers found cracks in two of its piers during the winter inspection.</p>
<p>"We had no choice," the mayor said at the meeting. "The bridge is more than a hundred years old and it was never built for the lorries that cross it every day."</p>
<p>Buses will cross the river by the new bridge downstream, adding about ten minutes to the journey into the town centre, the transport office said.</p>
<p>Repairs are expected to take two years and cost about four million pounds, most of it from the regional government's fund for old structures.</p>
</article><footer><p>© Riverside Daily</p></footer></body></html>`)
}

// extractor wires an Extractor to the fakes.
func extractor(p *fakePages, a *fakeArticles, r *fakeRanges) *article.Extractor {
	return article.NewExtractor(p, a, r, nil)
}

// A stored article page is read back from its record and recorded once,
// with its item's fields and its text's copy key; a second run finds it
// recorded and does nothing.
func TestExtractorRecordsStoredArticle(t *testing.T) {
	t.Parallel()
	f := newWARCFile(t, "warc/gb/news/2026-03-04/a.warc.gz")
	_, _ = f.write(6, "https://riverside-daily.co.uk/other", htmlHeader, newsPage("Another story"), nil) // an offset not 0
	p, _ := f.write(7, "https://riverside-daily.co.uk/r/123", htmlHeader, newsPage("Old bridge to close to cars"), nil)
	p.FinalURL = "https://riverside-daily.co.uk/local/2026/03/old-bridge"
	ps := &fakePages{pages: map[int64]*seedengine.Page{7: p}}
	as := &fakeArticles{}
	rs := &fakeRanges{files: map[string][]byte{f.key: f.buf.Bytes()}}
	e := extractor(ps, as, rs)

	before := time.Now()
	require.NoError(t, e.ExtractArticle(t.Context(), 7))
	after := time.Now()
	require.Len(t, as.records, 1)
	got := as.records[0]
	a := got.article
	require.Equal(t, int64(7), a.ItemID)
	require.Equal(t, "seed-news", a.SeedID)
	require.Equal(t, "gb", a.Country)
	require.Equal(t, "news", a.Category)
	require.Equal(t, "2026-03-04", a.Date)
	require.Equal(t, p.FinalURL, a.URL, "the URL that answered, not the one asked for")
	require.Equal(t, "Old bridge to close to cars", a.Title)
	require.Equal(t, "Riverside Daily", a.SiteName)
	require.True(t, strings.HasPrefix(a.Text, "The council voted on Tuesday"), a.Text)
	require.Contains(t, a.Text, "regional government's fund for old structures.")
	require.NotContains(t, a.Text, "Home")
	require.Empty(t, a.NotArticle)
	require.Greater(t, a.WordCount, article.MinWords)
	require.Equal(t, "en", a.Language)
	require.NotEmpty(t, a.Methods["text"])
	require.Zero(t, a.DuplicateOf)

	want := article.CopyKeyOf(a.Text)
	require.Len(t, got.copies.Signature, 4*article.MinHashes)
	require.Equal(t, want.Signature, got.copies.Signature)
	require.Equal(t, want.Bands, got.copies.Bands)
	require.True(t, got.copies.Same(got.copies.Signature, got.copies.Signature), "a text is its own copy")
	other := article.CopyKeyOf("A different story altogether, about the harbour and its ships, told in other words.")
	require.False(t, got.copies.Same(got.copies.Signature, other.Signature), "another text")

	require.False(t, a.ExtractedAt.IsZero())
	require.Equal(t, time.UTC, a.ExtractedAt.Location())
	require.Zero(t, a.ExtractedAt.Nanosecond()%1000, "to the microsecond, as the database keeps it")
	require.False(t, a.ExtractedAt.Before(before.Truncate(time.Microsecond)))
	require.False(t, a.ExtractedAt.After(after))

	require.Equal(t, []string{fmt.Sprintf("%s@%d+%d", f.key, p.Offset, p.Length)}, rs.reads, "the page's record, not the other")
	require.NotZero(t, p.Offset)

	// Again: recorded already, nothing read, nothing recorded.
	require.NoError(t, e.ExtractArticle(t.Context(), 7))
	require.Len(t, as.records, 1)
	require.Len(t, rs.reads, 1)
	require.Equal(t, []int64{7}, ps.found, "the page is not even looked up")
	require.Equal(t, 2, as.hasCalls)
}

// A page whose response came with Content-Encoding: gzip is stored so,
// and decoded before extraction. Without a FinalURL the URL is the
// page's.
func TestExtractorDecodesContentCoding(t *testing.T) {
	t.Parallel()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err := zw.Write(newsPage("Old bridge to close to cars"))
	require.NoError(t, err)
	require.NoError(t, zw.Close())

	f := newWARCFile(t, "a.warc.gz")
	p, rec := f.write(8, "https://riverside-daily.co.uk/local/old-bridge", htmlHeader+"Content-Encoding: gzip\r\nVary: Accept-Encoding\r\n", gz.Bytes(), nil)
	digest, err := warc.PayloadDigest(append([]byte("HTTP/1.1 200 OK\r\n\r\n"), gz.Bytes()...))
	require.NoError(t, err)
	require.Equal(t, digest, rec.PayloadDigest, "the record keeps the body as sent, gzipped")

	ps := &fakePages{pages: map[int64]*seedengine.Page{8: p}}
	as := &fakeArticles{}
	e := extractor(ps, as, &fakeRanges{files: map[string][]byte{f.key: f.buf.Bytes()}})
	require.NoError(t, e.ExtractArticle(t.Context(), 8))
	require.Len(t, as.records, 1)
	a := as.records[0].article
	require.Equal(t, p.URL, a.URL)
	require.Equal(t, "Old bridge to close to cars", a.Title)
	require.True(t, strings.HasPrefix(a.Text, "The council voted on Tuesday"), a.Text)
	require.Empty(t, a.NotArticle)
	require.Equal(t, article.CopyKeyOf(a.Text).Signature, as.records[0].copies.Signature)

	// The same page stored without content coding gives the same
	// article.
	g := newWARCFile(t, "b.warc.gz")
	plain, _ := g.write(9, p.URL, htmlHeader, newsPage("Old bridge to close to cars"), nil)
	ps2 := &fakePages{pages: map[int64]*seedengine.Page{9: plain}}
	as2 := &fakeArticles{}
	require.NoError(t, extractor(ps2, as2, &fakeRanges{files: map[string][]byte{g.key: g.buf.Bytes()}}).ExtractArticle(t.Context(), 9))
	require.Len(t, as2.records, 1)
	require.Equal(t, a.Text, as2.records[0].article.Text)
	require.Equal(t, as.records[0].copies.Signature, as2.records[0].copies.Signature)
}

// A revisit's record holds headers only: the payload is read from the
// record of the original FindOriginal returns, in its own file.
func TestExtractorRevisitReadsOriginal(t *testing.T) {
	t.Parallel()
	body := newsPage("Old bridge to close to cars")
	first := newWARCFile(t, "first.warc.gz")
	orig, origRec := first.write(3, "https://riverside-daily.co.uk/local/old-bridge", htmlHeader, body, nil)
	later := newWARCFile(t, "later.warc.gz")
	_, _ = later.write(10, "https://riverside-daily.co.uk/", htmlHeader, newsPage("Front page"), nil)
	rv, rvRec := later.write(11, "https://riverside-daily.co.uk/local/old-bridge?utm_source=feed", htmlHeader, body, &origRec)
	require.Equal(t, "revisit", rvRec.Type)
	require.True(t, rv.Revisit)
	require.Equal(t, orig.PayloadDigest, rv.PayloadDigest)

	ps := &fakePages{pages: map[int64]*seedengine.Page{11: rv}, originals: map[string]*seedengine.Page{orig.PayloadDigest: orig}}
	as := &fakeArticles{}
	rs := &fakeRanges{files: map[string][]byte{first.key: first.buf.Bytes(), later.key: later.buf.Bytes()}}
	require.NoError(t, extractor(ps, as, rs).ExtractArticle(t.Context(), 11))

	require.Equal(t, []string{orig.PayloadDigest}, ps.digests)
	require.Equal(t, []string{
		fmt.Sprintf("%s@%d+%d", later.key, rv.Offset, rv.Length),
		fmt.Sprintf("%s@%d+%d", first.key, orig.Offset, orig.Length),
	}, rs.reads, "the revisit's record, then the original's")
	require.Len(t, as.records, 1)
	a := as.records[0].article
	require.Equal(t, int64(11), a.ItemID, "the revisit's item")
	require.Equal(t, rv.URL, a.URL, "the revisit's URL")
	require.Equal(t, "Old bridge to close to cars", a.Title)
	require.True(t, strings.HasPrefix(a.Text, "The council voted on Tuesday"), a.Text)
	require.Empty(t, a.NotArticle)
	require.NotEmpty(t, as.records[0].copies.Signature)

	// The original cannot be looked up: the job is tried again.
	ps.origErr = errors.New("database is closed")
	as2 := &fakeArticles{}
	err := extractor(ps, as2, rs).ExtractArticle(t.Context(), 11)
	require.ErrorIs(t, err, ps.origErr)
	require.Empty(t, as2.records)
}

// A payload that is not HTML is recorded as not an article, with no
// copy key: it is never grouped with copies.
func TestExtractorNotHTML(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ header, body string }{
		"pdf":           {"Content-Type: application/pdf\r\n", "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n"},
		"json":          {"Content-Type: application/json\r\n", `{"title": "Old bridge to close", "body": "<p>The council voted on Tuesday.</p>"}`},
		"pdf as html":   {htmlHeader, "%PDF-1.4\n%\xc7\xec\x8f\xa2\n5 0 obj\n<</Length 6 0 R>>\nstream\nx\x9c\x00\x01\nendstream\n"},
		"no type image": {"", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newWARCFile(t, "a.warc.gz")
			p, _ := f.write(20, "https://riverside-daily.co.uk/files/report", c.header, []byte(c.body), nil)
			as := &fakeArticles{}
			e := extractor(&fakePages{pages: map[int64]*seedengine.Page{20: p}}, as, &fakeRanges{files: map[string][]byte{f.key: f.buf.Bytes()}})
			require.NoError(t, e.ExtractArticle(t.Context(), 20))
			require.Len(t, as.records, 1)
			got := as.records[0]
			require.Equal(t, seedengine.NotArticleHTML, got.article.NotArticle)
			require.Empty(t, got.copies.Signature)
			require.Equal(t, p.URL, got.article.URL)
			require.Empty(t, got.article.Text)
			require.Empty(t, got.article.Title)
			require.NotNil(t, got.article.Methods)
			require.Equal(t, "gb", got.article.Country)
			require.False(t, got.article.ExtractedAt.IsZero())
		})
	}
}

// A record that cannot be read back, for good, is recorded as such and
// the job succeeds: reading it again would change nothing.
func TestExtractorUnreadableRecord(t *testing.T) {
	t.Parallel()
	f := newWARCFile(t, "a.warc.gz")
	good, _ := f.write(30, "https://riverside-daily.co.uk/local/old-bridge", htmlHeader, newsPage("Old bridge to close to cars"), nil)
	badCoding, _ := f.write(31, "https://riverside-daily.co.uk/local/bad-gzip", htmlHeader+"Content-Encoding: gzip\r\n", newsPage("Not gzip at all"), nil)
	truncated := func() []byte {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		_, _ = zw.Write(newsPage("Cut short"))
		_ = zw.Close()
		return gz.Bytes()[:gz.Len()/2]
	}()
	cut, _ := f.write(32, "https://riverside-daily.co.uk/local/cut", htmlHeader+"Content-Encoding: gzip\r\n", truncated, nil)
	file := f.buf.Bytes()

	flipped := bytes.Clone(file)
	flipped[good.Offset+good.Length/2] ^= 0x10 // inside the record's gzip member

	for name, c := range map[string]struct {
		page *seedengine.Page
		file []byte
	}{
		"byte flipped in the member": {good, flipped},
		"offset one byte late":       {withRange(good, good.Offset+1, good.Length-1), file},
		"offset one byte early":      {withRange(good, good.Offset-1, good.Length+1), file},
		"length one byte short":      {withRange(good, good.Offset, good.Length-1), file},
		"another record's offset":    {withRange(good, badCoding.Offset, good.Length), file},
		"the warcinfo record":        {withRange(good, 0, good.Offset), file},
		"body not in its coding":     {badCoding, file},
		"coded body cut short":       {cut, file},
		"record over the limit":      {withRange(good, good.Offset, pages.MaxRecord+1), file},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := c.page
			as := &fakeArticles{}
			e := extractor(&fakePages{pages: map[int64]*seedengine.Page{p.ItemID: p}}, as, &fakeRanges{files: map[string][]byte{f.key: c.file}})
			require.NoError(t, e.ExtractArticle(t.Context(), p.ItemID))
			require.Len(t, as.records, 1)
			got := as.records[0]
			require.Equal(t, seedengine.NotArticleUnreadable, got.article.NotArticle)
			require.Equal(t, p.ItemID, got.article.ItemID)
			require.Equal(t, p.URL, got.article.URL)
			require.Empty(t, got.article.Text)
			require.Empty(t, got.copies.Signature)
			require.False(t, got.article.ExtractedAt.IsZero())
		})
	}

	// The same file undamaged reads fine: the cases above fail for what
	// was done to them.
	as := &fakeArticles{}
	require.NoError(t, extractor(&fakePages{pages: map[int64]*seedengine.Page{30: good}}, as,
		&fakeRanges{files: map[string][]byte{f.key: file}}).ExtractArticle(t.Context(), 30))
	require.Len(t, as.records, 1)
	require.Empty(t, as.records[0].article.NotArticle)
}

func withRange(p *seedengine.Page, offset, length int64) *seedengine.Page {
	c := *p
	c.Offset, c.Length = offset, length
	return &c
}

// The object store failing is not the record's fault: the error is
// returned, for the job to be tried again, and nothing is recorded.
func TestExtractorObjectStoreFails(t *testing.T) {
	t.Parallel()
	f := newWARCFile(t, "a.warc.gz")
	p, _ := f.write(40, "https://riverside-daily.co.uk/local/old-bridge", htmlHeader, newsPage("Old bridge to close to cars"), nil)
	storeDown := errors.New("s3: 503 Slow Down")
	for name, rs := range map[string]*fakeRanges{
		"range request fails": {files: map[string][]byte{f.key: f.buf.Bytes()}, err: storeDown},
		"read fails midway":   {files: map[string][]byte{f.key: f.buf.Bytes()}, bodyErr: storeDown},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			as := &fakeArticles{}
			err := extractor(&fakePages{pages: map[int64]*seedengine.Page{40: p}}, as, rs).ExtractArticle(t.Context(), 40)
			require.ErrorIs(t, err, storeDown)
			require.NotErrorIs(t, err, pages.ErrUnreadable)
			require.Empty(t, as.records)
			require.Len(t, rs.reads, 1)
		})
	}
	// The file missing from the store (ENOTFOUND from it) is retried
	// too, not taken for a missing page.
	as := &fakeArticles{}
	err := extractor(&fakePages{pages: map[int64]*seedengine.Page{40: p}}, as, &fakeRanges{files: map[string][]byte{}}).ExtractArticle(t.Context(), 40)
	require.Error(t, err)
	require.Empty(t, as.records)
}

// An item with no page, or a page not stored, has nothing to extract:
// no error, nothing recorded, nothing read.
func TestExtractorNothingToExtract(t *testing.T) {
	t.Parallel()
	stored := &seedengine.Page{ItemID: 50, URL: "https://riverside-daily.co.uk/a", State: seedengine.PageStored,
		WARCFile: "a.warc.gz", Offset: 0, Length: 100}
	notStored := func(id int64, s seedengine.PageState) *seedengine.Page {
		p := *stored
		p.ItemID, p.State = id, s
		return &p
	}
	ps := &fakePages{pages: map[int64]*seedengine.Page{
		51: notStored(51, seedengine.PageQueued),
		52: notStored(52, seedengine.PageFetched),
		53: notStored(53, seedengine.PageFailed),
		54: notStored(54, seedengine.PageSkipped),
	}}
	as := &fakeArticles{}
	rs := &fakeRanges{files: map[string][]byte{}}
	e := extractor(ps, as, rs)
	for _, id := range []int64{49, 51, 52, 53, 54} {
		require.NoError(t, e.ExtractArticle(t.Context(), id), "item %d", id)
	}
	require.Equal(t, []int64{49, 51, 52, 53, 54}, ps.found)
	require.Empty(t, as.records)
	require.Empty(t, rs.reads)
}

// Errors of the stores around extraction are returned, nothing recorded.
func TestExtractorStoreErrors(t *testing.T) {
	t.Parallel()
	f := newWARCFile(t, "a.warc.gz")
	p, _ := f.write(60, "https://riverside-daily.co.uk/local/old-bridge", htmlHeader, newsPage("Old bridge to close to cars"), nil)
	dbDown := errors.New("database is closed")
	files := map[string][]byte{f.key: f.buf.Bytes()}

	ps := &fakePages{pages: map[int64]*seedengine.Page{60: p}}
	as := &fakeArticles{hasErr: dbDown}
	require.ErrorIs(t, extractor(ps, as, &fakeRanges{files: files}).ExtractArticle(t.Context(), 60), dbDown)
	require.Empty(t, ps.found, "HasArticle failing: the page is not looked up")

	ps = &fakePages{pages: map[int64]*seedengine.Page{60: p}, findErr: dbDown}
	as = &fakeArticles{}
	rs := &fakeRanges{files: files}
	require.ErrorIs(t, extractor(ps, as, rs).ExtractArticle(t.Context(), 60), dbDown)
	require.Empty(t, rs.reads)
	require.Empty(t, as.records)

	ps = &fakePages{pages: map[int64]*seedengine.Page{60: p}}
	as = &fakeArticles{recErr: dbDown}
	require.ErrorIs(t, extractor(ps, as, &fakeRanges{files: files}).ExtractArticle(t.Context(), 60), dbDown)
	require.Empty(t, as.records)
}

// A page whose URL is no absolute URL is still read: its links resolve
// against nothing.
func TestExtractorRelativePageURL(t *testing.T) {
	t.Parallel()
	f := newWARCFile(t, "a.warc.gz")
	p, _ := f.write(60, "https://riverside-daily.co.uk/local/old-bridge", htmlHeader, newsPage("Old bridge to close to cars"), nil)
	p.URL, p.FinalURL = "local/old-bridge", ""
	as := &fakeArticles{}
	require.NoError(t, extractor(&fakePages{pages: map[int64]*seedengine.Page{60: p}}, as,
		&fakeRanges{files: map[string][]byte{f.key: f.buf.Bytes()}}).ExtractArticle(t.Context(), 60))
	require.Len(t, as.records, 1)
	require.Empty(t, as.records[0].article.NotArticle)
	require.Equal(t, "Old bridge to close to cars", as.records[0].article.Title)
	require.Equal(t, "local/old-bridge", as.records[0].article.URL)
}
