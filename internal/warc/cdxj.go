package warc

import (
	"fmt"
	"strconv"
	"strings"
)

// CDXJLine is the CDXJ index line of a record, without its newline, as
// warcio.js's CDXIndexer (warcio cdx-index, 2.4.11) writes it for the
// file, and so as replayweb.page expects it:
//
//	com,example)/ 20170306040206 {"url":"http://example.com/","mime":"text/html","status":"200","digest":"G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK","length":"1228","offset":"784","filename":"example.warc.gz"}
//
// The key is SURT(url), the timestamp the UTC capture time to the second;
// status, length and offset are strings, the digest is without its
// "sha1:"; a revisit's mime is "warc/revisit"; an absent mime, a zero
// status or an empty digest is left out. The JSON is JavaScript's
// JSON.stringify: no spaces, non-ASCII as it is. pywb and OutbackCDX
// read the same lines. A CDXJ file must be sorted bytewise (LC_ALL=C
// sort) before it can be searched.
func CDXJLine(r Record, filename string) string {
	var b strings.Builder
	b.Grow(2*len(r.TargetURI) + len(filename) + 160)
	b.WriteString(SURT(r.TargetURI))
	b.WriteByte(' ')
	b.WriteString(r.Date.UTC().Format("20060102150405"))
	b.WriteString(` {"url":`)
	writeJSString(&b, r.TargetURI)
	mime := r.MIME
	if r.Type == "revisit" {
		mime = "warc/revisit"
	}
	if mime != "" || r.emptyMIME {
		b.WriteString(`,"mime":`)
		writeJSString(&b, mime)
	}
	if r.Status != 0 {
		b.WriteString(`,"status":"`)
		b.WriteString(strconv.Itoa(r.Status))
		b.WriteByte('"')
	}
	if d := r.PayloadDigest; d != "" {
		b.WriteString(`,"digest":`)
		writeJSString(&b, d[strings.IndexByte(d, ':')+1:])
	}
	b.WriteString(`,"length":"`)
	b.WriteString(strconv.FormatInt(r.Length, 10))
	b.WriteString(`","offset":"`)
	b.WriteString(strconv.FormatInt(r.Offset, 10))
	b.WriteString(`","filename":`)
	writeJSString(&b, filename)
	b.WriteByte('}')
	return b.String()
}

// writeJSString writes s as a JSON string the way JavaScript's
// JSON.stringify does: '"', '\\' and controls escaped, everything else,
// non-ASCII included, as it is. Invalid UTF-8 is written as U+FFFD.
func writeJSString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
