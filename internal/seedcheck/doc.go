// Package seedcheck keeps promoted seeds honest: it re-reads a seed's
// entry (a conditional GET with the validators of the last look, within
// the fetcher's politeness and robots.txt), records what it found as a
// Check, and derives the seed's Health from its recent checks.
//
// A check's Outcome is ok (2xx that parses as the seed's fetch type, or
// 304), moved (reached through a permanent redirect to another URL that
// parses), gone (404, 410, NXDOMAIN), blocked (401, 403, 429, a challenge
// page), disallowed (robots.txt refuses the entry; nothing fetched) or
// failed (anything else). Health turns a run of checks into a state:
//
//	healthy  the last check read the entry and its newest item is as
//	         recent as the seed's own publishing rate predicts
//	stale    it answers, but its newest item is older than StaleFactor (4)
//	         times the gap between items its rate predicts, never before
//	         StaleMin (3 days), always after StaleMax (30 days)
//	moved    the last check was moved
//	blocked  BlockedAfter (2) refused or disallowed checks in a row
//	gone     GoneAfter (2) gone checks in a row
//	failing  FailingAfter (3) bad checks of any kind in a row
//
// A run of bad checks shorter than its threshold leaves the state the
// checks before it gave, so one timeout does not flip a healthy seed.
package seedcheck
