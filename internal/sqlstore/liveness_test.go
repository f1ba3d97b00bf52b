package sqlstore_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

func livenessResult(domain string, v seedengine.Verdict, reason string, hh int) seedengine.LivenessResult {
	return seedengine.LivenessResult{
		Domain:    domain,
		CheckedAt: at(hh, 0),
		Verdict:   v,
		Reason:    reason,
		DNS:       seedengine.LivenessDNS{Rcode: "NOERROR", A: []string{"192.0.2.1"}},
		Attempts:  []seedengine.LivenessAttempt{{Round: 1, URL: "https://" + domain + "/", Status: 200}},
		Rounds:    1,
		Status:    200,
	}
}

func TestLivenessResults(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewLivenessService(db)
		domains := sqlstore.NewDomainService(db)
		mom := sighting(seedengine.AuthorityGov, "sg", "mom.gov.sg", "suffix:gov.sg")
		require.NoError(t, domains.RegisterDomains(ctx, pSGNews1, at(9, 0), []seedengine.DomainSighting{mom}))
		require.Nil(t, findDomain(t, domains, mom.ID).Liveness, "no liveness before a probe")

		alive := livenessResult("mom.gov.sg", seedengine.VerdictAlive, "ok", 10)
		alive.DomainID = mom.ID
		dead := livenessResult("gone.example", seedengine.VerdictDead, "nxdomain", 10)
		dead.Detail = "nxdomain"
		noVerdict := livenessResult("nores.example", "", "dns_error", 10)
		require.NoError(t, s.RecordLivenessResults(ctx, "b1", []seedengine.LivenessResult{alive, dead, noVerdict}))

		items, total, err := s.FindLivenessResults(ctx, seedengine.LivenessFilter{BatchID: "b1"})
		require.NoError(t, err)
		require.Equal(t, 3, total)
		require.Equal(t, []string{"gone.example", "mom.gov.sg", "nores.example"}, resultDomains(items), "domain order")
		require.Equal(t, alive, *items[1], "a result round-trips whole")

		items, total, err = s.FindLivenessResults(ctx, seedengine.LivenessFilter{BatchID: "b1", Verdict: seedengine.VerdictDead})
		require.NoError(t, err)
		require.Equal(t, 1, total)
		require.Equal(t, []string{"gone.example"}, resultDomains(items))

		items, total, err = s.FindLivenessResults(ctx, seedengine.LivenessFilter{BatchID: "b1", Limit: 1, Offset: 1})
		require.NoError(t, err)
		require.Equal(t, 3, total)
		require.Equal(t, []string{"mom.gov.sg"}, resultDomains(items))
		items, total, err = s.FindLivenessResults(ctx, seedengine.LivenessFilter{BatchID: "b1", Offset: 10})
		require.NoError(t, err)
		require.Equal(t, 3, total, "the total is known past the last page")
		require.Empty(t, items)

		d := findDomain(t, domains, mom.ID)
		require.Equal(t, &seedengine.LivenessSummary{Verdict: seedengine.VerdictAlive, Reason: "ok", CheckedAt: at(10, 0), BatchID: "b1"}, d.Liveness)

		// A retried chunk replaces its results instead of adding rows.
		blocked := livenessResult("mom.gov.sg", seedengine.VerdictBlocked, "http_403", 11)
		require.NoError(t, s.RecordLivenessResults(ctx, "b1", []seedengine.LivenessResult{blocked}))
		_, total, err = s.FindLivenessResults(ctx, seedengine.LivenessFilter{BatchID: "b1"})
		require.NoError(t, err)
		require.Equal(t, 3, total)
		require.Equal(t, seedengine.VerdictBlocked, findDomain(t, domains, mom.ID).Liveness.Verdict)

		// An older result from another batch is history, not the latest.
		old := livenessResult("mom.gov.sg", seedengine.VerdictDead, "timeout", 8)
		require.NoError(t, s.RecordLivenessResults(ctx, "b0", []seedengine.LivenessResult{old}))
		require.Equal(t, seedengine.VerdictBlocked, findDomain(t, domains, mom.ID).Liveness.Verdict)
		newer := livenessResult("mom.gov.sg", seedengine.VerdictParked, "parked", 12)
		require.NoError(t, s.RecordLivenessResults(ctx, "b2", []seedengine.LivenessResult{newer}))
		got := findDomain(t, domains, mom.ID).Liveness
		require.Equal(t, seedengine.VerdictParked, got.Verdict)
		require.Equal(t, "b2", got.BatchID)

		_, total, err = s.FindLivenessResults(ctx, seedengine.LivenessFilter{BatchID: "unknown"})
		require.NoError(t, err)
		require.Zero(t, total)
	})
}

func TestLivenessResultsInvalid(t *testing.T) {
	t.Parallel()
	s := sqlstore.NewLivenessService(sqlstoretest.OpenSQLite(t))
	ctx := t.Context()
	requireCode(t, s.RecordLivenessResults(ctx, "", nil), seedengine.EINVALID)
	requireCode(t, s.RecordLivenessResults(ctx, "b", []seedengine.LivenessResult{{Verdict: seedengine.VerdictAlive}}), seedengine.EINVALID)
	requireCode(t, s.RecordLivenessResults(ctx, "b", []seedengine.LivenessResult{{Domain: "x.example", Verdict: "zombie"}}), seedengine.EINVALID)
	_, _, err := s.FindLivenessResults(ctx, seedengine.LivenessFilter{BatchID: "b", Verdict: "zombie"})
	requireCode(t, err, seedengine.EINVALID)
	_, _, err = s.FindLivenessResults(ctx, seedengine.LivenessFilter{})
	requireCode(t, err, seedengine.EINVALID)
}

func resultDomains(rs []*seedengine.LivenessResult) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Domain
	}
	return out
}
