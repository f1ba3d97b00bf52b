// Package fetch is seedengine's one outbound HTTP client (DESIGN §7). Every
// request the engine makes to the web — robots.txt, sitemaps, feeds, pages,
// liveness probes — goes through a [Client], so politeness and safety are
// enforced in one place and cannot be forgotten by a caller.
//
// # What a fetch does
//
// [Client.Do] fetches a URL, follows up to MaxRedirects (10) redirects
// (301, 302, 303, 307, 308; relative Locations resolved; 301/302/303 turn
// anything but HEAD into GET; a redirect back to a URL already visited stops
// at once as too_many_redirects/loop), records every hop, and reads the body
// decoded (gzip, deflate) up to the cap of the request's [Kind]: robots
// 512 KiB, sitemap 50 MiB, feed 10 MiB, page 5 MiB, probe 256 KiB
// (Config.BodyLimits overrides). Do cuts a longer body and sets
// Truncated — the head of a huge page or the first 512 KiB of a robots.txt
// are still worth having. [Client.Stream] hands the body over as a reader
// for streaming parsers and fails with body_too_large past the cap instead,
// so that a cut document is never mistaken for a whole one. The cap counts
// decoded bytes, so a gzip bomb costs at most the cap; encoded bytes are
// limited to the cap plus 64 KiB, so input that decodes to nothing is not
// read forever either. Only Content-Encoding is decoded: a .gz sitemap
// served as a file is the sitemap parser's business.
//
// Every request carries User-Agent "seedengine/<version> (+<contact URL>)".
// Timeouts: ConnectTimeout per TCP connect, TLSTimeout per handshake,
// DNSTimeout per resolution, and RequestTimeout per exchange (dial to last
// body byte, for each hop and retry). Time queued for politeness is not a
// timeout of the server's: only the caller's context bounds it, and a fetch
// whose context ends is reported as canceled, never as the site's failure.
//
// Failures are [*Error] values with a stable Reason (nxdomain, dns_timeout,
// servfail, connect_refused, connect_timeout, connect_reset, tls_error with
// Detail expired/unknown_authority/name_mismatch, too_many_redirects,
// timeout, body_too_large, blocked_address, …) that liveness verdicts are
// built on. An HTTP status is never an error: a 503 is a [Response].
//
// # Politeness
//
//   - One exchange in flight per host (the URL's host name, lower case,
//     without port). Requests to a busy host queue in arrival order.
//   - A minimum delay between the end of one exchange with a host and the
//     start of the next: PerHostDelay (default 1 s), raised per host by
//     [Client.SetCrawlDelay] (robots.txt Crawl-delay). The delay only starts
//     when a server was reached: a refused connection or a failed DNS lookup
//     did not load anyone.
//   - A global limit of exchanges in flight (Concurrency, default 64),
//     taken only after the host's turn and delay, so waiting for a busy
//     host never holds a global slot. An exchange that has waited
//     ParkAfter (250 ms) for its response (a slow host, a DNS or connect
//     timeout coming) parks: it gives its global slot to the next host and
//     waits on a parked slot (at most ParkLimit, 16 × Concurrency, park;
//     beyond that an exchange keeps its place). The limit so bounds the
//     exchanges doing work, not those waiting on the network; the host
//     stays busy while parked. A streamed body holds both slots until it
//     is closed.
//   - A 429 or 503 with Retry-After pushes the host's next allowed start to
//     now + Retry-After (at most MaxRetryAfter), and when Retry-After is
//     within MaxRetryAfter (default 30 s) the request is retried once, after
//     waiting its turn again. A longer Retry-After returns the response.
//
// The scheduler keeps no goroutine per host: waiters queue on their host's
// entry and the finishing exchange hands the slot to the next. Host entries
// live in one map that is swept whenever it has doubled since the last
// sweep; an entry is dropped once it has no holder or waiter and its delay
// has passed (a robots Crawl-delay is remembered for 10 minutes of
// idleness). So memory follows the hosts in use, not the hosts ever seen.
//
// # Safety
//
// The SSRF guard refuses connections to special-purpose addresses:
// loopback, private (RFC 1918, unique local), link-local (cloud metadata),
// CGNAT 100.64/10, benchmarking 198.18/15, documentation ranges, multicast,
// reserved and broadcast, 0.0.0.0/8 and the unspecified addresses, and IPv6
// forms that embed one of them (IPv4-mapped, NAT64, 6to4). The check runs
// in the net.Dialer's control hook, after name resolution and before
// connect(2), on the address actually being connected to: a DNS answer
// that changes between checks (rebinding), a redirect hop or a connect-to
// rule cannot get past it. Config.AllowNetworks lets given networks through
// (tests allow 127.0.0.0/8 to reach their loopback servers). Proxies from
// the environment are never used, because a proxy would connect on our
// behalf past the guard. Only http and https URLs are fetched.
//
// # Staging hooks
//
// DNSServer sends every DNS query (HTTP fetches and [Client.Lookup]) to one
// server. ConnectTo reroutes connections like curl --connect-to
// (HOST:PORT:ADDR:PORT, empty meaning any or unchanged): the TCP connection
// goes to the target, while TLS still sends and verifies the URL's host
// name. Unlike curl, when a DNS server is configured the original name must
// still resolve there (its addresses are not used): on a staged or simulated
// web that server decides which names exist, and a dead name must look dead
// even though every connection goes to one address. Without a DNS server a
// rerouted name is not resolved at all, as in curl. ExtraCAFile adds trusted
// roots. With these the whole engine runs against internal/simweb on
// loopback.
//
// # DNS for liveness
//
// [Client.Lookup] asks the DNS server (DNSServer, or the first nameserver
// of /etc/resolv.conf) for A and AAAA records directly with
// github.com/miekg/dns, because net.Resolver hides the response code that
// liveness records (NOERROR, NXDOMAIN, SERVFAIL, timeout). A probe then
// fetches under [WithLookup]: the connection goes to the addresses it
// looked up and recorded (through connect-to and the SSRF guard as any),
// and the name is not asked about a second time.
//
// Only HTTP/1.1 is spoken: with one request per host in flight HTTP/2
// multiplexing gains nothing.
package fetch
