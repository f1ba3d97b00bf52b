package sitemap

import (
	"bytes"
	"fmt"
	"io"
	"time"
	"unicode/utf8"
)

const (
	// maxLineLen is the longest text line looked at; longer lines are Invalid
	// and skipped without being buffered.
	maxLineLen = 8 << 10
	// sniffLen is how much of a text document is checked for binary content.
	sniffLen = 1024
)

// runText parses a plain-text sitemap: one URL per line.
func (p *parser) runText() error {
	in := &p.in
	if err := p.sniffBinary(); err != nil {
		return err
	}
	skipping := false // inside an overlong line, discarding up to its end
	for {
		i := bytes.IndexByte(in.buf[in.r:in.w], '\n')
		if i < 0 {
			if skipping {
				in.r = in.w
			} else if in.w-in.r > maxLineLen {
				p.res.Invalid++
				skipping = true
				in.r = in.w
			}
			err := in.fill()
			if err == nil {
				continue
			}
			if err != io.EOF {
				return readErr(err)
			}
			if !skipping && in.r < in.w {
				if more, err := p.textLine(in.buf[in.r:in.w]); err != nil || !more {
					return err
				}
				in.r = in.w
			}
			break
		}
		line := in.buf[in.r : in.r+i]
		in.r += i + 1
		if skipping {
			skipping = false
			continue
		}
		if more, err := p.textLine(line); err != nil || !more {
			return err
		}
	}
	if p.res.Entries == 0 && !p.res.Truncated {
		return fmt.Errorf("sitemap: text document without a URL line: %w", ErrNotSitemap)
	}
	return nil
}

func (p *parser) textLine(line []byte) (bool, error) {
	line = trimSpace(line)
	if len(line) == 0 {
		return true, nil
	}
	return p.emit(line, time.Time{}, nil)
}

// sniffBinary refuses a text document whose first bytes hold control
// characters or invalid UTF-8 (images, UTF-16, other binary bodies).
func (p *parser) sniffBinary() error {
	in := &p.in
	atEOF := false
	for in.w-in.r < sniffLen {
		if err := in.fill(); err != nil {
			// A read error is returned by the line loop, after the
			// complete lines already read.
			atEOF = err == io.EOF
			break
		}
	}
	b := in.buf[in.r:in.w]
	if len(b) > sniffLen {
		b = b[:sniffLen]
		atEOF = false
	}
	for len(b) > 0 {
		c := b[0]
		if c < utf8.RuneSelf {
			if (c < ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7f {
				return fmt.Errorf("sitemap: binary content: %w", ErrNotSitemap)
			}
			b = b[1:]
			continue
		}
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			if !atEOF && len(b) < utf8.UTFMax && !utf8.FullRune(b) {
				break // a rune cut by the sniff window
			}
			return fmt.Errorf("sitemap: binary content: %w", ErrNotSitemap)
		}
		b = b[size:]
	}
	return nil
}
