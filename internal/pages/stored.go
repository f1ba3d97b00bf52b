package pages

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/warc"
)

// Reading a stored page back: its record by offset from its WARC file,
// the payload decoded of its content coding (the record keeps it as the
// server sent it). The API serves it; the article extraction reads it.

// MaxRecord bounds a record read back from a WARC file, and MaxContent
// the page decoded of its content coding.
const (
	MaxRecord  = 64 << 20
	MaxContent = 256 << 20
)

// ErrUnreadable wraps what makes a stored record unreadable for good:
// damaged (its digests do not match), not a response, or a body that no
// longer decodes. Reading it again changes nothing.
var ErrUnreadable = errors.New("the stored record cannot be read")

// OriginalFinder finds the page whose record holds a payload;
// sqlstore.PageService is one.
type OriginalFinder interface {
	FindOriginal(ctx context.Context, digest string) (*seedengine.Page, error)
}

// StoredPayload is a stored page read back: its payload and the
// Content-Type of its own response; From is the page whose record holds
// the payload (the page itself, or the original a revisit refers to).
type StoredPayload struct {
	ContentType string
	Body        []byte
	From        *seedengine.Page
}

// ReadStored reads stored page p back through ranges. A revisit's record
// holds its own response's headers and no payload: the payload is its
// original's, the same by its digest, and decoded by the original's
// coding.
func ReadStored(ctx context.Context, ranges seedengine.ObjectRangeReader, originals OriginalFinder, p *seedengine.Page) (StoredPayload, error) {
	if p.State != seedengine.PageStored {
		return StoredPayload{}, seedengine.Errorf(seedengine.ENOTFOUND, "item %d's page is %s, not stored", p.ItemID, p.State)
	}
	resp, err := readResponse(ctx, ranges, p)
	if err != nil {
		return StoredPayload{}, err
	}
	src, stored := p, resp
	if p.Revisit {
		if src, err = originals.FindOriginal(ctx, p.PayloadDigest); err != nil {
			return StoredPayload{}, err
		}
		if stored, err = readResponse(ctx, ranges, src); err != nil {
			return StoredPayload{}, err
		}
	}
	body, err := stored.Decoded(MaxContent)
	if err != nil {
		return StoredPayload{}, fmt.Errorf("item %d's stored page: %w: %w", p.ItemID, ErrUnreadable, err)
	}
	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		ct = "application/octet-stream"
	}
	return StoredPayload{ContentType: ct, Body: body, From: src}, nil
}

// readResponse reads the HTTP response of a page's record back from its
// WARC file.
func readResponse(ctx context.Context, ranges seedengine.ObjectRangeReader, p *seedengine.Page) (warc.HTTPResponse, error) {
	if p.Length > MaxRecord {
		return warc.HTTPResponse{}, seedengine.Errorf(seedengine.ETOOLARGE, "the page's record is larger than %d bytes", MaxRecord)
	}
	rc, err := ranges.NewRangeReader(ctx, p.WARCFile, p.Offset, p.Length)
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
		return warc.HTTPResponse{}, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	resp, err := rec.HTTPResponse()
	if err != nil {
		return warc.HTTPResponse{}, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	return resp, nil
}
