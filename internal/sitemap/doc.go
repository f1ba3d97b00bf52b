// Package sitemap is a streaming parser for sitemaps: XML urlsets and
// sitemap indexes (sitemaps.org 0.9, the old Google namespaces, prefixed
// namespaces), plain-text sitemaps, and RSS/RDF and Atom feeds used as
// sitemaps, each possibly gzip-compressed. It does not fetch: the caller
// fetches each document, passes the body to Parse, and walks indexes itself
// (with its own depth cap and loop guard).
//
// # Semantics
//
//   - Gzip is recognised by its magic bytes (1f 8b) only; multi-member
//     streams are read whole. Limits apply to decoded bytes, so a gzip bomb
//     stops at Options.MaxBytes with ErrTooLarge.
//   - The type comes from the first non-space content after an optional
//     UTF-8 BOM: '<' is XML and the root element's local name decides
//     (urlset, sitemapindex, rss, RDF, feed; anything else, HTML included, is
//     ErrNotSitemap); other content is a text sitemap. An RSS document is
//     always TypeRSS, whatever namespaces it declares, so a feed is never
//     taken for a (news) sitemap.
//   - Entries are direct children of the root (RSS: of the root or
//     <channel>) in the root's namespace; their <loc>/<lastmod> are direct
//     children in that same namespace, so image:loc, video:*_loc, xhtml:link
//     and PageMap content are never taken for the location. The first <loc>
//     wins. A <sitemap> or <url> without <loc> uses its own text (indexes
//     that list bare URLs). RSS uses the item's <link>, else a permalink
//     <guid>, else rdf:about; dates from <pubDate> or <dc:date>. Atom uses
//     the first link whose rel is absent or "alternate"; dates from
//     <updated>/<modified>, else <published>/<issued>. Relative links are not
//     resolved (Parse knows no base URL) and so are Invalid.
//   - A location is trimmed and entity-decoded and must be an absolute http
//     or https URL with a host, without white space or control characters,
//     at most MaxLocBytes long; otherwise the entry counts as Invalid and fn
//     does not see it. Locations are not normalised and not checked against
//     the sitemap's own URL: the caller does both.
//   - Dates are W3C datetime (YYYY, YYYY-MM, YYYY-MM-DD, with time and zone;
//     a missing zone is UTC), with RFC 822/1123 as the fallback for RSS;
//     all are returned in UTC, zero when missing or unparseable.
//   - news:news is recognised by the Google News namespace (or an undeclared
//     "news" prefix) and only in urlsets.
//   - MaxEntries stops before the first entry past the limit and sets
//     Truncated (a document with exactly MaxEntries entries is not
//     truncated). Reading stops at the end of the root element; what follows
//     is not read.
//   - A text document without a single URL line is ErrNotSitemap, as is one
//     whose first KiB holds control bytes or invalid UTF-8 (binary, UTF-16).
//     Lines longer than 8 KiB are Invalid and skipped without buffering.
//
// # Safety
//
// No entity is ever expanded: a DOCTYPE or ENTITY (or ELEMENT, ATTLIST,
// NOTATION) declaration anywhere fails with ErrDoctype before anything in it
// is read, which rules out XXE and billion-laughs expansion. The one
// exception is "<!DOCTYPE html", which is reported as ErrNotSitemap because
// it is an HTML page, not an attack. Only the five predefined entities and
// numeric character references are decoded; any other "&name;" is kept as
// written. Memory is bounded independently of document size: a 64 KiB
// window that grows only for a single tag longer than that (up to 1 MiB,
// then ErrMalformed), nesting up to 256 elements, and captured text values
// up to 16 KiB (longer counts as overlong). Comments, CDATA and ignored text
// are streamed, never buffered.
//
// # Why a purpose-built scanner
//
// encoding/xml was measured first on the 50 MB benchmark urlset
// (BenchmarkEncodingXMLRawToken): RawToken alone, doing nothing with the
// tokens, ran at 35-64 MB/s, 160,000-290,000 URLs/s and 26 allocations per
// URL on the two-core benchmark machine; Token, which also translates
// namespaces, can only be slower (not measured). That left no margin over the
// 200,000 URLs/s target once real work is added. The scanner
// here handles only what sitemaps need (elements, attributes, text, CDATA,
// comments, processing instructions, predefined and numeric references,
// prefix-to-namespace mapping), checks that tags are well formed and
// matched, and allocates one string per entry: 225-290 MB/s and 1.0-1.3
// million URLs/s on the same input (0.75-1.3 million from gzip), with a
// peak RSS of 13.5 MiB (17 MiB from gzip) for the whole process (figures
// from BenchmarkParse50MB; see bench_test.go for how memory is
// measured). Character encodings other than UTF-8 are read as bytes:
// URLs are ASCII in practice.
//
// The test fixtures in testdata/ come from crawler-commons (top level and
// extension/) and commoncrawl news-crawl (news-crawl/), both Apache-2.0; the
// LICENSE-NOTE.md files there give the sources and licence texts.
package sitemap
