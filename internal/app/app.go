// Package app wires seedengine once: the stores, the services on them and
// the queue with the registry of batch kinds. cmd/seedengine runs it
// (serve and worker alike) and the whole-application flow tests, in this
// package, build the same application, so the two cannot drift apart.
//
// The caller opens the database and the object store and says what
// outbound work this process can do; app builds the rest.
package app

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/article"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/dataset"
	"github.com/seedengine/seedengine/internal/discover"
	"github.com/seedengine/seedengine/internal/harvest"
	"github.com/seedengine/seedengine/internal/httpapi"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/liveness"
	"github.com/seedengine/seedengine/internal/metasync"
	"github.com/seedengine/seedengine/internal/orchestrate"
	"github.com/seedengine/seedengine/internal/pages"
	"github.com/seedengine/seedengine/internal/research"
	"github.com/seedengine/seedengine/internal/seedcheck"
	"github.com/seedengine/seedengine/internal/seedimport"
	"github.com/seedengine/seedengine/internal/sqlstore"
)

// Config is what New wires. DB and Blobs are required.
type Config struct {
	DB     *sqlstore.DB
	Blobs  *blobstore.Store
	Logger *slog.Logger // nil: discard
	// Classifier classifies URLs; nil: discover.DefaultClassifier().
	Classifier *discover.Classifier
	// Queue configures the job queue; its Logger and ReadDB default to
	// Logger and DB.Reader().
	Queue jobs.Config
	// StagingDir holds dataset saves while they are validated; "": the
	// system's temporary directory.
	StagingDir string

	// The outbound work this process can do. Each nil leaves its batches
	// refused with not_implemented rather than queued for nobody.

	// Prober probes domains for liveness batches.
	Prober liveness.DomainProber
	// Contract runs the contract search of contract batches.
	Contract contract.Runner
	// Collect fetches for the orchestration's domain collector.
	Collect orchestrate.Fetcher
	// SeedCheck fetches the entries of active seeds for seed checks,
	// queued every SeedCheckInterval (0: none scheduled, checks asked for
	// through the API still run).
	SeedCheck         seedcheck.Fetcher
	SeedChecks        seedcheck.Config
	SeedCheckInterval time.Duration

	// Alerts, when set, receives seed health changes.
	Alerts *jobs.AlertWebhook

	// PageFetch fetches the pages of the items of seeds with harvest.pages
	// into WARC files (Pages sets the spool and the files' limits); nil:
	// this process fetches no pages (other processes may).
	PageFetch pages.Fetch
	Pages     pages.Config
	// Retention is how long finished batches (their chunks and liveness
	// results but each domain's latest) and finished metadata tasks are
	// kept; RetentionInterval how often the leader prunes them (0: never).
	Retention         time.Duration
	RetentionInterval time.Duration
	// PageSweepInterval is how often pages lost with their spool are
	// queued again (0: never).
	PageSweepInterval time.Duration
	// ArticleSweepInterval is how often stored pages with no article and
	// no extraction job are queued for one (0: never).
	ArticleSweepInterval time.Duration

	// Items configures the item files the harvest writes; they are
	// written every ItemFlushInterval (0: not scheduled).
	Items             harvest.FlushConfig
	ItemFlushInterval time.Duration

	// MetadataSyncer pushes the metadata snapshot to git; nil: no sync,
	// so no schedule and no sync after research batches.
	MetadataSyncer   *metasync.Syncer
	MetadataDebounce time.Duration
	MetadataInterval time.Duration
	Version          string

	// WrapResearchWriter, when set, wraps what research writes raw chunks
	// through (tests inject faults with it).
	WrapResearchWriter func(research.DatasetWriter) research.DatasetWriter
}

// App is the wired application.
type App struct {
	DB       *sqlstore.DB
	Blobs    *blobstore.Store
	Keys     *sqlstore.APIKeyService
	Batches  *sqlstore.BatchService
	Datasets *dataset.Service
	Domains  *sqlstore.DomainService
	Research *research.Service
	Liveness *sqlstore.LivenessService
	Seeds    *sqlstore.SeedService
	// SeedChecks checks active seeds; nil without Config.SeedCheck.
	SeedChecks *seedcheck.Service
	// Items are the harvested items; ItemFiles writes their files.
	Items     *sqlstore.ItemService
	ItemFiles *harvest.Flusher
	// Pages reads pages and WARC files; PageFetcher fetches pages (nil
	// without Config.PageFetch: call its Recover before the queue starts,
	// Roll every so often, Close at the end).
	Pages       *sqlstore.PageService
	PageFetcher *pages.Fetcher
	// Articles are the stored pages' articles; ArticleFiles writes their
	// JSON Lines files and ArticleParquet their Parquet files (both run
	// with the item files' flush).
	Articles       *sqlstore.ArticleService
	ArticleFiles   *harvest.Flusher
	ArticleParquet *article.Compactor
	Metadata       *metasync.Service
	Queue          *jobs.Queue

	classifier *discover.Classifier
	log        *slog.Logger
}

// New builds the services and the queue, declaring every batch kind with
// the processor this process has for it (nil for what cfg gives it no
// means to run), and registers the rest of the work it can do. The queue
// is not started.
func New(cfg Config) (*App, error) {
	if cfg.DB == nil || cfg.Blobs == nil {
		return nil, seedengine.Errorf(seedengine.EINVALID, "app needs a database and an object store")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	classifier := cfg.Classifier
	if classifier == nil {
		classifier = discover.DefaultClassifier()
	}
	db, blobs := cfg.DB, cfg.Blobs
	a := &App{DB: db, Blobs: blobs, classifier: classifier, log: log}
	a.Keys = sqlstore.NewAPIKeyService(db)
	a.Batches = sqlstore.NewBatchService(db)
	index := sqlstore.NewDatasetIndex(db)
	a.Datasets = dataset.New(blobs, index, log)
	a.Datasets.TempDir = cfg.StagingDir
	a.Domains = sqlstore.NewDomainService(db)
	var w research.DatasetWriter = a.Datasets
	if cfg.WrapResearchWriter != nil {
		w = cfg.WrapResearchWriter(w)
	}
	a.Research = research.New(w, a.Domains, index, classifier, log)
	a.Liveness = sqlstore.NewLivenessService(db)
	a.Seeds = sqlstore.NewSeedService(db)
	a.Items = sqlstore.NewItemService(db)

	qc := cfg.Queue
	if qc.Logger == nil {
		qc.Logger = log
	}
	if qc.ReadDB == nil {
		qc.ReadDB = db.Reader()
	}
	if qc.Notified == nil {
		qc.Notified = db.Notified()
	}
	if qc.Listener == nil {
		l, err := db.Listener()
		if err != nil {
			return nil, err
		}
		qc.Listener = l
	}
	// What this process lacks (a prober, a contract runner, a collector's
	// fetcher) leaves its kind's processor nil: the kind's jobs are known
	// but not run here.
	var live, contracts, orchestration, imports jobs.ChunkProcessor
	if cfg.Prober != nil {
		live = liveness.ChunkProcessor(cfg.Prober, classifier, a.Liveness, blobs)
	}
	if cfg.Contract != nil {
		contracts = contract.ChunkProcessor(cfg.Contract, a.Seeds, blobs)
		if ex, ok := cfg.Contract.(seedimport.Examiner); ok {
			imports = seedimport.ChunkProcessor(seedimport.Deps{Examiner: ex, Seeds: a.Seeds, Research: a.Research, Objects: blobs})
		}
	}
	if cfg.Collect != nil {
		collector := orchestrate.NewCollector(cfg.Collect, blobs, orchestrate.CollectorConfig{}, log)
		orchestration = orchestrate.ChunkProcessor(blobs, classifier, collector, log)
	}
	var err error
	a.Queue, err = jobs.New(db.Writer(), string(db.Engine()), a.Batches, qc,
		// The registry of batch kinds, one line each: the job type its
		// service declares and the processor of its chunks.
		jobs.Batch[research.ChunkJob](seedengine.BatchResearch, research.ChunkProcessor(a.Research)),
		jobs.Batch[liveness.ChunkJob](seedengine.BatchLiveness, live, jobs.Step[liveness.ChunkJob]("", jobs.QueueLiveness)),
		jobs.Batch[contract.ChunkJob](seedengine.BatchContract, contracts),
		jobs.Batch[seedimport.ChunkJob](seedengine.BatchImport, imports),
		jobs.Batch[orchestrate.FileJob](seedengine.BatchOrchestration, orchestration,
			jobs.Step[orchestrate.DomainJob](seedengine.StepDomain, jobs.QueueDomains)), // domain jobs on their own River queue
	)
	if err != nil {
		return nil, fmt.Errorf("create queue: %w", err)
	}
	q := a.Queue

	// Finishers run once a batch has its final status.
	if live != nil {
		// The per-chunk JSONL parts become one {batch}.jsonl.
		q.RegisterFinisher(seedengine.BatchLiveness, liveness.Finisher(blobs))
	}
	if orchestration != nil {
		q.RegisterFinisher(seedengine.BatchOrchestration, orchestrate.Finisher(blobs, a.Batches))
	}

	if cfg.SeedCheck != nil {
		sc := cfg.SeedChecks
		if sc.Logger == nil {
			sc.Logger = log
		}
		// A seed turning moved, gone, failing or stale gets a contract run
		// of its domain, whose finding becomes a proposed version.
		sc.Batches = q
		a.SeedChecks = seedcheck.NewService(a.Seeds, seedcheck.NewChecker(cfg.SeedCheck, sc.Now), sc)
		q.RegisterSeedChecks(a.SeedChecks, cfg.SeedCheckInterval)
		q.RegisterSeedDrift(a.SeedChecks.Drift)
	}
	if cfg.Alerts != nil {
		// Health changes queue their alert as they are recorded.
		q.SetAlertWebhook(*cfg.Alerts)
	}
	ic := cfg.Items
	if ic.Logger == nil {
		ic.Logger = log
	}
	if ic.Forget == nil {
		ic.Forget = a.Items.DeleteSeenBefore
	}
	a.ItemFiles = harvest.NewFlusher(a.Items.Files(), blobs, ic)

	a.Pages = sqlstore.NewPageService(db)
	// Every page stored gets its article: the extraction is queued in the
	// transaction that stores the page's file.
	a.Pages.OnStored(q.QueueArticleExtractsTx)
	a.Articles = sqlstore.NewArticleService(db)
	q.RegisterArticles(article.NewExtractor(a.Pages, a.Articles, blobs, log))
	q.RegisterArticleSweep(func(ctx context.Context) (int, error) {
		return a.Articles.QueueMissing(ctx, 100_000, q.QueueArticleExtractsTx)
	}, cfg.ArticleSweepInterval)
	a.ArticleFiles = harvest.NewFlusher(a.Articles.Files(), blobs, harvest.FlushConfig{
		Age: ic.Age, MaxItems: articlesPerFile, Key: layout.ArticleFileKey, What: "article", Logger: ic.Logger, Now: ic.Now})
	a.ArticleParquet = article.NewCompactor(a.Articles, blobs, log)
	q.RegisterItemFlush(flushAll{a.ItemFiles, a.ArticleFiles, a.ArticleParquet}, cfg.ItemFlushInterval)
	// Pages fetched more than six file ages ago (an hour at least) are in
	// a spool that will never be stored: its machine is gone (a live
	// process stores its files within their age). They are fetched again.
	stale := max(time.Hour, 6*cmp.Or(cfg.Pages.MaxFileAge, 10*time.Minute))
	retention := sqlstore.NewRetentionService(db)
	keep := cmp.Or(cfg.Retention, 30*24*time.Hour)
	q.RegisterRetention(func(ctx context.Context) error {
		now := time.Now()
		p, err := retention.Prune(ctx, now.Add(-keep), now)
		if p.Total() > 0 {
			log.Info("pruned what is kept no longer", "event", "retention_pruned", "batches", p.Batches, "batch_chunks", p.BatchChunks,
				"liveness_results", p.LivenessResults, "metadata_tasks", p.MetadataTasks, "console_sessions", p.ConsoleSessions)
		}
		return err
	}, cfg.RetentionInterval)
	q.RegisterPageSweep(func(ctx context.Context) (int, error) {
		ids, err := a.Pages.RequeuePages(ctx, "", time.Now().Add(-stale), 1000, q.QueuePageFetchesTx)
		return len(ids), err
	}, cfg.PageSweepInterval)
	if cfg.PageFetch != nil {
		pc := cfg.Pages
		if pc.Logger == nil {
			pc.Logger = log
		}
		if pc.Leases == 0 {
			pc.Leases = cmp.Or(max(cfg.Queue.PageWorkers, 0), jobs.DefaultPageWorkers)
		}
		if a.PageFetcher, err = pages.New(pc, a.Pages, blobs, cfg.PageFetch); err != nil {
			return nil, err
		}
		q.RegisterPages(a.PageFetcher)
	}

	a.Metadata = metasync.NewService(q.MetadataTasks(sqlstore.NewMetadataService(db)), cfg.MetadataSyncer, cfg.Version, cfg.MetadataDebounce, log)
	every := cfg.MetadataInterval
	if cfg.MetadataSyncer == nil {
		every = 0 // nothing to push to
	}
	q.RegisterMetadata(a.Metadata, every)
	if cfg.MetadataSyncer != nil {
		// A finished research batch changes the snapshot: request a sync,
		// which batches finishing close together share.
		q.RegisterFinisher(seedengine.BatchResearch, func(ctx context.Context, _ *seedengine.Batch) error {
			_, _, err := a.Metadata.TriggerMetadataSync(ctx, seedengine.TriggerBatchCompleted)
			return err
		})
	}
	return a, nil
}

// articlesPerFile is the most articles an article file holds: with their
// text about 5 KB each, a file of 25 MB at most.
const articlesPerFile = 5000

// flushAll is the periodic flush: the item files, then the article files,
// then the Parquet files of days that are over.
type flushAll struct {
	items, articles *harvest.Flusher
	parquet         *article.Compactor
}

// Flush implements jobs.ItemFlusher.
func (f flushAll) Flush(ctx context.Context, all bool) (int, error) {
	n, err := f.items.Flush(ctx, all)
	if err != nil {
		return n, err
	}
	m, err := f.articles.Flush(ctx, all)
	n += m
	if err != nil {
		return n, err
	}
	m, err = f.parquet.Compact(ctx)
	return n + m, err
}

// Prune implements jobs.ItemFlusher.
func (f flushAll) Prune(ctx context.Context) (int64, error) { return f.items.Prune(ctx) }

// RecoverPages stores the page spool files a stopped process left (pages
// whose records a file lost are queued again). Call it before the queue
// starts, when this process fetches pages.
func (a *App) RecoverPages(ctx context.Context) error {
	if a.PageFetcher == nil {
		return nil
	}
	return a.PageFetcher.Recover(ctx, func(ctx context.Context, spool string) error {
		_, err := a.Pages.RequeuePages(ctx, spool, time.Time{}, 0, a.Queue.QueuePageFetchesTx)
		return err
	})
}

// RollPages stores the due page spool files every every until ctx ends,
// then every open one (with a minute to do it). It returns at once when
// this process fetches no pages.
func (a *App) RollPages(ctx context.Context, every time.Duration) {
	if a.PageFetcher == nil {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			end, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			if err := a.PageFetcher.Close(end); err != nil {
				a.log.Error("store the open WARC files", "event", "warc_store_failed", "err", err)
			}
			return
		case <-t.C:
			if err := a.PageFetcher.Roll(ctx, false); err != nil && ctx.Err() == nil {
				a.log.Warn("store due WARC files", "event", "warc_store_failed", "err", err)
			}
		}
	}
}

// Deps are the API's dependencies on this application; the caller adds
// what only it has (the console).
func (a *App) Deps() httpapi.Deps {
	return httpapi.Deps{
		APIKeys:    a.Keys,
		Batches:    a.Queue.Batches(),
		QueueStats: a.Queue,
		Collectors: []prometheus.Collector{a.Queue.Collector()},
		Datasets:   research.RegisteringDatasets(a.Datasets, a.Research),
		Research:   a.Research,
		Domains:    a.Domains,
		Liveness:   a.Liveness,
		Seeds:      a.Seeds,
		Classifier: a.classifier,
		// Contract runs here use the default freshness, so the review
		// judges candidates by the rules that chose them.
		Review:     contract.NewReview(a.Seeds, a.Blobs, contract.Config{}),
		SeedChecks: a.Seeds,
		Items:      a.Items,
		Pages:      a.Pages,
		Articles:   a.Articles,
		Ranges:     a.Blobs,
		// A check asked for through the API runs on any working process;
		// the job's worker is registered everywhere.
		SeedCheckQueue: a.Queue,
		Objects:        a.Blobs,
		DeadLetters:    a.Queue,
		Metadata:       a.Metadata,
		MetadataSync:   a.Metadata,
		Checks: map[string]seedengine.Checker{
			"database":     seedengine.CheckerFunc(a.DB.Check),
			"object_store": seedengine.CheckerFunc(a.Blobs.Check),
			"queue":        seedengine.CheckerFunc(a.Queue.Check),
		},
	}
}
