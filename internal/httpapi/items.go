package httpapi

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/layout"
)

// Items: what the harvest recorded (internal/harvest), followed by
// cursor, exported as NDJSON, and stored as files per partition.

// itemFilterInput is the filter of the item routes. huma reads
// parameters of named fields only, so each route's input repeats the
// fields and hands them over with filter().
type itemFilterInput struct {
	Country, Category, Date, SeedID, DomainID string
	Since                                     int64
}

// filter validates the filters, naming the parameter of a bad one.
func (in *itemFilterInput) filter() (seedengine.ItemFilter, error) {
	f := seedengine.ItemFilter{Country: seedengine.NormalizeCountry(in.Country), Category: in.Category, Date: in.Date, Since: in.Since}
	check := func(name string, err error) error {
		if err == nil {
			return nil
		}
		return &locatedError{loc: "query", err: seedengine.FieldErrorf(name, "%s", seedengine.ErrorMessage(err))}
	}
	if f.Country != "" {
		if err := check("country", seedengine.ValidateCountry(f.Country)); err != nil {
			return f, err
		}
	}
	if f.Category != "" {
		if err := check("category", seedengine.ValidateCategory(f.Category)); err != nil {
			return f, err
		}
	}
	if f.Date != "" {
		if err := check("date", seedengine.ValidateDate(f.Date)); err != nil {
			return f, err
		}
	}
	if in.SeedID != "" {
		id, err := parseSeedID(in.SeedID, "query", "seed_id")
		if err != nil {
			return f, err
		}
		f.SeedID = id
	}
	if in.DomainID != "" {
		if _, _, _, err := seedengine.ParseDomainID(strings.ToLower(in.DomainID)); err != nil {
			return f, check("domain_id", err)
		}
		f.DomainID = strings.ToLower(in.DomainID)
	}
	return f, nil
}

type itemListInput struct {
	Country  string `query:"country" maxLength:"8" doc:"Only this country (any case)." example:"sg"`
	Category string `query:"category" maxLength:"40" doc:"Only this category." example:"news"`
	Date     string `query:"date" maxLength:"10" doc:"Only items first seen on this UTC day, YYYY-MM-DD."`
	SeedID   string `query:"seed_id" maxLength:"400" doc:"Only this seed's items."`
	DomainID string `query:"domain_id" maxLength:"300" doc:"Only this domain's items."`
	Since    int64  `query:"since" minimum:"0" default:"0" doc:"Only items with an id above this: the cursor. Start at 0, then pass next_since."`
	Limit    int    `query:"limit" default:"100" minimum:"1" maximum:"1000" doc:"Page size."`
}

func (in *itemListInput) filter() (seedengine.ItemFilter, error) {
	return (&itemFilterInput{in.Country, in.Category, in.Date, in.SeedID, in.DomainID, in.Since}).filter()
}

type itemList struct {
	Items []seedengine.Item `json:"items"`
	Limit int               `json:"limit"`
	Since int64             `json:"since"`
	// NextSince is the cursor of the next page: the last item's id, or
	// since when the page is empty. Polling with it gets every item once,
	// in first-seen order, with no gaps.
	NextSince int64 `json:"next_since" doc:"The cursor of the next page: the last item's id, or since when the page is empty. Polling with it gets every item once, in id order, with no gaps."`
}

type itemListOutput struct{ Body itemList }

func (s *Server) handleItemList(ctx context.Context, in *itemListInput) (*itemListOutput, error) {
	if s.deps.Items == nil {
		return nil, unavailable("items")
	}
	f, err := in.filter()
	if err != nil {
		return nil, err
	}
	f.Limit = in.Limit
	items, err := s.deps.Items.FindItems(ctx, f)
	if err != nil {
		return nil, err
	}
	out := itemList{Items: items, Limit: in.Limit, Since: in.Since, NextSince: in.Since}
	if len(items) > 0 {
		out.NextSince = items[len(items)-1].ID
	}
	return &itemListOutput{Body: out}, nil
}

type itemExportInput struct {
	Country        string `query:"country" maxLength:"8" doc:"Only this country (any case)." example:"sg"`
	Category       string `query:"category" maxLength:"40" doc:"Only this category." example:"news"`
	Date           string `query:"date" maxLength:"10" doc:"Only items first seen on this UTC day, YYYY-MM-DD."`
	SeedID         string `query:"seed_id" maxLength:"400" doc:"Only this seed's items."`
	DomainID       string `query:"domain_id" maxLength:"300" doc:"Only this domain's items."`
	Since          int64  `query:"since" minimum:"0" default:"0" doc:"Only items with an id above this: the cursor. Start at 0, then pass next_since."`
	Until          int64  `query:"until" minimum:"0" default:"0" doc:"Only items with an id up to this one; 0: every item there is when the export starts."`
	Gzip           bool   `query:"gzip" default:"false" doc:"Compress the stream with gzip (also when the request accepts gzip)."`
	AcceptEncoding string `header:"Accept-Encoding"`
}

func (in *itemExportInput) filter() (seedengine.ItemFilter, error) {
	return (&itemFilterInput{in.Country, in.Category, in.Date, in.SeedID, in.DomainID, in.Since}).filter()
}

// exportPage is how many items an export reads from the store at a time.
const exportPage = seedengine.MaxItemsPage

type itemExportOutput struct {
	ContentType     string `header:"Content-Type"`
	ContentEncoding string `header:"Content-Encoding"`
	Vary            string `header:"Vary"`
	Body            func(huma.Context)
}

func (s *Server) handleItemExport(ctx context.Context, in *itemExportInput) (*itemExportOutput, error) {
	if s.deps.Items == nil {
		return nil, unavailable("items")
	}
	f, err := in.filter()
	if err != nil {
		return nil, err
	}
	if in.Until > 0 && in.Until <= in.Since {
		return nil, &locatedError{loc: "query", err: seedengine.FieldErrorf("until", "until must be above since")}
	}
	f.Until, f.Limit = in.Until, exportPage
	// The first page is read before the status is sent, so a store that
	// is down answers 503 rather than an empty 200.
	first, err := s.deps.Items.FindItems(ctx, f)
	if err != nil {
		return nil, err
	}
	out := &itemExportOutput{ContentType: "application/x-ndjson", Vary: "Accept-Encoding"}
	zip := in.Gzip || acceptsGzip(in.AcceptEncoding)
	if zip {
		out.ContentEncoding = "gzip"
	}
	out.Body = s.streamed(ctx, "stream items", zip, ndjsonPages(first, exportPage, func(last *seedengine.Item) ([]seedengine.Item, error) {
		f.Since = last.ID
		return s.deps.Items.FindItems(ctx, f)
	}))
	return out, nil
}

// ndjsonPages writes page after page of records as NDJSON: first, then
// what next returns after the last record of a full page (size records),
// until a page comes short.
func ndjsonPages[T any](first []T, size int, next func(last *T) ([]T, error)) func(*bufio.Writer) error {
	return func(w *bufio.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		page := first
		for {
			for i := range page {
				if err := enc.Encode(&page[i]); err != nil {
					return err
				}
			}
			if len(page) < size {
				return nil
			}
			var err error
			if page, err = next(&page[len(page)-1]); err != nil {
				return err
			}
		}
	}
}

// streamed is a 200 body that write fills through a 64 KiB buffer,
// gzip-compressed when zip (none to a HEAD). A write that fails after the
// status is gone aborts the answer (abortStream).
func (s *Server) streamed(ctx context.Context, what string, zip bool, write func(*bufio.Writer) error) func(huma.Context) {
	return func(hctx huma.Context) {
		hctx.SetStatus(http.StatusOK)
		if hctx.Method() == http.MethodHead {
			return
		}
		var w io.Writer = hctx.BodyWriter()
		var gz *gzip.Writer
		if zip {
			gz = gzip.NewWriter(w)
			w = gz
		}
		bw := bufio.NewWriterSize(w, 64<<10)
		err := write(bw)
		if err == nil {
			err = bw.Flush()
		}
		if err == nil && gz != nil {
			err = gz.Close()
		}
		if err != nil {
			s.abortStream(ctx, what, err)
		}
	}
}

// abortStream ends a streamed answer whose status line is gone: the
// connection is cut, so the client sees a cut-off body rather than a
// short one that looks complete.
func (s *Server) abortStream(ctx context.Context, what string, err error) {
	if ctx.Err() == nil {
		stateFrom(ctx).logError(what, err)
	}
	panic(http.ErrAbortHandler)
}

// streamObject is a body that sends an object as stored (none to a
// HEAD), closing rc, and aborts the answer when the copy fails.
func (s *Server) streamObject(ctx context.Context, rc io.ReadCloser, what string) func(huma.Context) {
	return func(hctx huma.Context) {
		defer func() { _ = rc.Close() }()
		hctx.SetStatus(http.StatusOK)
		if hctx.Method() == http.MethodHead {
			return
		}
		if _, err := io.Copy(hctx.BodyWriter(), rc); err != nil {
			s.abortStream(ctx, what, err)
		}
	}
}

// streamedRoute registers h, documenting its streamed answer, which huma
// cannot infer from a callback: desc, in the media types content gives
// (built from the API's schemas).
func streamedRoute[I, O any](desc string, content func(huma.API) map[string]*huma.MediaType, h func(context.Context, *I) (*O, error)) func(huma.API, huma.Operation) {
	return func(api huma.API, op huma.Operation) {
		op.Responses = map[string]*huma.Response{"200": {Description: desc, Content: content(api)}}
		huma.Register(api, op, h)
	}
}

// itemsNDJSON registers h, documenting its streamed answer: items as
// NDJSON, as desc says.
func itemsNDJSON[I, O any](desc string, h func(context.Context, *I) (*O, error)) func(huma.API, huma.Operation) {
	return streamedRoute(desc, ndjsonOf[seedengine.Item], h)
}

// ndjsonOf is the content of an NDJSON answer of T records.
func ndjsonOf[T any](api huma.API) map[string]*huma.MediaType {
	return map[string]*huma.MediaType{"application/x-ndjson": {
		Schema: api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[T](), true, ""),
	}}
}

// acceptsGzip reports whether an Accept-Encoding header takes gzip.
func acceptsGzip(h string) bool {
	for part := range strings.SplitSeq(h, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
		if !ok {
			return true
		}
		v, err := strconv.ParseFloat(q, 64)
		return err == nil && v > 0
	}
	return false
}

type itemPartitionListInput struct {
	Country  string `query:"country" maxLength:"8" doc:"Only this country (any case)." example:"sg"`
	Category string `query:"category" maxLength:"40" doc:"Only this category." example:"news"`
	DateFrom string `query:"date_from" maxLength:"10" doc:"Only dates on or after this one, YYYY-MM-DD."`
	DateTo   string `query:"date_to" maxLength:"10" doc:"Only dates on or before this one, YYYY-MM-DD."`
	Limit    int    `query:"limit" default:"50" minimum:"1" maximum:"1000" doc:"Page size."`
	Offset   int    `query:"offset" default:"0" minimum:"0" doc:"Partitions to skip."`
}

type itemPartitionList struct {
	Items  []seedengine.ItemPartition `json:"items"`
	Total  int                        `json:"total" doc:"Partitions matching the filters, regardless of limit and offset."`
	Limit  int                        `json:"limit"`
	Offset int                        `json:"offset"`
}

type itemPartitionListOutput struct{ Body itemPartitionList }

func (s *Server) handleItemPartitions(ctx context.Context, in *itemPartitionListInput) (*itemPartitionListOutput, error) {
	if s.deps.Items == nil {
		return nil, unavailable("items")
	}
	f := seedengine.ItemPartitionFilter{Country: seedengine.NormalizeCountry(in.Country), Category: in.Category,
		DateFrom: in.DateFrom, DateTo: in.DateTo, Limit: in.Limit, Offset: in.Offset}
	for _, c := range []struct {
		name, v string
		check   func(string) error
	}{
		{"country", f.Country, seedengine.ValidateCountry},
		{"category", f.Category, seedengine.ValidateCategory},
		{"date_from", f.DateFrom, seedengine.ValidateDate},
		{"date_to", f.DateTo, seedengine.ValidateDate},
	} {
		if c.v == "" {
			continue
		}
		if err := c.check(c.v); err != nil {
			return nil, &locatedError{loc: "query", err: seedengine.FieldErrorf(c.name, "%s", seedengine.ErrorMessage(err))}
		}
	}
	items, total, err := s.deps.Items.FindItemPartitions(ctx, f)
	if err != nil {
		return nil, err
	}
	return &itemPartitionListOutput{Body: itemPartitionList{Items: items, Total: total, Limit: in.Limit, Offset: in.Offset}}, nil
}

type itemPartitionInput struct {
	Country  string `path:"country" maxLength:"8" doc:"ISO 3166-1 alpha-2 code or intl, any case." example:"sg"`
	Category string `path:"category" maxLength:"40" doc:"Category slug." example:"news"`
	Date     string `path:"date" maxLength:"10" doc:"The UTC day the items were first seen, YYYY-MM-DD." example:"2026-11-27"`
}

type itemFileList struct {
	seedengine.Partition
	Items []seedengine.ItemFile `json:"items"`
}

type itemFileListOutput struct{ Body itemFileList }

func (s *Server) handleItemFiles(ctx context.Context, in *itemPartitionInput) (*itemFileListOutput, error) {
	if s.deps.Items == nil {
		return nil, unavailable("items")
	}
	p, files, err := partitionFiles(ctx, in.Country, in.Category, in.Date, s.deps.Items.FindItemFiles)
	if err != nil {
		return nil, err
	}
	for i := range files {
		files[i].Key, _ = layout.ItemFileKey(p, files[i].File)
	}
	return &itemFileListOutput{Body: itemFileList{Partition: p, Items: files}}, nil
}

type itemFileInput struct {
	Country  string `path:"country" maxLength:"8" doc:"ISO 3166-1 alpha-2 code or intl, any case." example:"sg"`
	Category string `path:"category" maxLength:"40" doc:"Category slug." example:"news"`
	Date     string `path:"date" maxLength:"10" doc:"The UTC day the items were first seen, YYYY-MM-DD." example:"2026-11-27"`
	File     string `path:"file" maxLength:"32" doc:"items_0001, items_0001.jsonl or the file number." example:"items_0001"`
}

func (s *Server) handleItemFileGet(ctx context.Context, in *itemFileInput) (*fileOutput, error) {
	if s.deps.Items == nil || s.deps.Objects == nil {
		return nil, unavailable("items")
	}
	p, err := pathPartition(in.Country, in.Category, in.Date)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(in.File, ".jsonl")
	n, err := strconv.Atoi(name)
	if err != nil {
		if n, err = layout.ParseItemFileName(name); err != nil {
			return nil, inPath(err)
		}
	} else if n < 1 {
		return nil, inPath(seedengine.FieldErrorf("file", "file must be a file name like items_0001 or its number"))
	}
	files, err := s.deps.Items.FindItemFiles(ctx, p)
	if err != nil {
		return nil, err
	}
	found, err := writtenFile(files, "item file", func(f *seedengine.ItemFile) bool { return f.File == n && f.WrittenAt != nil })
	if err != nil {
		return nil, err
	}
	key, err := layout.ItemFileKey(p, n)
	if err != nil {
		return nil, inPath(err)
	}
	return s.sendFile(ctx, storedFile{key: key, contentType: "application/x-ndjson", written: *found.WrittenAt, what: "item file"})
}

// partitionFiles lists with find the files of the partition named by
// the path parameters, once they are valid (422 naming the bad one).
func partitionFiles[F any](ctx context.Context, country, category, date string,
	find func(context.Context, seedengine.Partition) ([]F, error)) (seedengine.Partition, []F, error) {
	p, err := pathPartition(country, category, date)
	if err != nil {
		return p, nil, err
	}
	files, err := find(ctx, p)
	return p, files, err
}

// writtenFile is the file of a partition's index that match finds; match
// takes only a file the index says is written, as only those are served
// (one being written is not there yet, whatever the store holds). A 404
// naming the file parameter when there is none.
func writtenFile[F any](files []F, what string, match func(*F) bool) (*F, error) {
	for i := range files {
		if match(&files[i]) {
			return &files[i], nil
		}
	}
	return nil, inPath(&seedengine.Error{Code: seedengine.ENOTFOUND, Field: "file", Message: "no such " + what + " in this partition"})
}

// storedFile is a partition's file to send exactly as stored.
type storedFile struct {
	key, contentType string
	// written is when the index says the file was stored; zero: the
	// object's own time, where the store keeps one.
	written time.Time
	// filename, when set, makes the file an attachment saved under this
	// name: bytes a browser must never open in the API's origin.
	filename string
	what     string // names the file in logs
}

// fileOutput is a file sent as stored. Body is a callback, so huma
// streams it rather than encoding it.
type fileOutput struct {
	ContentType        string `header:"Content-Type"`
	ContentLength      int64  `header:"Content-Length"`
	LastModified       string `header:"Last-Modified"`
	ContentDisposition string `header:"Content-Disposition" doc:"Only on a file a browser must save rather than open (Parquet, WARC): attachment, with the file's name."`
	Body               func(huma.Context)
}

// sendFile opens f's object and streams it, with its length and time.
func (s *Server) sendFile(ctx context.Context, f storedFile) (*fileOutput, error) {
	rc, size, err := s.deps.Objects.NewReader(ctx, f.key)
	if err != nil {
		return nil, err
	}
	out := &fileOutput{ContentType: f.contentType, ContentLength: size}
	if f.written.IsZero() {
		if o, ok := rc.(interface{ ModTime() time.Time }); ok {
			f.written = o.ModTime()
		}
	}
	if !f.written.IsZero() {
		out.LastModified = f.written.UTC().Format(http.TimeFormat)
	}
	if f.filename != "" {
		out.ContentDisposition = mime.FormatMediaType("attachment", map[string]string{"filename": f.filename})
	}
	out.Body = s.streamObject(ctx, rc, "stream "+f.what)
	return out, nil
}
