// Package discover turns the URLs that research finds into domain records:
// a normalised URL, its registrable domain, an authority with the rule that
// decided it, a country and a domain_id (DESIGN §2). Everything here is a
// pure function of its input and the rule table; nothing does I/O.
//
// The entry point is [Classifier.Analyze]; [DefaultClassifier] uses the
// built-in rule table, [NewClassifier] adds operators' rule files. A URL
// that cannot become a record gives a [*URLError] whose Reason is one of
// the stable Reason* codes, reported per URL to API clients.
//
// # URL normalisation
//
// [NormalizeURL] reads a URL as the WHATWG URL Standard does
// (https://url.spec.whatwg.org/), so that a URL means here what it means in
// a browser, repairs what people and tools commonly get wrong around it,
// then canonicalises, so that two spellings of one page compare equal.
// Every absolute http and https case of web-platform-tests' URL test file
// is a test (TestWHATWGURL, testdata/urltestdata.json).
//
//   - As in the standard, leading and trailing C0 controls and spaces are
//     trimmed and ASCII tabs and newlines anywhere are removed (wrapped
//     URLs). No-break and zero-width spaces and byte order marks, which
//     copying from documents leaves behind, are trimmed too. Any other
//     control character, and DEL, is percent-encoded in the path and
//     query (the fragment is dropped) and is invalid_host in the host.
//   - A missing scheme means https ("www.gov.sg/news", "//cdn.x.com/a",
//     "example.com:8080/x"). Most sites serve https and many only redirect
//     from http, so https is the likelier working URL; a record is an
//     identity, not a fetch, and fetchers may still fall back to http.
//   - "http:/x", "http:x" and "http:///x" are "http://x", as in the
//     standard; so is "http//x". A doubled scheme ("http://http://x",
//     "https://http//x"), which the standard reads as the host "http",
//     keeps the inner one, which is what the author wrote before a tool
//     prefixed its own. Backslashes before the query are slashes.
//   - Only http and https are accepted; any other scheme (mailto:,
//     javascript:, ftp:, tel:, data:, typos such as htps:) is
//     unsupported_scheme. A name with a dot or followed by a port
//     ("example.com:8080") is a host, not a scheme.
//   - Credentials ("user:pw@") are dropped: they never belong in a stored
//     URL. The last "@" ends them, as in browsers.
//   - The host is read by the standard's host parser. It is
//     percent-decoded; a space or any other forbidden code point (C0
//     controls, # % / : < > ? @ [ \ ] ^ | and DEL) is invalid_host, so
//     "http://exa mple.com/" is not example.com. An ASCII host is
//     lower-cased, even one with invalid Punycode ("xn--zz"), which
//     browsers keep; any other goes through UTS 46 ToASCII with the
//     standard's options (golang.org/x/net/idna; non-transitional, so
//     "faß.de" stays distinct from "fass.de"; CheckBidi and CheckJoiners;
//     no hyphen, STD3 or length checks). A host that ends in a number is
//     an IPv4 address in any form the standard reads ("0x7f.1",
//     "2130706433", "0300.0250.0.1", a trailing dot), written in dotted
//     decimal, or invalid_host ("example.123"); "[…]" is an IPv6 address,
//     written as the standard writes it ("[2001:db8::1]",
//     "[::ffff:c000:201]"); zones are refused. One dot after the last
//     label is dropped ("example.com." is example.com).
//   - Empty and default ports (80 for http, 443 for https) are dropped;
//     other ports lose leading zeros; 0 (which the standard allows and
//     nothing serves), over 65535 or non-digits are invalid_url.
//   - The path is "/" when empty; dot-segments are removed (RFC 3986
//     §5.2.4, "%2e" counts as "."); percent-escapes are upper-cased, escapes
//     of unreserved characters decoded, a stray "%" becomes "%25", and every
//     byte outside unreserved, sub-delims, ":" and "@" is escaped (control
//     characters and UTF-8 bytes included). Case and double slashes in the
//     path are kept.
//   - The fragment is dropped. Query parameters named in trackingParams
//     (fbclid, gclid, dclid, msclkid, mc_cid, mc_eid, yclid, _ga, igshid,
//     ref_src, …) or starting with utm_, mtm_ or hsa_ are dropped, without
//     regard to case, as are empty parameters; the rest keep their order
//     and are escaped like the path ("/" and "?" allowed). A query left
//     empty is dropped with its "?".
//   - The result is at most MaxURLLength (2,048) bytes, the sitemaps limit;
//     longer is too_long.
//
// NormalizeURL accepts every http(s) URL the standard accepts, with the
// standard's host; whether that host can hold a domain record
// ("localhost", "192.0.2.1" and "exa$mple.com" are valid hosts) is for
// RegistrableDomain to say. The repairs, the trimming of Unicode white
// space, port 0 and the dropped root dot are where we differ from the
// standard on purpose; none of them meets a case of the test file.
//
// A normalised URL normalises to itself and is returned without
// allocating; a record's URL is read by net/url as exactly the same URL
// (tested, and fuzzed, against a net/url based reference). The scanner is
// hand-written because net/url.Parse alone costs more than the whole
// per-URL budget (DESIGN §11).
//
// # Registrable domains
//
// [Classifier.RegistrableDomain] is the eTLD+1 of the Public Suffix List
// (golang.org/x/net/publicsuffix, which includes the private section, so
// "foo.github.io" is its own registrable domain), on A-labels, with these
// policies:
//
//   - Only a DNS host name has one: at least two labels of a-z, 0-9, "-"
//     and "_" (seen in real sub-domains), 1–63 bytes each, 253 in all, and
//     a registrable domain whose own label neither starts nor ends with
//     "-" (a label below it may: "-x.example.com" is example.com). An IP
//     address in any form, a single label ("localhost") and names such as
//     "exa$mple.com" or "a..b" make valid URLs but have none:
//     no_registrable_domain. An IP address is not a domain, so it never
//     becomes a record or a domain_id ([IsIPLiteral] lets callers given a
//     domain_id check it).
//   - A host that is itself a public suffix of gov or mil authority by the
//     rule table ("gov.br", "gov.uk", "gouv.fr", "go.jp", "gc.ca") is kept
//     as it is (DESIGN §2): those are real government sites.
//   - A host that is itself a private-section suffix ("github.io",
//     "s3.amazonaws.com", "blogspot.com") gets the registrable domain under
//     its ICANN suffix ("github.io", "amazonaws.com"): it is a site run by
//     that domain's owner. This is the one place where we deliberately
//     differ from the PSL test file ("uk.com" → "uk.com", not null).
//   - Any other public suffix ("co.uk", "com.au", "ac.uk") has none:
//     no_registrable_domain.
//   - Unknown TLDs follow the PSL's default rule ("a.example" →
//     "a.example").
//
// # Authority and country
//
// [Classifier.Classify] looks up the registrable domain and each of its
// suffixes on label boundaries in the rule table, longest first; the first
// row found decides. Matching on the registrable domain, not the host,
// keeps look-alikes out ("gov.sg.evil.com" is evil.com, "abcgov.us" is
// not under gov.us) and gives every registrable domain one domain_id. With
// no row, the authority is other ("default:other"); Classify given an IP
// address (Analyze never is) says other ("default:ip").
//
// Verdict.Rule names the row: "tld:int", "suffix:gov.sg" (a public suffix),
// "domain:bund.de" (a registrable domain). A "label.*" row is reported as
// the suffix it matched ("suffix:gov.br" for "gov.*").
//
// The country is, in order: the row's country if it has one ("gov", "mil",
// "edu" → us; "int" → intl; "bbc.com" → gb); for a public-suffix row, the
// country of its ccTLD; the ccTLD of the registrable domain (ISO 3166-1
// code, with "uk" → "gb" and internationalised ccTLDs such as "xn--p1ai"
// → "ru" from tld_countries); the partition's country for generic TLDs
// (.com, .org, .net, .info, brand TLDs, …) and for domains registered
// directly under a generic ccTLD: one whose registrations mostly do not
// serve its country (Google's list of generic ccTLDs, .ai, and .ac, .ag,
// .cx, .gg, .gs, .pw, .sh, .tf, .to, .vc; the reasons are in
// docs/research.md). "startup.io" says nothing about a country, and
// sermitsiaq.ag found for Greenland is "other:gl:sermitsiaq.ag"; a domain
// under a second-level public suffix of a generic ccTLD keeps the ccTLD's
// country ("mintic.gov.co" is co, "x.com.ag" is ag). The partition's "uk"
// is not rewritten. Every country is valid for
// seedengine.ValidateCountry.
//
// # Rule files
//
// The built-in table is rules.json, embedded and parsed once. Operators
// pass files of the same format to NewClassifier (RuleFile):
//
//	{
//	  "comment": "free text",
//	  "rules": [
//	    {"match": "gov.sg", "authority": "gov", "note": "Singapore: government"},
//	    {"match": "gov.*", "authority": "gov", "note": "government second level of a ccTLD"},
//	    {"match": "bund.de", "authority": "gov", "country": "de"},
//	    {"match": "int", "authority": "ngo", "country": "intl"}
//	  ],
//	  "tld_countries": {"uk": "gb", "xn--p1ai": "ru"},
//	  "generic_cctlds": ["io", "co", "tv"]
//	}
//
// "match" is lower-case A-labels: a TLD, a public suffix, a registrable
// domain (not below one: rules classify registrable domains), or "label.*"
// for that label under every ccTLD where it is an ICANN public suffix
// ("ac.*" covers ac.uk and ac.jp but never the registrable ac.com).
// "authority" is one of gov, mil, edu, ngo, org, media, com, other;
// "country" is optional. A row of a later file replaces the row with the
// same match; an explicit suffix always beats a "label.*" expansion; the
// longest matching suffix wins. Unknown fields and invalid values are
// errors naming the file and row. A gov or mil row on a public suffix also
// keeps that suffix as a registrable domain when it is a whole host.
package discover
