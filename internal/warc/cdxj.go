package warc

import (
	"fmt"
	"strconv"
	"strings"
)

// CDXJLine is the CDXJ index line of a record, without its newline, in
// the form pywb's indexer (cdxj-indexer) writes and pywb and OutbackCDX
// read:
//
//	com,example)/ 20170306040206 {"url": "http://example.com/", "mime": "text/html", "status": "200", "digest": "G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK", "length": "1228", "offset": "784", "filename": "example.warc.gz"}
//
// The key is SURT(url), the timestamp the UTC capture time to the second;
// status, length and offset are strings, the digest is without its
// "sha1:"; a revisit's mime is "warc/revisit"; an empty mime, a zero
// status or an empty digest is left out. The JSON is spaced and escaped
// as Python's json.dumps does it. A CDXJ file must be sorted bytewise
// (LC_ALL=C sort) before pywb can search it.
func CDXJLine(r Record, filename string) string {
	var b strings.Builder
	b.WriteString(SURT(r.TargetURI))
	b.WriteByte(' ')
	b.WriteString(r.Date.UTC().Format("20060102150405"))
	b.WriteString(` {"url": `)
	writePyJSONString(&b, r.TargetURI)
	mime := r.MIME
	if r.Type == "revisit" {
		mime = "warc/revisit"
	}
	if mime != "" {
		b.WriteString(`, "mime": `)
		writePyJSONString(&b, mime)
	}
	if r.Status != 0 {
		b.WriteString(`, "status": "`)
		b.WriteString(strconv.Itoa(r.Status))
		b.WriteByte('"')
	}
	if d := r.PayloadDigest; d != "" {
		b.WriteString(`, "digest": `)
		writePyJSONString(&b, d[strings.IndexByte(d, ':')+1:])
	}
	fmt.Fprintf(&b, `, "length": "%d", "offset": "%d", "filename": `, r.Length, r.Offset)
	writePyJSONString(&b, filename)
	b.WriteByte('}')
	return b.String()
}

// writePyJSONString writes s as a JSON string the way Python's
// json.dumps does by default: '"', '\\' and controls escaped, everything
// outside printable ASCII as \uXXXX (surrogate pairs above U+FFFF), and
// invalid UTF-8 as U+FFFD.
func writePyJSONString(b *strings.Builder, s string) {
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
		case r < 0x20 || (r >= 0x7f && r < 0x10000):
			fmt.Fprintf(b, `\u%04x`, r)
		case r >= 0x10000:
			r -= 0x10000
			fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
