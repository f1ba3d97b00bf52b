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
	"github.com/seedengine/seedengine/internal/app"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/console"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/discover"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/harvest"
	"github.com/seedengine/seedengine/internal/httpapi"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/liveness"
	"github.com/seedengine/seedengine/internal/metasync"
	"github.com/seedengine/seedengine/internal/outage"
	"github.com/seedengine/seedengine/internal/pages"
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

// process is the application this command runs (internal/app) with the
// logger it closes its stores with.
type process struct {
	*app.App
	log *slog.Logger
}

// openApp opens the database (applying migrations) and the object store
// and wires the application on them (internal/app), with every processor
// registered, so serve and worker run the same jobs. fc is the outbound
// client the liveness, contract, orchestration and seed-check work fetches
// through; without one (commands and tests that run no outbound work) none
// of it is registered, so those batches are refused with not_implemented
// rather than queued for nobody. The caller closes it.
func openApp(ctx context.Context, c *Config, log *slog.Logger, fc *fetch.Client) (*process, error) {
	db, err := openDatabase(ctx, c, log)
	if err != nil {
		return nil, err
	}
	p := &process{App: &app.App{DB: db}, log: log}
	blobs, err := blobstore.Open(ctx, c.BlobURL)
	if err != nil {
		p.close()
		return nil, settingError("blob-url", "open object store", err)
	}
	p.Blobs = blobs
	// A store that answers but refuses (credentials, region, no such
	// bucket) is a setting to fix: stop now, not at the first job. One that
	// does not answer may come back: readiness reports it meanwhile.
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	err = blobs.Check(cctx)
	cancel()
	if err != nil {
		if !outage.Is(err) {
			p.close()
			return nil, usageError{fmt.Errorf("--blob-url: the object store refused: %v", err)}
		}
		log.Warn("object store not reachable at start; jobs that need it retry until it is", "event", "blob_unavailable", "err", err)
	}
	classifier, err := newClassifier(c)
	if err != nil {
		p.close()
		return nil, err
	}
	cfg := app.Config{
		DB: db, Blobs: blobs, Logger: log, Classifier: classifier,
		Queue: jobs.Config{
			Workers:              c.Workers,
			DomainWorkers:        c.DomainWorkers,
			LivenessWorkers:      c.LivenessWorkers,
			SeedCheckWorkers:     c.SeedCheckWorkers,
			PageWorkers:          pageWorkers(c),
			ArticleWorkers:       noneIsMinusOne(c.ArticleWorkers),
			PollInterval:         c.QueuePollInterval,
			MaxAttempts:          c.MaxAttempts,
			JobTimeout:           c.JobTimeout,
			RescueStuckJobsAfter: c.JobRescueAfter,
			DeadProcessAfter:     c.DeadProcessAfter,
			InsertOnly:           c.Workers == 0,
			JobRetention:         c.JobRetention,
			DeadLetterRetention:  c.Retention,
		},
		SeedChecks: seedcheck.Config{
			MinInterval: c.SeedCheckMinInterval, MaxInterval: c.SeedCheckMaxInterval, Retention: c.SeedCheckRetention,
			// A read is due at most a round late: the pace asks half a round
			// early, on average right.
			Pace: harvest.PaceConfig{Min: c.HarvestMinInterval, Max: c.SeedCheckMaxInterval, Lag: c.SeedCheckInterval / 2},
		},
		SeedCheckInterval: c.SeedCheckInterval,
		Items: harvest.FlushConfig{
			Age: c.ItemFileAge, MaxItems: c.ItemFileMaxItems, Window: c.HarvestDedupeWindow,
		},
		ItemFlushInterval:    c.ItemFlushInterval,
		PageSweepInterval:    10 * time.Minute,
		ArticleSweepInterval: 10 * time.Minute,
		Retention:            c.Retention,
		RetentionInterval:    time.Hour,
		MetadataDebounce:     c.MetadataSyncDebounce,
		MetadataInterval:     c.MetadataSyncInterval,
		Version:              version(),
	}
	// Saves of up to --max-dataset-bytes are staged on disk while they are
	// validated; under the data directory, not in a /tmp that may be RAM.
	if c.DataDir != "" {
		cfg.StagingDir = filepath.Join(c.DataDir, "tmp")
		if err := os.MkdirAll(cfg.StagingDir, 0o700); err != nil {
			p.close()
			return nil, settingError("data-dir", "create the staging directory", err)
		}
	}
	if fc != nil {
		cfg.Prober = liveness.New(fc, liveness.Config{})
		cfg.Contract = contract.New(fc, contract.Config{MaxRequests: c.ContractMaxRequests, Deadline: c.ContractDeadline})
		cfg.Collect = fc
		cfg.SeedCheck = fc
		if c.PageWorkers > 0 && c.Workers > 0 {
			// Pages are spooled on local disk until their WARC file is
			// stored: under the data directory, or the system's
			// temporary one without it.
			dir := filepath.Join(os.TempDir(), "seedengine-spool")
			if c.DataDir != "" {
				dir = filepath.Join(c.DataDir, "spool")
			}
			cfg.PageFetch = fc
			cfg.Pages = pages.Config{Dir: dir, MaxFileBytes: c.WARCMaxBytes, MaxFileAge: c.WARCMaxAge}
		}
	}
	if c.AlertWebhookURL != "" {
		cfg.Alerts = &jobs.AlertWebhook{URL: c.AlertWebhookURL, Secret: c.AlertWebhookSecret, ConsoleURL: c.PublicURL}
	}
	if c.MetadataGitURL != "" {
		if cfg.MetadataSyncer, err = metasync.NewSyncer(c.gitConfig(), log); err != nil {
			p.close()
			return nil, settingError("metadata-git-url", "metadata sync", err)
		}
	}
	a, err := app.New(cfg)
	if err != nil {
		p.close()
		return nil, err
	}
	p.App = a
	return p, nil
}

// pageWorkers is the queue's page workers: none (-1) when this process
// fetches no pages.
func pageWorkers(c *Config) int { return noneIsMinusOne(c.PageWorkers) }

// noneIsMinusOne turns a flag's 0 (none) into the queue's -1 (its 0 is
// the default).
func noneIsMinusOne(n int) int {
	if n == 0 {
		return -1
	}
	return n
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

func (p *process) close() {
	if p.Blobs != nil {
		if err := p.Blobs.Close(); err != nil {
			p.log.Error("close object store", "event", "close_failed", "err", err)
		}
	}
	if p.DB != nil {
		if err := p.DB.Close(); err != nil {
			p.log.Error("close database", "event", "close_failed", "err", err)
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
	name, summary, groups := "worker", workerSummary, groupStore|groupQueue|groupDiscover|groupFetch|groupOps
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
	if err := checkDeployment(ctx, a.DB, c, recordSettings, log); err != nil {
		return err
	}

	var srv *http.Server
	var ln net.Listener
	if withAPI {
		n, err := a.Keys.CountActiveAPIKeys(ctx)
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
			AllowedHosts:   c.allowedHosts,
		}, func() httpapi.Deps {
			d := a.Deps()
			d.Console = consoleHandler
			d.Collectors = append(d.Collectors, fc.Collector())
			return d
		}())

		queueUI, err := a.Queue.UIHandler("/console/queue/")
		if err != nil {
			return err
		}
		con = console.New(console.Config{Version: version(), Logger: log}, console.Deps{
			API:      api,
			Keys:     a.Keys,
			Sessions: sqlstore.NewConsoleSessionService(a.DB),
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
	} else if c.MetricsAddr != "" {
		// A worker's own /metrics and health: the API's open routes,
		// nothing else.
		deps := a.Deps()
		deps.Collectors = append(deps.Collectors, fc.Collector())
		// Any Host: these routes hold counts and health, which a
		// Prometheus server scrapes by whatever name it knows the
		// worker under; there is no API behind them to rebind to.
		api := httpapi.New(httpapi.Config{Logger: log, Version: version(), Commit: commit(), GoVersion: runtime.Version(),
			Environment: c.Environment, AllowedHosts: []string{"*"}}, deps)
		ops := http.NewServeMux()
		for _, p := range []string{"GET /metrics", "GET /health/live", "GET /health/ready"} {
			ops.Handle(p, api.Handler())
		}
		ln, err = net.Listen("tcp", c.MetricsAddr)
		if err != nil {
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		if !isLoopbackAddr(c.MetricsAddr) {
			// Open routes, as on serve: no key is asked for.
			log.Warn("metrics and health are served without keys to anyone who can reach this address",
				"event", "metrics_open", "addr", ln.Addr().String())
		}
		srv = &http.Server{
			Handler:           ops,
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       time.Minute,
			WriteTimeout:      time.Minute,
			IdleTimeout:       2 * time.Minute,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		}
	}

	// Page spool files a stopped process left are stored before any new
	// fetch writes one.
	if err := a.RecoverPages(ctx); err != nil {
		if ln != nil {
			ln.Close()
		}
		return fmt.Errorf("recover page spool: %w", err)
	}
	// The queue outlives ctx: a signal must stop it gracefully through Stop,
	// not cancel the jobs in flight.
	if err := a.Queue.Start(context.WithoutCancel(ctx)); err != nil {
		if ln != nil {
			ln.Close()
		}
		return fmt.Errorf("start queue: %w", err)
	}

	// Due WARC files are stored every quarter of their age limit, and
	// every open one once the queue has stopped.
	rollCtx, stopRolling := context.WithCancel(context.WithoutCancel(ctx))
	defer stopRolling()
	rolled := make(chan struct{})
	go func() {
		defer close(rolled)
		a.RollPages(rollCtx, max(c.WARCMaxAge/4, time.Second))
	}()

	serveErr := make(chan error, 1)
	if srv != nil {
		go func() { serveErr <- srv.Serve(ln) }()
	}
	if withAPI {
		log.Info("listening", "event", "http_listening", "addr", ln.Addr().String(), "startup_ms", time.Since(start).Milliseconds())
	} else {
		attrs := []any{"event", "worker_started", "workers", c.Workers, "startup_ms", time.Since(start).Milliseconds()}
		if ln != nil {
			attrs = append(attrs, "metrics_addr", ln.Addr().String())
		}
		log.Info("workers running", attrs...)
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
		if err := a.Queue.Stop(shutdownCtx); err != nil {
			log.Error("queue stop", "event", "shutdown_queue_failed", "err", err)
		}
		// The page fetches have stopped: store the open WARC files.
		stopRolling()
		<-rolled
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
