package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
)

// QueueDomains is the River queue of orchestration domain jobs; every
// other job runs on River's default queue.
const QueueDomains = "domains"

// QueueLiveness is the River queue of liveness chunks: each waits on
// slow and dead hosts for most of its run, so many run at once
// (Config.LivenessWorkers) beside the default queue's workers.
const QueueLiveness = "liveness"

// unfinished are the states of a job not finished yet: a job unique by
// them waits or runs once at a time.
var unfinished = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
	rivertype.JobStateRetryable, rivertype.JobStateRunning, rivertype.JobStateScheduled}

// addPeriodic has the leader insert args every so often, first at start
// when onStart, under the job kind's name. Every 0 schedules nothing, nor
// does an insert-only queue: the working processes schedule it.
func (q *Queue) addPeriodic(every time.Duration, args river.JobArgs, onStart bool) {
	if every <= 0 || q.cfg.InsertOnly {
		return
	}
	q.client.PeriodicJobs().Add(river.NewPeriodicJob(river.PeriodicInterval(every),
		func() (river.JobArgs, *river.InsertOpts) { return args, nil },
		&river.PeriodicJobOpts{ID: args.Kind(), RunOnStart: onStart}))
}

// Database engines accepted by New; the same names sqlstore reports.
const (
	EngineSQLite   = "sqlite"
	EnginePostgres = "postgres"
)

// Config tunes the queue. Zero fields take the defaults given with each
// field.
type Config struct {
	// Workers is how many jobs of the default queue run at once in this
	// process. Default 50.
	Workers int

	// InsertOnly makes a queue that enqueues and answers queries (stats,
	// dead letters, River UI) but works no job: for API processes that
	// leave the work to worker processes. Start then starts no worker,
	// sweep or heartbeat.
	InsertOnly bool

	// LivenessWorkers is how many liveness chunks (QueueLiveness) run at
	// once in this process; their fetches share the fetcher's global
	// limit, and a probe waiting on a slow host parks (fetch.Config).
	// Default 200: a 10,000-domain batch in chunks of 50 at once.
	LivenessWorkers int

	// DomainWorkers is how many jobs of QueueDomains (one domain of a seed
	// orchestration each) run at once in this process. Default 1,500.
	DomainWorkers int

	// SeedCheckWorkers is how many seed checks (QueueSeedChecks) run at
	// once in this process. Default 50.
	SeedCheckWorkers int

	// PageWorkers is how many page jobs (QueuePages) run at once in
	// this process. A page job waits for its host's turn only when it is
	// near and is put back in the queue otherwise (internal/pages'
	// frontier); while it waits it holds no fetch slot (fetch.Config's
	// Concurrency bounds those), so this is a count of pages in hand, not
	// of fetches. Default DefaultPageWorkers; -1: this process works no
	// page fetches (its queue is not served here).
	PageWorkers int

	// ArticleWorkers is how many article extractions (QueueArticles) run
	// at once in this process. Default DefaultArticleWorkers; -1: this
	// process extracts none (its queue is not served here).
	ArticleWorkers int

	// Listener, on PostgreSQL, is the pgx pool River LISTENs on
	// (sqlstore.DB.Listener): an insert committed anywhere wakes this
	// process's workers at once. Without it the queue only polls.
	Listener *pgxpool.Pool

	// Notified, on SQLite, receives after each commit of this process that
	// wrote a River notification (sqlstore.DB.Notified): the workers wake
	// at once, and River's notification table is read only when told (and
	// every second, for another process's). Without it riversqlite's own
	// listener reads the table every 50 ms.
	Notified <-chan struct{}

	// PollInterval is how often the queue looks for new jobs. It bounds
	// the latency of a new job when nothing wakes the queue: on PostgreSQL
	// without a Listener, or when a notification is lost; on SQLite an
	// insert by this process wakes its workers directly (see the package
	// doc), and on PostgreSQL with a Listener LISTEN wakes every process's.
	// Default: 5 s where inserts wake the queue (an idle process then
	// costs next to nothing; 2 s for page jobs, whose deferred pages come
	// back at a poll), 100 ms where they do not (River's default of 1 s
	// would cap throughput near Workers per second).
	PollInterval time.Duration

	// JobRetention is how long River keeps completed and cancelled jobs;
	// DeadLetterRetention how long it keeps jobs that failed for good
	// (the dead letters). River's cleaner, on the leader, deletes them
	// after. Defaults 24 h and 30 days.
	JobRetention        time.Duration
	DeadLetterRetention time.Duration

	// FetchCooldown is the shortest pause between two fetches; it bounds
	// throughput when jobs arrive faster than they finish. Default 5 ms.
	FetchCooldown time.Duration

	// MaxAttempts is how many times a chunk job runs before its chunk is
	// failed for good. Default 5.
	MaxAttempts int

	// JobTimeout cancels the context of a job that runs longer. Default 10m.
	JobTimeout time.Duration

	// RescueStuckJobsAfter is how long a job may stay running before the
	// queue assumes its process died and schedules it again. It must not be
	// shorter than JobTimeout, or live jobs would run twice. Default 15m, or
	// JobTimeout plus 5m when JobTimeout is longer than 10m.
	RescueStuckJobsAfter time.Duration

	// Logger receives one line per job outcome and River's own logs.
	// Default slog.Default().
	Logger *slog.Logger

	// ReadDB, when set, serves the queue's read-only queries (Check,
	// CountJobs). On SQLite pass the store's read-only pool: the writer's
	// single connection is busy with jobs, and readiness probes and metrics
	// scrapes must not queue behind them.
	ReadDB *sql.DB

	// SweepInterval is how often the queue looks for chunks whose job can
	// no longer run (see sweep.go). Default 1m.
	SweepInterval time.Duration

	// RescueInterval is how often a working process records its heartbeat
	// and looks for jobs left running by nobody (see rescue.go). Default
	// 10s.
	RescueInterval time.Duration

	// OrphanGrace is how long a job of this process may stay running in
	// the database with no worker here holding it before it is made
	// available again: longer than River's completer retries a failed
	// update (about 7 s, at most 37 s). Default 45s.
	OrphanGrace time.Duration

	// DeadProcessAfter is how old a process's heartbeat may grow before
	// the process is taken for dead and its running jobs are made
	// available again. At least three RescueIntervals. Default 1m.
	DeadProcessAfter time.Duration
}

func (c Config) withDefaults() Config {
	if c.Workers == 0 {
		c.Workers = 50
	}
	if c.DomainWorkers == 0 {
		c.DomainWorkers = 1500
	}
	if c.LivenessWorkers == 0 {
		c.LivenessWorkers = 200
	}
	if c.SeedCheckWorkers == 0 {
		c.SeedCheckWorkers = 50
	}
	if c.PageWorkers == 0 {
		c.PageWorkers = DefaultPageWorkers
	}
	if c.ArticleWorkers == 0 {
		c.ArticleWorkers = DefaultArticleWorkers
	}
	if c.PollInterval == 0 {
		c.PollInterval = 100 * time.Millisecond
	}
	if c.JobRetention == 0 {
		c.JobRetention = 24 * time.Hour
	}
	if c.DeadLetterRetention == 0 {
		c.DeadLetterRetention = 30 * 24 * time.Hour
	}
	if c.FetchCooldown == 0 {
		c.FetchCooldown = 5 * time.Millisecond
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = 5
	}
	if c.JobTimeout == 0 {
		c.JobTimeout = 10 * time.Minute
	}
	if c.RescueStuckJobsAfter == 0 {
		c.RescueStuckJobsAfter = max(15*time.Minute, c.JobTimeout+5*time.Minute)
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.SweepInterval == 0 {
		c.SweepInterval = time.Minute
	}
	if c.RescueInterval == 0 {
		c.RescueInterval = 10 * time.Second
	}
	if c.OrphanGrace == 0 {
		c.OrphanGrace = 45 * time.Second
	}
	if c.DeadProcessAfter == 0 {
		c.DeadProcessAfter = max(time.Minute, 3*c.RescueInterval)
	}
	return c
}

func (c Config) validate() error {
	switch {
	case c.Workers < 1:
		return seedengine.Errorf(seedengine.EINVALID, "queue workers must be at least 1, got %d", c.Workers)
	case c.LivenessWorkers < 1:
		return seedengine.Errorf(seedengine.EINVALID, "queue liveness workers must be at least 1, got %d", c.LivenessWorkers)
	case c.DomainWorkers < 1:
		return seedengine.Errorf(seedengine.EINVALID, "queue domain workers must be at least 1, got %d", c.DomainWorkers)
	case c.SeedCheckWorkers < 1:
		return seedengine.Errorf(seedengine.EINVALID, "queue seed check workers must be at least 1, got %d", c.SeedCheckWorkers)
	case c.JobRetention < time.Minute || c.DeadLetterRetention < time.Minute:
		return seedengine.Errorf(seedengine.EINVALID, "queue job retentions must be at least a minute, got %s and %s", c.JobRetention, c.DeadLetterRetention)
	case c.PollInterval < time.Millisecond:
		return seedengine.Errorf(seedengine.EINVALID, "queue poll interval must be at least 1ms, got %s", c.PollInterval)
	case c.FetchCooldown < time.Millisecond:
		return seedengine.Errorf(seedengine.EINVALID, "queue fetch cooldown must be at least 1ms, got %s", c.FetchCooldown)
	case c.FetchCooldown > c.PollInterval:
		return seedengine.Errorf(seedengine.EINVALID, "queue fetch cooldown %s must not exceed the poll interval %s", c.FetchCooldown, c.PollInterval)
	case c.MaxAttempts < 1:
		return seedengine.Errorf(seedengine.EINVALID, "queue max attempts must be at least 1, got %d", c.MaxAttempts)
	case c.JobTimeout < 0:
		return seedengine.Errorf(seedengine.EINVALID, "queue job timeout must not be negative, got %s", c.JobTimeout)
	case c.RescueInterval < 10*time.Millisecond:
		return seedengine.Errorf(seedengine.EINVALID, "queue rescue interval must be at least 10ms, got %s", c.RescueInterval)
	case c.DeadProcessAfter < 3*c.RescueInterval:
		return seedengine.Errorf(seedengine.EINVALID, "queue dead-process-after %s must be at least three rescue intervals (%s)", c.DeadProcessAfter, 3*c.RescueInterval)
	case c.OrphanGrace < 0:
		return seedengine.Errorf(seedengine.EINVALID, "queue orphan grace must not be negative, got %s", c.OrphanGrace)
	case c.RescueStuckJobsAfter < c.JobTimeout:
		return seedengine.Errorf(seedengine.EINVALID, "queue rescue-stuck-jobs-after %s must be at least the job timeout %s", c.RescueStuckJobsAfter, c.JobTimeout)
	}
	return nil
}

// Life-cycle states of a Queue.
const (
	stateIdle int32 = iota
	stateRunning
	stateStopping
	stateStopped
)

// hardStopTimeout bounds how long Stop waits for cancelled jobs to return
// once its own context is done. A processor that ignores cancellation is
// left behind; its job is rescued after RescueStuckJobsAfter.
const hardStopTimeout = 10 * time.Second

// bookkeepingTimeout bounds the SQL that records a job's outcome when the
// job's own context is already done (timeout, shutdown), so the outcome is
// still written.
const bookkeepingTimeout = 30 * time.Second

// Queue runs the chunk jobs of batches, and the finisher of each finished
// batch whose kind has one, on River. It creates batches (Batches, rows and
// jobs in one transaction) and implements seedengine.QueueStatsService and
// seedengine.Checker.
type Queue struct {
	db      *sql.DB
	engine  string
	batches *sqlstore.BatchService
	cfg     Config
	log     *slog.Logger
	client  *river.Client[*sql.Tx]

	// lifecycle serialises Start and Stop; state is read without it.
	lifecycle sync.Mutex
	state     atomic.Int32

	kinds    map[seedengine.BatchKind]Kind // fixed by New
	jobKinds []string                      // of every worker, fixed by New

	mu        sync.RWMutex
	finishers map[seedengine.BatchKind]BatchFinisherFunc
	metadata  MetadataRunner

	seedChecker      SeedChecker
	seedCheckEvery   time.Duration
	lastPrune        atomic.Int64 // unix ns of the last pruning of old seed checks
	alertHook        *AlertWebhook
	drift            DriftFunc
	itemFlusher      ItemFlusher
	pageFetcher      PageFetcher
	pageSweep        func(context.Context) (int, error)
	articleExtractor ArticleExtractor
	articleSweep     func(context.Context) (int, error)
	prune            func(context.Context) error
	lastItemPrune    atomic.Int64 // unix ns of the last pruning of the dedupe window

	metrics     *queueMetrics
	unsubscribe func() // ends the metrics' River subscription; nil while stopped

	sweepStop chan struct{} // closed by Stop; nil while no sweeper runs
	sweepDone chan struct{}

	rescue *rescuer // jobs left running by nobody (rescue.go)

	// groups groups chunk starts and completions on PostgreSQL
	// (complete.go); nil on SQLite, where the store's group commit shares
	// their commits.
	groups *chunkGroups

	// pageWake wakes the page queue when deferred pages come due
	// (pagewake.go).
	pageWake *pageWaker
}

// wokenPollInterval is the poll interval of a queue that inserts wake;
// there the poll finds only jobs whose wait ended (a retry, a snooze) and
// jobs another process inserted without a wake. The page queue polls at
// wokenPagePollInterval: the pages it sends away (pages.DeferError) come
// back at a poll, and a host's turn should not wait long for them.
const (
	wokenPollInterval     = 5 * time.Second
	wokenPagePollInterval = 2 * time.Second
)

// New builds a queue on db, which must hold River's tables (applied by the
// store's migrations). engine is EngineSQLite or EnginePostgres; on SQLite
// db must be limited to one open connection, because River runs many
// operations at once and SQLite would answer "database is locked". kinds
// are the batch kinds the queue runs, one Batch each (internal/app
// declares them all); it panics on a kind unknown or declared twice, a
// wiring mistake. The queue works no job until Start, but enqueues right
// away.
func New(db *sql.DB, engine string, batches *sqlstore.BatchService, cfg Config, kinds ...Kind) (*Queue, error) {
	if db == nil || batches == nil {
		return nil, seedengine.Errorf(seedengine.EINVALID, "queue needs a database and a batch service")
	}
	woken := cfg.PollInterval == 0 && (engine == EngineSQLite || cfg.Listener != nil)
	if woken {
		cfg.PollInterval = wokenPollInterval
	}
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	q := &Queue{
		db:        db,
		engine:    engine,
		batches:   batches,
		cfg:       cfg,
		log:       cfg.Logger,
		kinds:     make(map[seedengine.BatchKind]Kind, len(kinds)),
		finishers: make(map[seedengine.BatchKind]BatchFinisherFunc),
		metrics:   newQueueMetrics(),
	}
	q.rescue = &rescuer{q: q, id: newClientID(), held: map[int64]int{}, suspects: map[int64]suspectSighting{}}
	if engine == EnginePostgres {
		q.groups = newChunkGroups(q)
	}

	workers := river.NewWorkers()
	q.addKinds(workers, kinds)
	addWorker(q, workers, &finishWorker{q: q})
	addWorker(q, workers, &metadataSyncWorker{q: q})
	addWorker(q, workers, &metadataScheduleWorker{q: q})
	addWorker(q, workers, &seedCheckWorker{q: q})
	addWorker(q, workers, &seedCheckScheduleWorker{q: q})
	addWorker(q, workers, &seedAlertWorker{q: q})
	addWorker(q, workers, &seedDriftWorker{q: q})
	addWorker(q, workers, &itemFlushWorker{q: q})
	addWorker(q, workers, &pageFetchWorker{q: q})
	addWorker(q, workers, &pageSweepWorker{q: q})
	addWorker(q, workers, &articleExtractWorker{q: q})
	addWorker(q, workers, &articleSweepWorker{q: q})
	addWorker(q, workers, &retentionWorker{q: q})

	rcfg := &river.Config{
		ID:                          q.rescue.id,
		Middleware:                  []rivertype.Middleware{&holdMiddleware{r: q.rescue}},
		CancelledJobRetentionPeriod: cfg.JobRetention,
		CompletedJobRetentionPeriod: cfg.JobRetention,
		DiscardedJobRetentionPeriod: cfg.DeadLetterRetention,
		FetchCooldown:               cfg.FetchCooldown,
		FetchPollInterval:           cfg.PollInterval,
		JobTimeout:                  cfg.JobTimeout,
		Logger:                      slog.New(newThrottle(cfg.Logger.Handler(), riverLogEvery)).With("component", "river"),
		MaxAttempts:                 cfg.MaxAttempts,
		Queues: map[string]river.QueueConfig{
			river.QueueDefault: {MaxWorkers: cfg.Workers},
			QueueDomains:       {MaxWorkers: cfg.DomainWorkers},
			QueueLiveness:      {MaxWorkers: cfg.LivenessWorkers},
			QueueMetadata:      {MaxWorkers: 1},
			QueueSeedChecks:    {MaxWorkers: cfg.SeedCheckWorkers},
			QueueAlerts:        {MaxWorkers: 4},
			QueueItems:         {MaxWorkers: 1},
		},
		RescueStuckJobsAfter: cfg.RescueStuckJobsAfter,
		Workers:              workers,
	}

	if cfg.PageWorkers > 0 {
		pq := river.QueueConfig{MaxWorkers: cfg.PageWorkers}
		if woken {
			pq.FetchPollInterval = wokenPagePollInterval
		}
		rcfg.Queues[QueuePages] = pq
	}
	if cfg.ArticleWorkers > 0 {
		rcfg.Queues[QueueArticles] = river.QueueConfig{MaxWorkers: cfg.ArticleWorkers}
	}
	if cfg.InsertOnly {
		// No queues: River's client only inserts and queries.
		rcfg.Queues = nil
	}

	var err error
	switch engine {
	case EngineSQLite:
		if n := db.Stats().MaxOpenConnections; n != 1 {
			return nil, seedengine.Errorf(seedengine.EINVALID, "queue on SQLite needs a pool of exactly one open connection, got %d", n)
		}
		var driver riverdriver.Driver[*sql.Tx] = riversqlite.New(db)
		if cfg.Notified != nil {
			read := cfg.ReadDB
			if read == nil {
				read = db
			}
			driver = &sqliteDriver{Driver: riversqlite.New(db), read: read, notified: cfg.Notified}
		}
		q.client, err = river.NewClient(driver, rcfg)
	case EnginePostgres:
		driver := riverdatabasesql.New(db)
		if cfg.Listener != nil {
			driver = riverdatabasesql.NewWithPgxListener(db, cfg.Listener)
		}
		q.client, err = river.NewClient(driver, rcfg)
	default:
		return nil, seedengine.Errorf(seedengine.EINVALID, "queue engine %q must be %q or %q", engine, EngineSQLite, EnginePostgres)
	}
	if err != nil {
		return nil, fmt.Errorf("new river client: %w", err)
	}
	q.pageWake = newPageWaker(q.client.Driver().GetExecutor(), QueuePages)
	return q, nil
}

// mustWire panics on the wiring mistakes the Register and Set methods
// document: a nil argument, or a call once the queue has started.
func (q *Queue) mustWire(method string, isNil bool) {
	if isNil {
		panic("jobs: " + method + " of nil")
	}
	if q.state.Load() != stateIdle {
		panic("jobs: " + method + " after Start")
	}
}

// addWorker registers worker with River and notes its job kind.
func addWorker[T river.JobArgs](q *Queue, w *river.Workers, worker river.Worker[T]) {
	river.AddWorker(w, worker)
	var args T
	q.jobKinds = append(q.jobKinds, args.Kind())
}

// JobKinds returns the kind of every job this queue runs, sorted: every
// chunk job of the registry of batch kinds and the queue's own jobs. The
// API's dead-letter filter lists the same.
func (q *Queue) JobKinds() []string { return slices.Sorted(slices.Values(q.jobKinds)) }

// Start starts working jobs. The queue runs until Stop: ctx only carries
// values, its cancellation is ignored, so that a cancelled server context
// cannot cut short the graceful stop that Stop performs.
func (q *Queue) Start(ctx context.Context) error {
	q.lifecycle.Lock()
	defer q.lifecycle.Unlock()
	switch q.state.Load() {
	case stateRunning:
		return nil
	case stateStopping:
		return seedengine.Errorf(seedengine.ECONFLICT, "job queue is still stopping")
	}
	if q.cfg.InsertOnly {
		q.state.Store(stateRunning)
		q.log.InfoContext(ctx, "job queue open for inserts only; worker processes run the jobs", "event", "queue_started", "engine", q.engine, "insert_only", true)
		return nil
	}
	events, unsubscribe := q.client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed,
		river.EventKindJobCancelled, river.EventKindJobSnoozed)
	if err := q.client.Start(context.WithoutCancel(ctx)); err != nil {
		unsubscribe()
		return fmt.Errorf("start job queue: %w", err)
	}
	q.unsubscribe = unsubscribe
	go q.metrics.follow(events)
	q.state.Store(stateRunning)
	q.startSweeper()
	q.rescue.start()
	q.pageWake.start()
	q.log.InfoContext(ctx, "job queue started", "event", "queue_started", "engine", q.engine,
		"workers", q.cfg.Workers, "max_attempts", q.cfg.MaxAttempts, "job_timeout", q.cfg.JobTimeout.String())
	return nil
}

// Stop stops fetching jobs and waits for the jobs in flight to finish until
// ctx is done. Then it cancels the contexts of the jobs still running and
// waits up to 10 s more for them to return: they are recorded as
// interrupted and become available again, so no job is lost. Stop the
// queue before closing its database.
func (q *Queue) Stop(ctx context.Context) error {
	q.lifecycle.Lock()
	defer q.lifecycle.Unlock()
	if s := q.state.Load(); s != stateRunning && s != stateStopping {
		return nil
	}
	q.state.Store(stateStopping)
	if q.cfg.InsertOnly {
		q.state.Store(stateStopped)
		return nil
	}
	q.stopSweeper()
	q.pageWake.stop()

	err := q.client.Stop(ctx)
	if err != nil && ctx.Err() != nil {
		q.log.WarnContext(ctx, "job queue stop timed out; cancelling jobs in flight", "event", "queue_stop_cancel")
		hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), hardStopTimeout)
		defer cancel()
		err = q.client.StopAndCancel(hctx)
	}
	// A clean stop removes the heartbeat; after a failed one the jobs
	// still running are the others' to rescue once it goes stale.
	q.rescue.halt(err == nil)
	if q.unsubscribe != nil {
		q.unsubscribe()
		q.unsubscribe = nil
	}
	if err != nil {
		return fmt.Errorf("stop job queue: %w", err)
	}
	q.state.Store(stateStopped)
	q.log.InfoContext(ctx, "job queue stopped", "event", "queue_stopped")
	return nil
}

// ClientID is this process's River client id: the name river_job's
// attempted_by and queue_processes know it by.
func (q *Queue) ClientID() string { return q.rescue.id }

// Started reports whether the queue is working jobs: started and not
// stopping.
func (q *Queue) Started() bool { return q.state.Load() == stateRunning }

func (q *Queue) stopping() bool { return q.state.Load() == stateStopping }

func (q *Queue) readDB() *sql.DB {
	if q.cfg.ReadDB != nil {
		return q.cfg.ReadDB
	}
	return q.db
}

// Client returns the underlying River client. UIHandler serves River UI for
// it.
func (q *Queue) Client() *river.Client[*sql.Tx] { return q.client }

// Check reports whether the queue can work jobs: it is started, not
// stopping, and River's job table answers. EUNAVAILABLE otherwise.
func (q *Queue) Check(ctx context.Context) error {
	if !q.Started() {
		return seedengine.Errorf(seedengine.EUNAVAILABLE, "job queue is not running")
	}
	if !q.cfg.InsertOnly {
		select {
		case <-q.client.Stopped():
			return seedengine.Errorf(seedengine.EUNAVAILABLE, "job queue is not running")
		default:
		}
	}
	var one int
	err := q.readDB().QueryRowContext(ctx, `SELECT 1 FROM river_job LIMIT 1`).Scan(&one)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w: %v", seedengine.Errorf(seedengine.EUNAVAILABLE, "job queue database is not available"), err)
	}
	return nil
}

// CountJobs returns the number of jobs by kind and state, ordered by kind
// then state. Finished jobs count until River's cleaner deletes them (24 h
// for completed, 7 days for discarded jobs).
func (q *Queue) CountJobs(ctx context.Context) ([]seedengine.JobCount, error) {
	rows, err := q.readDB().QueryContext(ctx, `SELECT kind, state, count(*) FROM river_job GROUP BY kind, state ORDER BY kind, state`)
	if err != nil {
		return nil, fmt.Errorf("count jobs: %w", err)
	}
	defer rows.Close()
	var counts []seedengine.JobCount
	for rows.Next() {
		var c seedengine.JobCount
		if err := rows.Scan(&c.Kind, &c.State, &c.Count); err != nil {
			return nil, fmt.Errorf("count jobs: %w", err)
		}
		counts = append(counts, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count jobs: %w", err)
	}
	return counts, nil
}

var (
	_ seedengine.QueueStatsService = (*Queue)(nil)
	_ seedengine.Checker           = (*Queue)(nil)
)
