package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/console"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/dataset"
	"github.com/seedengine/seedengine/internal/discover"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/httpapi"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/liveness"
	"github.com/seedengine/seedengine/internal/metasync"
	"github.com/seedengine/seedengine/internal/orchestrate"
	"github.com/seedengine/seedengine/internal/outage"
	"github.com/seedengine/seedengine/internal/research"
	"github.com/seedengine/seedengine/internal/seedcheck"
	"github.com/seedengine/seedengine/internal/sqlstore"
)

// knownCategories are the category values listed in GET /; any slug is
// accepted.
var knownCategories = []string{"news", "policy", "press_release", "regulation", "statistics", "procurement", "events", "research"}

func version() string { return seedengine.Version }

func commit() string {
	if seedengine.Commit != "" {
		return seedengine.Commit
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return "unknown"
}

func newLogger(c *Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(c.LogLevel)) // validated in finish
	opts := &slog.HandlerOptions{Level: level}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// settingError reports a store that refused its URL as a usage error
// naming the setting, and any other failure with what was being done.
func settingError(setting, doing string, err error) error {
	if seedengine.ErrorCode(err) == seedengine.EINVALID {
		return usageError{fmt.Errorf("--%s: %s", setting, seedengine.ErrorMessage(err))}
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// app is the wired service: the stores, the services on them, the queue
// with its processors, and the logger.
type app struct {
	log      *slog.Logger
	db       *sqlstore.DB
	blobs    *blobstore.Store
	keys     *sqlstore.APIKeyService
	batchs   *sqlstore.BatchService
	datasets *dataset.Service
	domains  *sqlstore.DomainService
	research *research.Service
	liveness *sqlstore.LivenessService
	seeds    *sqlstore.SeedService
	// seedChecks checks active seeds; nil without an outbound fetcher.
	seedChecks *seedcheck.Service
	metadata   *metasync.Service
	queue      *jobs.Queue
}

// openApp opens the database (applying migrations), the object store, the
// services and the queue, with every processor registered, so serve and
// worker run the same jobs. fc is the outbound client the liveness and
// contract processors fetch through; without one (commands and tests that
// run no outbound work) neither is registered, so those batches are
// refused with not_implemented rather than queued for nobody. The caller
// closes it.
func openApp(ctx context.Context, c *Config, log *slog.Logger, fc *fetch.Client) (*app, error) {
	db, err := openDatabase(ctx, c, log)
	if err != nil {
		return nil, err
	}
	a := &app{log: log, db: db}
	if a.blobs, err = blobstore.Open(ctx, c.BlobURL); err != nil {
		a.close()
		return nil, settingError("blob-url", "open object store", err)
	}
	// A store that answers but refuses (credentials, region, no such
	// bucket) is a setting to fix: stop now, not at the first job. One that
	// does not answer may come back: readiness reports it meanwhile.
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	err = a.blobs.Check(cctx)
	cancel()
	if err != nil {
		if !outage.Is(err) {
			a.close()
			return nil, usageError{fmt.Errorf("--blob-url: the object store refused: %v", err)}
		}
		log.Warn("object store not reachable at start; jobs that need it retry until it is", "event", "blob_unavailable", "err", err)
	}
	classifier, err := newClassifier(c)
	if err != nil {
		a.close()
		return nil, err
	}
	a.keys = sqlstore.NewAPIKeyService(db)
	a.batchs = sqlstore.NewBatchService(db)
	index := sqlstore.NewDatasetIndex(db)
	a.datasets = dataset.New(dataset.Objects(a.blobs), index, log)
	// Saves of up to --max-dataset-bytes are staged on disk while they are
	// validated; under the data directory, not in a /tmp that may be RAM.
	if c.DataDir != "" {
		a.datasets.TempDir = filepath.Join(c.DataDir, "tmp")
		if err := os.MkdirAll(a.datasets.TempDir, 0o700); err != nil {
			a.close()
			return nil, settingError("data-dir", "create the staging directory", err)
		}
	}
	a.domains = sqlstore.NewDomainService(db)
	a.research = research.New(a.datasets, a.domains, index, classifier, log)
	a.queue, err = jobs.New(db.Writer(), string(db.Engine()), a.batchs, jobs.Config{
		Workers:              c.Workers,
		DomainWorkers:        c.DomainWorkers,
		SeedCheckWorkers:     c.SeedCheckWorkers,
		PollInterval:         c.QueuePollInterval,
		MaxAttempts:          c.MaxAttempts,
		JobTimeout:           c.JobTimeout,
		RescueStuckJobsAfter: c.JobRescueAfter,
		DeadProcessAfter:     c.DeadProcessAfter,
		InsertOnly:           c.Workers == 0,
		Logger:               log,
		ReadDB:               db.Reader(),
	})
	if err != nil {
		a.close()
		return nil, fmt.Errorf("create queue: %w", err)
	}
	a.queue.Register(seedengine.BatchResearch, research.ChunkProcessor(a.research))
	a.liveness = sqlstore.NewLivenessService(db)
	if fc != nil {
		prober := liveness.New(fc, liveness.Config{})
		a.queue.Register(seedengine.BatchLiveness, liveness.ChunkProcessor(prober, classifier, a.liveness, a.blobs))
		// Once a batch finishes, its per-chunk JSONL parts are merged into
		// one {batch}.jsonl.
		a.queue.RegisterFinisher(seedengine.BatchLiveness, liveness.Finisher(a.blobs))
	}
	a.seeds = sqlstore.NewSeedService(db)
	if fc != nil {
		d := contract.New(fc, contract.Config{MaxRequests: c.ContractMaxRequests, Deadline: c.ContractDeadline})
		a.queue.Register(seedengine.BatchContract, contract.ChunkProcessor(d, a.seeds, a.blobs))
		collector := orchestrate.NewCollector(fc, a.blobs, orchestrate.CollectorConfig{}, log)
		a.queue.Register(seedengine.BatchOrchestration, orchestrate.ChunkProcessor(a.blobs, classifier, collector, log))
		a.queue.RegisterFinisher(seedengine.BatchOrchestration, orchestrate.Finisher(a.blobs, a.batchs))
		a.seedChecks = seedcheck.NewService(a.seeds, seedcheck.NewChecker(fc, nil), seedcheck.Config{
			MinInterval: c.SeedCheckMinInterval, MaxInterval: c.SeedCheckMaxInterval,
			Retention: c.SeedCheckRetention, Logger: log,
			// A seed turning moved, gone, failing or stale gets a contract
			// run of its domain, whose finding becomes a proposed version.
			Batches: a.queue,
		})
		a.queue.RegisterSeedChecks(a.seedChecks, c.SeedCheckInterval)
		a.queue.RegisterSeedDrift(a.seedChecks.Drift)
	}
	if c.AlertWebhookURL != "" {
		// Health changes queue their alert as they are recorded.
		a.queue.SetAlertWebhook(jobs.AlertWebhook{URL: c.AlertWebhookURL, Secret: c.AlertWebhookSecret, ConsoleURL: c.PublicURL})
	}

	metaStore := a.queue.MetadataTasks(sqlstore.NewMetadataService(db))
	var syncer *metasync.Syncer
	if c.MetadataGitURL != "" {
		if syncer, err = metasync.NewSyncer(c.gitConfig(), log); err != nil {
			a.close()
			return nil, settingError("metadata-git-url", "metadata sync", err)
		}
	}
	a.metadata = metasync.NewService(metaStore, syncer, version(), c.MetadataSyncDebounce, log)
	every := c.MetadataSyncInterval
	if syncer == nil {
		every = 0 // nothing to push to
	}
	a.queue.RegisterMetadata(a.metadata, every)
	if syncer != nil {
		// A finished research batch changes the snapshot: request a sync,
		// which batches finishing close together share.
		a.queue.RegisterFinisher(seedengine.BatchResearch, func(ctx context.Context, b *seedengine.Batch) error {
			_, _, err := a.metadata.TriggerMetadataSync(ctx, seedengine.TriggerBatchCompleted)
			return err
		})
	}
	return a, nil
}

// newClassifier builds the URL classifier: the embedded authority rules,
// extended by the operator's file when --authority-rules names one.
func newClassifier(c *Config) (*discover.Classifier, error) {
	if c.AuthorityRules == "" {
		return discover.DefaultClassifier(), nil
	}
	f, err := os.Open(c.AuthorityRules)
	if err != nil {
		return nil, usageError{fmt.Errorf("--authority-rules: %v", err)}
	}
	defer f.Close()
	cl, err := discover.NewClassifier(f)
	if err != nil {
		return nil, usageError{fmt.Errorf("--authority-rules: %s: %v", c.AuthorityRules, err)}
	}
	return cl, nil
}

func (a *app) close() {
	if a.blobs != nil {
		if err := a.blobs.Close(); err != nil {
			a.log.Error("close object store", "event", "close_failed", "err", err)
		}
	}
	if a.db != nil {
		if err := a.db.Close(); err != nil {
			a.log.Error("close database", "event", "close_failed", "err", err)
		}
	}
}

const serveSummary = `Run the HTTP API and the job workers in one process. Migrations are applied
at start. SIGINT or SIGTERM stops accepting requests, lets in-flight requests
and jobs finish (up to --shutdown-timeout) and exits; jobs still running then
are released and run again later.`

const workerSummary = `Run the job workers only, against the same database and object store as
serve, to spread the work over more machines.`

// runServe runs serve (API and workers) or, without withAPI, worker.
func runServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, withAPI bool) error {
	name, summary, groups := "worker", workerSummary, groupStore|groupQueue|groupDiscover|groupFetch
	if withAPI {
		name, summary, groups = "serve", serveSummary, groupStore|groupServer|groupQueue|groupDiscover|groupFetch
	}
	var recordSettings bool
	c, rest, err := parseCommand(name, summary, groups, args, getenv, stdout, func(fs *flag.FlagSet) {
		fs.BoolVar(&recordSettings, "record-settings", false,
			"make this process's shared settings (job timeouts, metadata remote, fetch settings: docs/deploy.md) the deployment's; the others must then match")
	})
	if err != nil {
		return err
	}
	if err := noArgs(name, rest); err != nil {
		return err
	}
	if !withAPI && c.Workers == 0 {
		return usageError{errors.New("--workers: 0 leaves a worker nothing to do; serve --workers 0 is the API-only process")}
	}
	log := newLogger(c, stderr)
	log.Info("starting", append([]any{"event", "config", "command", name, "version", version(), "commit", commit(), "go_version", runtime.Version()}, c.logAttrs()...)...)
	start := time.Now()

	// The outbound client is built at start so that a bad CA file or
	// connect-to entry stops the program now rather than at the first
	// fetch. The liveness processor probes through it.
	fc, err := fetch.New(c.fetchConfig(log))
	if err != nil {
		return usageError{fmt.Errorf("outbound fetch settings: %v", err)}
	}
	defer fc.Close()

	a, err := openApp(ctx, c, log, fc)
	if err != nil {
		return err
	}
	defer a.close()
	// An API-only serve checks too: the jobs it enqueues carry its
	// max-attempts, and it answers for the metadata remote.
	if err := checkDeployment(ctx, a.db, c, recordSettings, log); err != nil {
		return err
	}

	var srv *http.Server
	var ln net.Listener
	if withAPI {
		n, err := a.keys.CountActiveAPIKeys(ctx)
		if err != nil {
			return fmt.Errorf("count API keys: %w", err)
		}
		if n == 0 && !isLoopbackAddr(c.Addr) {
			return usageError{fmt.Errorf("--addr: %s is not a loopback address and no API key exists; create one with `seedengine apikey create --name NAME --scope admin` or listen on 127.0.0.1", c.Addr)}
		}
		if n == 0 && len(c.trustedProxies) > 0 {
			return usageError{errors.New("--trusted-proxies: a proxy serves other machines' clients, and no API key exists; create one with `seedengine apikey create --name NAME --scope admin`")}
		}
		if n == 0 {
			log.Warn("no API keys: the API is open to anyone who can reach the loopback address", "event", "auth_open")
		}
		// The console calls the API on its users' behalf, and the API
		// serves the console's pages: one is built with a late-bound
		// reference to the other.
		var con *console.Console
		consoleHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { con.ServeHTTP(w, r) })
		api := httpapi.New(httpapi.Config{
			Logger:          log,
			Version:         version(),
			Commit:          commit(),
			GoVersion:       runtime.Version(),
			Environment:     c.Environment,
			MaxBodyBytes:    c.MaxBodyBytes,
			MaxDatasetBytes: c.MaxDatasetBytes,
			RateLimit:       c.RateLimit,
			RateBurst:       c.RateBurst,
			Categories:      knownCategories,
			// Revoking the last key must not open a server that others can reach.
			RequireKeys:    !isLoopbackAddr(c.Addr) || len(c.trustedProxies) > 0,
			TrustedProxies: c.trustedProxies,
		}, httpapi.Deps{
			APIKeys:    a.keys,
			Batches:    a.queue.Batches(),
			QueueStats: a.queue,
			Datasets:   research.RegisteringDatasets(a.datasets, a.research),
			Research:   a.research,
			Domains:    a.domains,
			Liveness:   a.liveness,
			Seeds:      a.seeds,
			SeedChecks: a.seeds,
			// A check asked for through the API runs on any working
			// process; the job's worker is registered everywhere.
			SeedCheckQueue: a.queue,
			Objects:        dataset.Objects(a.blobs),
			Console:        consoleHandler,
			DeadLetters:    a.queue,
			Metadata:       a.metadata,
			MetadataSync:   a.metadata,
			Checks: map[string]seedengine.Checker{
				"database":     seedengine.CheckerFunc(a.db.Check),
				"object_store": seedengine.CheckerFunc(a.blobs.Check),
				"queue":        seedengine.CheckerFunc(a.queue.Check),
			},
		})
		queueUI, err := a.queue.UIHandler("/console/queue/")
		if err != nil {
			return err
		}
		con = console.New(console.Config{Version: version(), Logger: log}, console.Deps{
			API:      api,
			Keys:     a.keys,
			Sessions: sqlstore.NewConsoleSessionService(a.db),
			QueueUI:  queueUI,
		})
		ln, err = net.Listen("tcp", c.Addr)
		if err != nil {
			return fmt.Errorf("--addr: %w", err)
		}
		srv = &http.Server{
			Handler:           api.Handler(),
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       2 * time.Minute,
			WriteTimeout:      5 * time.Minute,
			IdleTimeout:       2 * time.Minute,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		}
	}

	// The queue outlives ctx: a signal must stop it gracefully through Stop,
	// not cancel the jobs in flight.
	if err := a.queue.Start(context.WithoutCancel(ctx)); err != nil {
		if ln != nil {
			ln.Close()
		}
		return fmt.Errorf("start queue: %w", err)
	}

	serveErr := make(chan error, 1)
	if srv != nil {
		go func() { serveErr <- srv.Serve(ln) }()
		log.Info("listening", "event", "http_listening", "addr", ln.Addr().String(), "startup_ms", time.Since(start).Milliseconds())
	} else {
		log.Info("workers running", "event", "worker_started", "workers", c.Workers, "startup_ms", time.Since(start).Milliseconds())
	}

	var runErr error
	select {
	case <-ctx.Done():
		log.Info("shutting down", "event", "shutdown_started", "timeout", c.ShutdownTimeout.String())
	case err := <-serveErr:
		runErr = fmt.Errorf("http server: %w", err)
	}

	// The HTTP server and the queue stop side by side, each with the whole
	// grace period: slow requests must not use up the time in-flight jobs
	// have to finish.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), c.ShutdownTimeout)
	defer cancel()
	var wg sync.WaitGroup
	if srv != nil {
		wg.Go(func() {
			if err := srv.Shutdown(shutdownCtx); err != nil {
				log.Error("http shutdown", "event", "shutdown_http_failed", "err", err)
			}
		})
	}
	wg.Go(func() {
		if err := a.queue.Stop(shutdownCtx); err != nil {
			log.Error("queue stop", "event", "shutdown_queue_failed", "err", err)
		}
	})
	wg.Wait()
	log.Info("stopped", "event", "shutdown_complete")
	return runErr
}

const migrateSummary = `Apply the database migrations (the queue's and the service's) and exit.
serve and worker apply them at start too; migrate is for deployments that
run them as a separate step.`

func runMigrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c, rest, err := parseCommand("migrate", migrateSummary, groupStore, args, getenv, stdout)
	if err != nil {
		return err
	}
	if err := noArgs("migrate", rest); err != nil {
		return err
	}
	log := newLogger(c, stderr)
	db, err := openDatabase(ctx, c, log)
	if err != nil {
		return err
	}
	defer db.Close()
	log.Info("migrations applied", "event", "migrated", "engine", string(db.Engine()))
	fmt.Fprintln(stdout, "migrations applied")
	return nil
}
