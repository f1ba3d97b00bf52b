package httpapi

import (
	"context"

	"github.com/danielgtaylor/huma/v2"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/pages"
)

// Pages: the pages of harvested items kept as WARC (internal/pages),
// item by item and as a partition's files.

type itemPageInput struct {
	ItemID int64 `path:"itemId" minimum:"1" doc:"The item's id (GET /api/v1/items)." example:"1042"`
}

type itemPageOutput struct{ Body *seedengine.Page }

func (s *Server) handleItemPage(ctx context.Context, in *itemPageInput) (*itemPageOutput, error) {
	if s.deps.Pages == nil {
		return nil, unavailable("pages")
	}
	p, err := s.deps.Pages.FindPage(ctx, in.ItemID)
	if err != nil {
		return nil, err
	}
	return &itemPageOutput{Body: p}, nil
}

type itemPageContentOutput struct {
	ContentType string `header:"Content-Type"`
	PageStatus  int    `header:"X-Page-Status" doc:"The HTTP status the page was served with."`
	WARCFile    string `header:"X-WARC-File" doc:"The object key of the WARC file the record is in."`
	WARCOffset  int64  `header:"X-WARC-Offset" doc:"The record's offset in that file."`
	Body        func(huma.Context)
}

// handleItemPageContent reads an item's stored page back from its WARC
// file by offset (pages.ReadStored): the response's payload decoded of
// its content coding, with the Content-Type of its own response.
func (s *Server) handleItemPageContent(ctx context.Context, in *itemPageInput) (*itemPageContentOutput, error) {
	if s.deps.Pages == nil || s.deps.Ranges == nil {
		return nil, unavailable("pages")
	}
	p, err := s.deps.Pages.FindPage(ctx, in.ItemID)
	if err != nil {
		return nil, err
	}
	sp, err := pages.ReadStored(ctx, s.deps.Ranges, s.deps.Pages, p)
	if err != nil {
		// The fetch decoded these very bytes: a record that no longer
		// reads is the service's fault (a 500).
		return nil, err
	}
	return &itemPageContentOutput{ContentType: sp.ContentType, PageStatus: p.Status, WARCFile: sp.From.WARCFile, WARCOffset: sp.From.Offset,
		Body: func(c huma.Context) { _, _ = c.BodyWriter().Write(sp.Body) }}, nil
}

// registerItemPageContent documents the body: whatever the page was.
func (s *Server) registerItemPageContent(api huma.API, op huma.Operation) {
	op.Responses = map[string]*huma.Response{"200": {
		Description: "The page's payload as stored in its WARC record, with the Content-Type it was served with.",
		Content:     map[string]*huma.MediaType{"application/octet-stream": {Schema: &huma.Schema{Type: "string", Description: "The page's bytes."}}},
	}}
	huma.Register(api, op, s.handleItemPageContent)
}

type warcFileList struct {
	seedengine.Partition
	Items []seedengine.WARCFile `json:"items" doc:"The partition's stored WARC files, oldest first, each with its CDXJ index's key."`
	Total int                   `json:"total"`
	Bytes int64                 `json:"bytes"`
}

type warcFileListOutput struct{ Body warcFileList }

func (s *Server) handleWARCFiles(ctx context.Context, in *itemPartitionInput) (*warcFileListOutput, error) {
	if s.deps.Pages == nil {
		return nil, unavailable("pages")
	}
	p, files, err := partitionFiles(ctx, in.Country, in.Category, in.Date, s.deps.Pages.FindWARCFiles)
	if err != nil {
		return nil, err
	}
	out := warcFileList{Partition: p, Items: files, Total: len(files)}
	for _, f := range files {
		out.Bytes += f.Bytes
	}
	return &warcFileListOutput{Body: out}, nil
}

type warcFileInput struct {
	Country  string `path:"country" maxLength:"8" doc:"ISO 3166-1 alpha-2 code or intl, any case." example:"sg"`
	Category string `path:"category" maxLength:"40" doc:"Category slug." example:"news"`
	Date     string `path:"date" maxLength:"10" doc:"The UTC day the items were first seen, YYYY-MM-DD." example:"2026-11-27"`
	File     string `path:"file" maxLength:"200" doc:"The WARC file's name, as GET …/warc lists it." example:"seedengine-host-20261127T101500Z-00001.warc.gz"`
}

// handleWARCFileGet sends a stored WARC file as it is: gzip members and
// all, with no Content-Encoding (the .warc.gz is the file, not a coding
// of it), always an attachment. Its records hold publishers' pages,
// which a browser must never render in the API's origin (outside.go).
func (s *Server) handleWARCFileGet(ctx context.Context, in *warcFileInput) (*fileOutput, error) {
	if s.deps.Pages == nil || s.deps.Objects == nil {
		return nil, unavailable("pages")
	}
	_, files, err := partitionFiles(ctx, in.Country, in.Category, in.Date, s.deps.Pages.FindWARCFiles)
	if err != nil {
		return nil, err
	}
	// The list holds stored files only: every one is written.
	f, err := writtenFile(files, "WARC file", func(f *seedengine.WARCFile) bool { return f.Name == in.File })
	if err != nil {
		return nil, err
	}
	return s.sendFile(ctx, storedFile{key: f.Key, contentType: warcType, written: f.StoredAt, filename: f.Name, what: "WARC file"})
}

// warcType is the media type of a WARC file (registered with IANA for
// ISO 28500).
const warcType = "application/warc"

// warcFileContent documents a WARC file's bytes.
func warcFileContent(huma.API) map[string]*huma.MediaType {
	return map[string]*huma.MediaType{warcType: {Schema: &huma.Schema{Type: huma.TypeString,
		Description: "The WARC/1.1 file as stored: a gzip member per record (.warc.gz), not decoded."}}}
}
