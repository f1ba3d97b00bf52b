package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/riverqueue/river"

	"github.com/seedengine/seedengine"
)

// QueueSeedChecks is the River queue of seed checks (internal/seedcheck):
// one job per check of one seed.
const QueueSeedChecks = "seed_checks"

// SeedCheckArgs are the args of the job that checks one seed's entry.
// A scheduled check (Now false) that finds its seed no longer due (checked
// since the round read it as due) does nothing; a check asked for now
// always checks. The two are unique apart, so asking for a check now never
// joins a scheduled one that would then do nothing.
type SeedCheckArgs struct {
	SeedID string `json:"seed_id"`
	Now    bool   `json:"now,omitempty"`
}

// Kind names the job's worker. It is stored with every job, so it never
// changes.
func (SeedCheckArgs) Kind() string { return "seed_check" }

// InsertOpts puts checks on QueueSeedChecks, one waiting or running job
// per seed (and per Now) at most: a seed already queued is not queued
// again.
func (SeedCheckArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueSeedChecks, UniqueOpts: river.UniqueOpts{
		ByArgs:  true,
		ByState: unfinished,
	}}
}

// SeedCheckScheduleArgs are the args of the periodic job that queues the
// checks that are due.
type SeedCheckScheduleArgs struct{}

// Kind names the job's worker. It is stored with every job, so it never
// changes.
func (SeedCheckScheduleArgs) Kind() string { return "seed_check_schedule" }

// InsertOpts puts schedule jobs on QueueSeedChecks.
func (SeedCheckScheduleArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueSeedChecks}
}

// SeedChecker checks seeds; internal/seedcheck's Service is one.
type SeedChecker interface {
	// CheckSeed checks one seed now and records the check, calling inTx
	// with the change of health in the transaction that records it.
	CheckSeed(ctx context.Context, seedID string, inTx func(context.Context, *sql.Tx, seedengine.SeedHealthChange) error) error
	// DueSeeds lists up to limit seeds whose check is due.
	DueSeeds(ctx context.Context, limit int) ([]string, error)
	// DueSeed reports whether one seed's check is due.
	DueSeed(ctx context.Context, seedID string) (bool, error)
	// PruneChecks deletes checks past their retention; the schedule
	// calls it at most once an hour per process.
	PruneChecks(ctx context.Context) error
}

// pruneEvery is how often a process prunes old checks.
const pruneEvery = time.Hour

// maxDuePerRound bounds the checks one schedule round queues; the rest
// wait for the next round.
const maxDuePerRound = 5000

// RegisterSeedChecks makes c run the seed check jobs and, when every is
// above zero, queues the due checks every that often (on the leader
// process only): at once, or spread over that interval when there are
// more than the workers can take, so that a batch of due seeds (a first
// start, a long stop) does not fire at once. Call it before Start.
func (q *Queue) RegisterSeedChecks(c SeedChecker, every time.Duration) {
	q.mustWire("RegisterSeedChecks", c == nil)
	q.mu.Lock()
	q.seedChecker, q.seedCheckEvery = c, every
	q.mu.Unlock()
	q.addPeriodic(every, SeedCheckScheduleArgs{}, true)
}

func (q *Queue) seedCheckRunner() (SeedChecker, time.Duration) {
	q.mu.RLock()
	defer q.mu.RUnlock()
	return q.seedChecker, q.seedCheckEvery
}

// EnqueueSeedCheck queues a check of a seed to run now and returns its
// job id; when one asked for now is already waiting or running, that
// job's id and false.
func (q *Queue) EnqueueSeedCheck(ctx context.Context, seedID string) (int64, bool, error) {
	res, err := q.client.Insert(ctx, SeedCheckArgs{SeedID: seedID, Now: true}, nil)
	if err != nil {
		return 0, false, fmt.Errorf("enqueue seed check %s: %w", seedID, err)
	}
	return res.Job.ID, !res.UniqueSkippedAsDuplicate, nil
}

type seedCheckWorker struct {
	river.WorkerDefaults[SeedCheckArgs]
	q *Queue
}

// Work implements river.Worker.
func (w *seedCheckWorker) Work(ctx context.Context, job *river.Job[SeedCheckArgs]) error {
	c, _ := w.q.seedCheckRunner()
	if c == nil {
		return fmt.Errorf("no seed checker in this process")
	}
	if !job.Args.Now {
		// A round reads the due seeds and then queues them: a check that
		// committed in between (one asked for now, another round's) has
		// made this one unneeded.
		due, err := c.DueSeed(ctx, job.Args.SeedID)
		if err != nil {
			return err
		}
		if !due {
			w.q.log.Debug("seed checked since this check was queued", "event", "seed_check_not_due", "seed_id", job.Args.SeedID)
			return nil
		}
	}
	// What the check's change of health calls for is queued, and the job
	// completes, in the transaction that records the check: a change is
	// alerted once and only once recorded, a check visible through the API
	// is one whose job is done (a "check now" after it queues a new one),
	// and a job cut short before the commit runs again without a check
	// recorded twice.
	return c.CheckSeed(ctx, job.Args.SeedID, func(ctx context.Context, tx *sql.Tx, change seedengine.SeedHealthChange) error {
		if err := w.q.followHealthTx(ctx, tx, change); err != nil {
			return err
		}
		return completeJobTx(ctx, w.q.engine, tx, job)
	})
}

type seedCheckScheduleWorker struct {
	river.WorkerDefaults[SeedCheckScheduleArgs]
	q *Queue
}

// Work implements river.Worker: it queues the due checks, each at a point
// of the round's interval that its seed id picks.
func (w *seedCheckScheduleWorker) Work(ctx context.Context, job *river.Job[SeedCheckScheduleArgs]) error {
	c, every := w.q.seedCheckRunner()
	if c == nil {
		return fmt.Errorf("no seed checker in this process")
	}
	// Rounds may overlap; the one that claims the hour prunes.
	if last, now := w.q.lastPrune.Load(), time.Now().UnixNano(); time.Duration(now-last) >= pruneEvery && w.q.lastPrune.CompareAndSwap(last, now) {
		if err := c.PruneChecks(ctx); err != nil {
			w.q.log.Warn("delete old seed checks", "event", "seed_checks_prune_failed", "err", err)
			w.q.lastPrune.CompareAndSwap(now, last) // try again next round
		}
	}
	due, err := c.DueSeeds(ctx, maxDuePerRound)
	if err != nil {
		return err
	}
	if len(due) == 0 {
		return nil
	}
	// Due seeds are checked now: a harvest's pace (internal/harvest) is
	// kept to within a round. More than the workers can take at once (a
	// first start, a long stop) are spread over the round instead, so
	// they do not all fire together.
	backlog := len(due) > w.q.cfg.SeedCheckWorkers
	now := time.Now()
	params := make([]river.InsertManyParams, 0, len(due))
	for _, id := range due {
		opts := SeedCheckArgs{}.InsertOpts()
		if backlog && every > 0 {
			opts.ScheduledAt = now.Add(spread(id, every))
		}
		params = append(params, river.InsertManyParams{Args: SeedCheckArgs{SeedID: id}, InsertOpts: &opts})
	}
	res, err := w.q.client.InsertMany(ctx, params)
	if err != nil {
		return fmt.Errorf("queue seed checks: %w", err)
	}
	queued := 0
	for _, r := range res {
		if !r.UniqueSkippedAsDuplicate {
			queued++
		}
	}
	w.q.log.Info("queued due seed checks", "event", "seed_checks_queued", "due", len(due), "queued", queued)
	return nil
}

// spread is a seed's offset within an interval, the same every round.
func spread(seedID string, every time.Duration) time.Duration {
	h := fnv.New64a()
	_, _ = h.Write([]byte(seedID))
	return time.Duration(h.Sum64() % uint64(every))
}

// followHealthTx queues, in the transaction that records a change of a
// seed's health, its alert (when this process has a webhook) and its drift
// contract run (when it has a drift handler).
func (q *Queue) followHealthTx(ctx context.Context, tx *sql.Tx, c seedengine.SeedHealthChange) error {
	q.mu.RLock()
	alerts, drift := q.alertHook != nil, q.drift != nil
	q.mu.RUnlock()
	if len(c.Pages) > 0 {
		// The pages of the check's new items, fetched by any process
		// that fetches pages.
		params := make([]river.InsertManyParams, len(c.Pages))
		for i, id := range c.Pages {
			params[i] = river.InsertManyParams{Args: PageFetchArgs{ItemID: id}}
		}
		if _, err := q.client.InsertManyTx(ctx, tx, params); err != nil {
			return fmt.Errorf("queue the page fetches of %s: %w", c.SeedID, err)
		}
		c.Pages = nil // not part of what alerts and drift runs carry
	}
	if c.Alerting() && alerts {
		if _, err := q.client.InsertTx(ctx, tx, SeedAlertArgs{Change: c}, nil); err != nil {
			return fmt.Errorf("queue the alert of %s: %w", c.SeedID, err)
		}
	}
	if c.Drifting() && drift {
		if _, err := q.client.InsertTx(ctx, tx, SeedDriftArgs{Change: c}, nil); err != nil {
			return fmt.Errorf("queue the drift contract run of %s: %w", c.SeedID, err)
		}
	}
	return nil
}
