package seedengine

import (
	"context"
	"time"
)

// Verdict is the outcome of a liveness probe of a domain.
type Verdict string

// Verdicts. The empty Verdict means no verdict: the probe could not be made
// (the caller's context ended, our DNS server was unreachable), which says
// nothing about the domain; its Reason says why.
const (
	// VerdictAlive: a web server answered with a page (2xx, a final 3xx,
	// or a 4xx other than 401/403/429).
	VerdictAlive Verdict = "alive"
	// VerdictBlocked: a server answered but refused us: 401, 403, 429 or
	// a challenge page.
	VerdictBlocked Verdict = "blocked"
	// VerdictDead: no usable answer, twice: NXDOMAIN, DNS failure,
	// refused, unreachable, timeouts, resets, 5xx, redirect loops.
	VerdictDead Verdict = "dead"
	// VerdictParked: a parking or domain-for-sale page.
	VerdictParked Verdict = "parked"
)

// Valid reports whether v is one of the Verdict constants (the empty "no
// verdict" is not).
func (v Verdict) Valid() bool {
	switch v {
	case VerdictAlive, VerdictBlocked, VerdictDead, VerdictParked:
		return true
	}
	return false
}

// LivenessResult is what one liveness probe of a domain found. It is
// stored as the domain's latest liveness, appended to its history and
// written as one JSONL line per domain of a batch, so its JSON form is
// stable.
type LivenessResult struct {
	// DomainID is the domain_id of the probed domain, when the probe was
	// asked for by domain_id or the caller knows it.
	DomainID string `json:"domain_id,omitempty"`
	// Domain is the registrable host probed.
	Domain    string    `json:"domain"`
	CheckedAt time.Time `json:"checked_at"`
	// Verdict is empty when no verdict could be given (see Verdict).
	Verdict Verdict `json:"verdict"`
	// Reason is a machine-readable explanation of the verdict: "ok",
	// "nxdomain", "dns_timeout", "servfail", "no_address",
	// "connect_refused", "connect_timeout", "connect_reset", "timeout",
	// "tls_error", "http_5xx", "too_many_redirects", "http_401",
	// "http_403", "http_429", "challenge", "parked", "http_4xx",
	// "canceled", … (internal/liveness lists them).
	Reason string `json:"reason"`
	// Detail refines Reason: the TLS failure ("expired", "name_mismatch"),
	// the DNS rcode of a servfail, the status of an http_5xx.
	Detail string `json:"detail,omitempty"`
	// DNS is the A/AAAA lookup of Domain in the last round.
	DNS LivenessDNS `json:"dns"`
	// Attempts lists every fetch made, over every round, in order.
	Attempts []LivenessAttempt `json:"attempts"`
	// Rounds is how many times the domain was probed: 1, or more when a
	// failure was retried before a dead verdict.
	Rounds int `json:"rounds"`
	// HTTPSOK is true when https://Domain/ produced an HTTP response in
	// the last round.
	HTTPSOK bool `json:"https_ok"`
	// HTTPFallback is true when the last round's answer came from
	// http://Domain/ because HTTPS failed.
	HTTPFallback bool `json:"http_fallback"`
	// Redirects is the redirect chain of the last round's final fetch.
	Redirects []LivenessRedirect `json:"redirects,omitempty"`
	// FinalURL is where the redirect chain ended.
	FinalURL string `json:"final_url,omitempty"`
	// LeftRegistrable is true when FinalURL is on another registrable
	// domain than Domain.
	LeftRegistrable bool `json:"left_registrable"`
	// Status is the final HTTP status; 0 when no response came.
	Status int `json:"status,omitempty"`
	// TLS holds the certificate facts of the HTTPS attempt, when a
	// certificate was seen (also when it was rejected).
	TLS *LivenessTLS `json:"tls,omitempty"`
	// ResponseMS is the time the final fetch took, redirects included,
	// in milliseconds.
	ResponseMS int64 `json:"response_ms,omitempty"`
}

// LivenessDNS is the DNS part of a liveness result.
type LivenessDNS struct {
	// Rcode is "NOERROR", "NXDOMAIN", "SERVFAIL", …, "TIMEOUT" or "ERROR".
	Rcode      string   `json:"rcode"`
	A          []string `json:"a,omitempty"`
	AAAA       []string `json:"aaaa,omitempty"`
	DurationMS int64    `json:"duration_ms"`
}

// LivenessAttempt is one fetch of a liveness probe.
type LivenessAttempt struct {
	// Round counts from 1; a retry is round 2.
	Round int    `json:"round"`
	URL   string `json:"url"`
	// Status is the final HTTP status, 0 when the fetch failed.
	Status int `json:"status,omitempty"`
	// Error is the fetch failure reason (fetch's vocabulary); empty when
	// a response came.
	Error      string `json:"error,omitempty"`
	Detail     string `json:"detail,omitempty"`
	DurationMS int64  `json:"duration_ms"`
}

// LivenessRedirect is one redirect response of a liveness probe.
type LivenessRedirect struct {
	URL      string `json:"url"`
	Status   int    `json:"status"`
	Location string `json:"location"`
}

// LivenessTLS are the certificate facts of a probed HTTPS site.
type LivenessTLS struct {
	Valid     bool      `json:"valid"`
	Issuer    string    `json:"issuer,omitempty"`
	NotAfter  time.Time `json:"not_after,omitzero"`
	NameMatch bool      `json:"name_match"`
	// Error is why the certificate was rejected ("expired",
	// "name_mismatch", "unknown_authority", …); empty when Valid.
	Error string `json:"error,omitempty"`
}

// LivenessSummary is the latest liveness of a domain, kept in the domain
// registry beside the domain and shown with it.
type LivenessSummary struct {
	Verdict   Verdict   `json:"verdict"`
	Reason    string    `json:"reason"`
	Detail    string    `json:"detail,omitempty"`
	CheckedAt time.Time `json:"checked_at"`
	// BatchID is the liveness batch that produced it.
	BatchID string `json:"batch_id"`
}

// LivenessFilter selects the liveness results of one batch. Zero fields
// other than BatchID do not filter.
type LivenessFilter struct {
	BatchID string
	Verdict Verdict
	Limit   int
	Offset  int
}

// LivenessService stores liveness results: every result of every batch
// (the history) and the latest verdict of each domain.
type LivenessService interface {
	// RecordLivenessResults stores the results of one batch in one
	// transaction. A result of the batch for a domain it already holds
	// replaces it, so a retried chunk records each domain once. Results
	// with a verdict become their domain's latest liveness unless a newer
	// one is known; results without one (the probe could not be made) are
	// kept in the history only. EINVALID for a result without a domain or
	// with an unknown verdict.
	RecordLivenessResults(ctx context.Context, batchID string, rs []LivenessResult) error

	// FindLivenessResults returns the results of a batch matching f in
	// domain order, and the total number matching regardless of Limit and
	// Offset. EINVALID for an unknown verdict.
	FindLivenessResults(ctx context.Context, f LivenessFilter) ([]*LivenessResult, int, error)
}

// LivenessBatchParams are the params of a liveness batch (Batch.Params),
// fixed when the API accepts it: Date names the partition of the batch's
// JSONL results in the object store, however late its chunks run.
type LivenessBatchParams struct {
	Date string `json:"date"`
}
