package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/danielgtaylor/huma/v2"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/warc"
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

// maxPageRecord bounds a record read back from a WARC file, and
// maxPageContent the page decoded of its content coding.
const (
	maxPageRecord  = 64 << 20
	maxPageContent = 256 << 20
)

type itemPageContentOutput struct {
	ContentType string `header:"Content-Type"`
	PageStatus  int    `header:"X-Page-Status" doc:"The HTTP status the page was served with."`
	WARCFile    string `header:"X-WARC-File" doc:"The object key of the WARC file the record is in."`
	WARCOffset  int64  `header:"X-WARC-Offset" doc:"The record's offset in that file."`
	Body        func(huma.Context)
}

// handleItemPageContent reads an item's stored page back from its WARC
// file by offset: the response's payload decoded of its content coding
// (the record keeps it as the server sent it), with the Content-Type of
// its own response. A revisit's record holds its own response's headers and no
// payload: the payload is its original's, the same by its digest.
func (s *Server) handleItemPageContent(ctx context.Context, in *itemPageInput) (*itemPageContentOutput, error) {
	if s.deps.Pages == nil || s.deps.Ranges == nil {
		return nil, unavailable("pages")
	}
	p, err := s.deps.Pages.FindPage(ctx, in.ItemID)
	if err != nil {
		return nil, err
	}
	if p.State != seedengine.PageStored {
		return nil, seedengine.Errorf(seedengine.ENOTFOUND, "item %d's page is %s, not stored", in.ItemID, p.State)
	}
	resp, err := s.readResponse(ctx, p)
	if err != nil {
		return nil, err
	}
	src, stored := p, resp
	if p.Revisit {
		if src, err = s.deps.Pages.FindOriginal(ctx, p.PayloadDigest); err != nil {
			return nil, err
		}
		if stored, err = s.readResponse(ctx, src); err != nil {
			return nil, err
		}
	}
	// The record keeps the body as sent; the page is its content. The
	// original's coding is the one its bytes have.
	body, err := stored.Decoded(maxPageContent)
	if err != nil {
		// The fetch decoded these very bytes: a record that no longer
		// decodes is the service's fault.
		return nil, fmt.Errorf("item %d's stored page: %w", in.ItemID, err)
	}
	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		ct = "application/octet-stream"
	}
	return &itemPageContentOutput{ContentType: ct, PageStatus: p.Status, WARCFile: src.WARCFile, WARCOffset: src.Offset,
		Body: func(c huma.Context) { _, _ = c.BodyWriter().Write(body) }}, nil
}

// readResponse reads the HTTP response of a page's record back from its
// WARC file.
func (s *Server) readResponse(ctx context.Context, p *seedengine.Page) (warc.HTTPResponse, error) {
	if p.Length > maxPageRecord {
		return warc.HTTPResponse{}, seedengine.Errorf(seedengine.ETOOLARGE, "the page's record is larger than %d bytes", maxPageRecord)
	}
	rc, err := s.deps.Ranges.NewRangeReader(ctx, p.WARCFile, p.Offset, p.Length)
	if err != nil {
		return warc.HTTPResponse{}, err
	}
	defer func() { _ = rc.Close() }()
	raw, err := io.ReadAll(io.LimitReader(rc, p.Length))
	if err != nil {
		return warc.HTTPResponse{}, err
	}
	rec, err := warc.ReadRecord(bytes.NewReader(raw), 0, int64(len(raw)))
	if err != nil {
		return warc.HTTPResponse{}, err
	}
	return rec.HTTPResponse()
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
	p, err := pathPartition(in.Country, in.Category, in.Date)
	if err != nil {
		return nil, err
	}
	files, err := s.deps.Pages.FindWARCFiles(ctx, p)
	if err != nil {
		return nil, err
	}
	out := warcFileList{Partition: p, Items: files, Total: len(files)}
	for _, f := range files {
		out.Bytes += f.Bytes
	}
	return &warcFileListOutput{Body: out}, nil
}
