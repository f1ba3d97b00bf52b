// Package robots parses robots.txt files and answers whether a URL may be
// fetched, following RFC 9309 with Google's documented and open-source
// (github.com/google/robotstxt) behaviour where RFC 9309 leaves room.
//
// Parse once, ask many times: Parse turns a body into a compact, immutable
// *Robots (all kept strings share one allocation; rules are pre-escaped and
// pre-sorted), and Robots.Allowed answers per URL without re-parsing and
// without allocating for ordinary ASCII URLs. Google's library instead
// re-parses the file on every query.
//
// # Reading the file
//
//   - Any bytes are accepted; Parse never fails. Only the first MaxBytes
//     (500 KiB, the minimum RFC 9309 §2.5 asks for) are read, and lines are
//     cut at 16,663 bytes as in Google's parser.
//   - A UTF-8 byte order mark, or a leading part of one, is skipped (Google).
//     A UTF-16LE or UTF-16BE byte order mark makes the body be decoded from
//     UTF-16 first; Google does not do this, but such files exist (two in the
//     real-world corpus in testdata) and are otherwise unreadable.
//   - Lines end at LF, CR or CRLF. "#" starts a comment anywhere on a line.
//   - A line is "key: value". As in Google, a line without a colon is still
//     accepted when it is exactly two words ("disallow /x").
//   - Keys are matched case-insensitively as prefixes, with Google's list of
//     typos: user-agent/useragent/"user agent"; allow; disallow/dissallow/
//     dissalow/disalow/diasllow/disallaw; sitemap/site-map. Unlike Google we
//     also read crawl-delay (crawldelay, "crawl delay", crawl_delay).
//     Everything else is ignored.
//
// # Groups
//
//   - A group is a run of user-agent lines followed by rules. Only an Allow
//     or Disallow line ends the user-agent run; other lines (Sitemap,
//     Crawl-delay, unknown ones) do not (RFC 9309 §2.2.4: other records must
//     not interfere). Allow/Disallow/Crawl-delay lines before the first
//     user-agent line are ignored.
//   - A user-agent value is reduced to its product token, the leading
//     [A-Za-z_-] run ("Googlebot/2.1" → "Googlebot", "Foo Bar" → "Foo"), as
//     Google does. "*" alone or followed by whitespace is the global agent.
//   - The agent asked about is compared whole and case-insensitively with
//     those tokens, so callers pass their product token ("seedengine"); see
//     ProductToken. As in Google, a name with a digit can never match:
//     "User-agent: MJ12bot" is the token "MJ", and asking for "MJ12bot"
//     falls back to "*". Our own name must pass ValidProductToken.
//   - All groups naming the agent are merged (RFC 9309 §2.2.1); if none does,
//     all "*" groups are merged; if there are none either, everything is
//     allowed. A group naming the agent applies even if it has no rules (it
//     then allows everything), as in RFC 9309 and Google.
//
// # Matching
//
//   - Rules are matched against the path, params and query of the URL
//     (PathQuery). Patterns are anchored at the start, '*' matches any run of
//     bytes, '$' at the end of a pattern anchors the end (Match).
//   - The longest matching pattern (in bytes, after escaping, '*' and '$'
//     included) wins; Allow wins a tie; no match means allowed. Empty
//     patterns match nothing.
//   - Patterns and URLs are normalised the same way (EscapePattern): bytes
//     >= 0x80 are %-escaped and %-escape hex digits upper-cased. Nothing is
//     decoded, so "%2F" and "/" (or "%62" and "b") stay different, as in
//     Google. Deliberate difference: Google escapes only the patterns and
//     expects callers to pass escaped URLs; we escape the URL too, so a raw
//     "/ツ" matches a rule written as "/ツ" or "/%E3%83%84" (RFC 9309 §2.2.2
//     asks for both sides to be encoded before comparison).
//   - Google's "index.html" rule: "Allow: /d/index.htm…" also allows "/d/"
//     exactly.
//   - "/robots.txt" is always allowed (RFC 9309 §2.2.2).
//
// # Crawl-delay and sitemaps
//
//   - Crawl-delay (not in RFC 9309, ignored by Google, honoured by many
//     others) belongs to the group it appears in. Values are decimal seconds,
//     fractions allowed ("0.5"); anything else is ignored. If several apply
//     to one agent, the largest wins. It is reported uncapped: callers decide
//     their ceiling.
//   - Sitemap lines are global wherever they appear. Robots.Sitemaps resolves
//     relative values against a base URL, drops non-http(s) results and
//     duplicates, and keeps file order. A bare URL line without "Sitemap:" is
//     not a sitemap (it parses as an unknown "http" key), as in Google.
//
// # HTTP status
//
// ForStatus maps the final status of a robots.txt fetch per RFC 9309
// §2.3.1: 2xx parse, 4xx allow all (429 excepted), 5xx/429/no answer
// disallow all, and a redirect chain ending on a 3xx (the fetcher gave up
// after its redirect limit) allow all.
package robots
