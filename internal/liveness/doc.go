// Package liveness probes a domain and gives it a verdict (DESIGN §7,
// issue 4 part 3): alive, blocked, dead or parked, with a machine-readable
// reason. Every request goes through the one fetch.Client, so politeness,
// timeouts, caps and the SSRF guard apply; bodies are read with the probe
// cap (256 KiB).
//
// # One round
//
//  1. DNS: Client.Lookup asks for A and AAAA and records the rcode. A name
//     that does not resolve is dead with reason nxdomain, servfail (Detail:
//     the rcode), dns_timeout or no_address, and is not fetched. A failure
//     of our own resolver (dns_error) or an invalid name (bad_request)
//     gives no verdict: it says nothing about the domain.
//  2. https://domain/ with redirects followed (at most 10, each hop
//     recorded), connecting to the addresses step 1 found and recorded
//     (fetch.WithLookup: the name is not resolved a second time).
//  3. When HTTPS produced no HTTP response at all (refused, connect or
//     request timeout, reset, TLS error, …), http://domain/ is tried too and
//     both attempts are recorded. An HTTPS chain that failed after a
//     redirect is not retried over HTTP: a server answered.
//
// # Verdict of a response (the final hop, whichever scheme gave it)
//
//	challenge header or body marker  blocked / challenge     (any status)
//	parking page marker              parked  / parked        (status < 500)
//	401, 403, 429                    blocked / http_401, http_403, http_429
//	5xx                              dead    / http_5xx      (Detail: status; after a retry)
//	other 4xx (404 at /)             alive   / http_4xx      (Detail: status)
//	2xx, final 3xx                   alive   / ok
//
// A site whose HTTPS fails (expired or wrong-name certificate, no TLS) but
// whose HTTP answers gets the HTTP answer's verdict, with HTTPFallback set
// and the rejected certificate in TLS (Error: expired, name_mismatch, …).
// When both schemes fail the verdict is dead and the reason is that of the
// attempt that got furthest (a TLS handshake beats a reset or timeout,
// which beat refused or connect_timeout; HTTPS wins ties):
// connect_refused, connect_timeout, connect_reset, timeout, tls_error,
// unreachable, too_many_redirects (Detail "loop" for a loop),
// bad_redirect, … — fetch's reasons unchanged.
//
// # Retries
//
// A dead verdict is only given after a retry, so one timeout does not kill
// a domain: a round that comes out dead is run again, from DNS, after
// Config.RetryDelay (default 2 s), up to Config.Retries more times (default
// 1), and the last round decides; a domain that answers in the retry is
// alive. NXDOMAIN is retried too, although the answer is authoritative:
// the retry costs one DNS query, and a registry or resolver glitch must not
// kill a domain either. Alive, blocked and parked are never retried.
// Top-level facts (DNS, status, redirects, TLS, times) are the last
// round's; Attempts lists every fetch of every round.
//
// # Cancellation
//
// A probe whose context ends never yields dead: the result has an empty
// Verdict and Reason "canceled", and a batch must treat it as not probed.
// Markers are tables in markers.go, matched case-insensitively.
//
// # Batches
//
// [ChunkProcessor] runs the chunks of a liveness batch: it normalises each
// item through internal/discover, probes the chunk's domains, records the
// results through a seedengine.LivenessService and writes them as JSON
// lines to one object per chunk (layout.LivenessChunkKey); batch.go
// documents the shapes.
//
// A chunk resolves ahead of its fetches (issue 38): every domain's DNS
// lookup starts with the chunk, Config.Lookups at a time across all
// chunks, and a domain takes one of the chunk's [ChunkConcurrency] fetch
// slots, and one of Config.Fetches across all chunks, only once its name
// has resolved (it gives the latter back while it waits for a retry). A
// name that does not resolve — NXDOMAIN, SERVFAIL, a DNS timeout — waits
// for its retry and is retried holding no fetch slot, and its verdict
// comes from DNS alone, while the live hosts are fetched. Rounds and verdicts are those of Probe: only
// when each step runs changes.
package liveness
