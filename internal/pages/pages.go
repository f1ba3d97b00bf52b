// Package pages fetches the pages of harvested items and keeps them as
// WARC/1.1 (internal/warc): the items of a seed whose contract says
// harvest.pages each get a page fetch job (queued with the seed check
// that recorded them); the job reads robots.txt for our agent (a
// disallowed page is skipped, never fetched), fetches the page through
// the process's shared fetcher (its politeness, SSRF guard and caps),
// and appends a request and a response record — a revisit record when a
// stored page had the same payload — to its partition's open spool file
// on local disk, then marks the page fetched with its record's place.
//
// A spool file is stored when it reaches a size or an age (and when the
// process stops): its CDXJ index is written beside it, both go to the
// object store under their final keys in one write each (never a half
// written object there), and one transaction marks its pages stored,
// records the file and the payload digests it brings. Only then does an
// item point at a record. A process killed before that keeps its spool
// on disk: Recover, at the next start, stores what its rows vouch for
// (the file cut back to the end of the last recorded record) and requeues
// nothing; a spool that is gone has its pages put back in the queue, and
// a page fetched twice is at most a revisit record.
package pages
