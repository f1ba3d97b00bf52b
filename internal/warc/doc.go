// Package warc writes fetched web pages as WARC/1.1 files with a CDXJ
// index, and reads single records back for serving.
//
// A Writer appends to one .warc.gz stream: a warcinfo record first, then
// for each Capture a request record and a response record that names it
// (WARC-Concurrent-To, as wget writes it), or, when the body was archived before,
// a revisit record (identical-payload-digest profile) that holds only the
// response's header and refers to the earlier response. Every record is
// its own gzip member, so the Record that Write returns (offset and
// length of the member) is all a reader needs: ReadRecord decompresses
// that one member and checks its digests. Digests are SHA-1 in base32
// ("sha1:…"), as pywb, Heritrix and warcio write them; PayloadDigest is
// the deduplication key.
//
// Every WARC-Target-URI is TargetURI of the URL fetched, the WHATWG
// serialisation a browser gives. CDXJLine and SURT produce the index
// line by line as warcio.js's indexer (warcio cdx-index) writes it for
// the file, with the key replayweb.page looks URLs up by; pywb reads
// the same lines.
//
// The records are serialised here, not by a WARC library: see
// docs/decisions.md. The tests hold the files to two independent readers,
// github.com/nlnwa/gowarc in strict mode and Webrecorder's warcio.
package warc
