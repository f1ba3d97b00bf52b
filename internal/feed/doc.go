// Package feed finds web feed candidates for a site and parses fetched feeds.
//
// The package does no I/O of its own: the caller fetches pages and feed
// bodies with the one outbound client (internal/fetch) and hands the bytes
// here. Every function is safe for concurrent use.
//
// # Discovery
//
// Candidates come from four places, recorded in [Candidate.Source]:
//
//   - [FromHTML]: <link rel="alternate"> elements with a feed MIME type
//     (RSS, Atom, JSON Feed, RDF); application/json only with a title and
//     outside the WordPress REST API (/wp-json/), text/xml and application/xml
//     only when the href itself looks like a feed. <a> elements whose URL
//     looks like a feed (see the rules on [LooksLikeFeedURL]) or whose text
//     (or image alt text) is a feed word such as "RSS", "Atom" or "Feed".
//   - [FromLinkHeader]: HTTP Link headers (RFC 8288) with rel="alternate" and
//     a feed type.
//   - [WellKnownPaths]: CMS and conventional feed paths, most likely first.
//
// URLs are resolved against the document base (the first <base href>, which
// per the HTML standard applies to the whole document, including links that
// precede it), fragments are removed, the feed: pseudo-scheme is rewritten to
// http(s), and only http and https URLs are kept. Candidates on other hosts
// are kept (a FeedBurner feed is the site's feed); the caller decides how far
// to trust them. A candidate is only a candidate: the design requires every
// one to be fetched and parsed with [Parse] before it counts.
//
// Comment feeds are dropped from [Page.Feeds] (see [IsCommentFeed]): the
// site-wide WordPress comments feed, feeds whose title says "Comments", and
// per-post feeds, recognised by a date-based permalink (/2024/05/slug/feed/)
// or a ?p=ID&feed=… query. A /<section>/feed/ URL without a date is kept,
// because it is usually a category feed (/news/feed/), which is exactly what
// we want; a per-post feed under a dateless permalink that carries no
// "Comments" title is therefore not recognised.
//
// # Sections
//
// [FromHTML] also reports links to the site's likely news listing pages
// (news, newsroom, press releases, media releases, announcements, blog, and
// their equivalents in the main European and South-East Asian languages),
// restricted to the same host or its www./apex variant — newsroom.example.com
// is another site by this rule. Scores lie in (0, 1]. A keyword as the last
// path segment scores higher than one followed by an article slug, so
// /news/ outranks /news/some-story; matching anchor text ("News", "Press
// releases", "Actualités") adds to the score and can carry a link on its own.
//
// # Parsing
//
// [Parse] uses gofeed. gofeed's own detector decides whether a body is a feed
// at all: the XML root must be <rss>, <rdf:RDF> or <feed>, so HTML pages and
// sitemaps (<urlset>, <sitemapindex>) are [ErrNotFeed], while an RSS feed
// that merely declares the sitemap namespace is still a feed. gofeed calls any
// valid JSON a JSON Feed; we additionally require a "version" naming
// jsonfeed.org, so that an API response is not taken for a feed.
//
// Item dates: an item's time is its published time, or its updated time when
// it has none. Times more than 48 hours in the future (clock skew, scheduled
// posts, typos) and times before 1995 (epoch-zero placeholders; web feeds do
// not predate 1995) are ignored; [Info.Newest] and [Info.Oldest] are zero when
// no item has a usable time.
//
// gofeed is pinned at v1.4.2, which passes all 206 fixtures. Two choices go
// beyond it: a body that fails to parse and contains C0 control characters
// (illegal in XML, common in real feeds) is parsed again without them; and a
// JSON Feed's [Info.Version] is the number ("1.1") rather than gofeed's
// version URL.
//
// # HTML
//
// The tokenizer behaves like a browser's: an unclosed <title>, <script>,
// <style>, <textarea> or <noscript> swallows the rest of the document, so
// links after it are not seen. A page cut at maxBytes sets [Page.Truncated].
// HTML is read as bytes and treated as UTF-8; titles and anchor texts with
// invalid UTF-8 have the bad bytes replaced. URL keyword matching does not
// depend on the page's charset.
package feed
