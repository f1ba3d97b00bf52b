package httpapi

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/discover"
)

// Defaults for the zero values of Config.
const (
	DefaultMaxBodyBytes    = 16 << 20
	DefaultMaxDatasetBytes = 512 << 20
	DefaultRateLimit       = 100
	DefaultRateBurst       = 200
	DefaultReadyTimeout    = 2 * time.Second
)

// Config configures the HTTP API. cmd/seedengine fills it from flags; zero
// fields take the defaults above.
type Config struct {
	Logger *slog.Logger // nil discards logs

	Version     string // defaults to seedengine.Version
	Commit      string // defaults to seedengine.Commit
	GoVersion   string // defaults to runtime.Version()
	Environment string // reported by GET /, e.g. "production"

	// MaxBodyBytes caps request bodies; 10,000-item batches must fit.
	MaxBodyBytes int64

	// MaxDatasetBytes caps the body of a dataset save, which is streamed
	// to disk while it is validated rather than held in memory; raw chunks
	// of 20 MB and more are normal. Default 512 MiB.
	MaxDatasetBytes int64
	// BodyReadTimeout is how long a request body may take to arrive
	// (408 after it); a streamed dataset save gets one more second per
	// 64 KiB that has arrived. Default 30 s.
	BodyReadTimeout time.Duration

	// RateLimit is requests per second per API key, or per client IP for
	// requests without a key; a negative value disables rate limiting.
	RateLimit float64
	RateBurst int

	// Categories are the known category values listed by GET /.
	Categories []string

	// RequireKeys keeps the API closed even when no API key exists. Without
	// it, zero active keys means open access, which cmd/seedengine allows
	// only on loopback; set it on any other listener so that revoking the
	// last key cannot open the API.
	RequireKeys bool

	// ReadyTimeout bounds GET /health/ready: checks still running then
	// count as failed.
	ReadyTimeout time.Duration

	// TrustedProxies are the networks of the reverse proxies in front of
	// the server (TLS termination). A request from one of them is taken to
	// come from the client its X-Forwarded-For names (the nearest address
	// that is not itself a trusted proxy) and, with X-Forwarded-Proto:
	// https, over TLS (IsHTTPS). Headers from any other peer are ignored.
	TrustedProxies []netip.Prefix

	// AllowedHosts are the host names (and addresses) the server answers
	// for besides loopback ones, each as ValidAllowedHost returns it. A
	// server without keys answers only those and loopback names; with
	// keys, the list is enforced when it is not empty (host.go).
	AllowedHosts []string
}

func (c Config) withDefaults() Config {
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Version == "" {
		c.Version = seedengine.Version
	}
	if c.Commit == "" {
		c.Commit = seedengine.Commit
	}
	if c.GoVersion == "" {
		c.GoVersion = runtime.Version()
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.MaxDatasetBytes <= 0 {
		c.MaxDatasetBytes = DefaultMaxDatasetBytes
	}
	if c.BodyReadTimeout <= 0 {
		c.BodyReadTimeout = 30 * time.Second
	}
	if c.RateLimit == 0 {
		c.RateLimit = DefaultRateLimit
	}
	if c.RateBurst <= 0 {
		c.RateBurst = DefaultRateBurst
	}
	if c.ReadyTimeout <= 0 {
		c.ReadyTimeout = DefaultReadyTimeout
	}
	if c.Categories == nil {
		c.Categories = []string{}
	}
	return c
}

// Deps are the services behind the API, wired in cmd/seedengine. A nil
// APIKeys means no key exists (the API is open); a nil QueueStats makes
// queue statistics unavailable.
type Deps struct {
	APIKeys    seedengine.APIKeyService
	Batches    seedengine.BatchService
	QueueStats seedengine.QueueStatsService
	Checks     map[string]seedengine.Checker // readiness checks by name: database, object_store, queue
	Datasets   seedengine.DatasetService
	Research   seedengine.ResearchService
	Domains    seedengine.DomainService
	Liveness   seedengine.LivenessService
	// DeadLetters lists and retries jobs that failed for good (the queue).
	DeadLetters seedengine.DeadLetterService
	// Metadata serves snapshots and sync tasks; MetadataSync queues syncs
	// (both internal/metasync's Service).
	Metadata     seedengine.MetadataService
	MetadataSync seedengine.MetadataSyncer
	Seeds        seedengine.SeedService
	// Classifier places imported entries (country, domain, authority);
	// nil: discover.DefaultClassifier().
	Classifier *discover.Classifier
	// Review weighs a seed's candidates and chooses another (nil: those
	// routes answer 503).
	Review seedengine.SeedReviewService
	// SeedChecks reads seeds' checks and health; SeedCheckQueue queues a
	// check now (nil: the route answers 503).
	SeedChecks     seedengine.SeedCheckService
	SeedCheckQueue seedengine.SeedCheckEnqueuer
	// Items reads the harvested items (nil: the item routes answer 503).
	Items seedengine.ItemService
	// Pages reads items' pages and WARC files; Ranges reads their records
	// back (nil: the page routes answer 503).
	Pages  seedengine.PageService
	Ranges seedengine.ObjectRangeReader
	// Articles reads the stored pages' articles (nil: the article routes
	// answer 503).
	Articles seedengine.ArticleService
	// Objects reads seeds' contract evidence from the object store.
	Objects seedengine.ObjectStore
	// Console serves the operator console under /console/
	// (internal/console); nil answers 404 there.
	Console http.Handler
	// Collectors are this process's own metrics on /metrics (its queue's
	// and its fetcher's), beside the deployment-wide ones read from the
	// database at scrape time.
	Collectors []prometheus.Collector
}

// Server is the HTTP API: the route table registered on a net/http
// ServeMux, with huma for the OpenAPI document and request validation.
type Server struct {
	cfg    Config
	deps   Deps
	logger *slog.Logger

	routes    []*route
	byPattern map[string]*route
	mux       *http.ServeMux
	api       huma.API

	// probe matches paths regardless of method, so an unmatched request
	// can be told apart as 405 (known path) or 404 (unknown path).
	probe   *http.ServeMux
	allowed map[string]string // path pattern → Allow header

	metrics *metrics
	limiter *limiterSet
	keys    *keyCounter
	ids     *idGen

	openapiJSON   []byte // OpenAPI 3.1, as built
	openapi30JSON []byte // the same, downgraded to OpenAPI 3.0.3
	rootJSON      []byte
	versionJSON   []byte // the version as a JSON string, for /health
}

// New builds the API. It panics when the route table is inconsistent, which
// is a programming error found by any test that builds a Server.
func New(cfg Config, deps Deps) *Server {
	useProblemsForHuma()
	cfg = cfg.withDefaults()
	s := &Server{
		cfg:       cfg,
		deps:      deps,
		logger:    cfg.Logger,
		byPattern: map[string]*route{},
		mux:       http.NewServeMux(),
		probe:     http.NewServeMux(),
		allowed:   map[string]string{},
		limiter:   newLimiterSet(cfg.RateLimit, cfg.RateBurst),
		keys:      newKeyCounter(deps.APIKeys, time.Second),
		ids:       newIDGen(),
	}
	collectors := deps.Collectors
	if deps.Articles != nil {
		collectors = append(slices.Clip(collectors), newArticleCollector(deps.Articles, s.logger))
	}
	s.metrics = newMetrics(deps.QueueStats, deps.SeedChecks, deps.Items, collectors, s.logger)
	s.versionJSON, _ = json.Marshal(cfg.Version)

	s.routes = s.routeTable()
	methods := map[string][]string{}
	var paths []string
	for _, rt := range s.routes {
		rt.group, rt.basePath = routeGroup(rt.Path)
		p := rt.muxPattern()
		if s.byPattern[p] != nil {
			panic("httpapi: duplicate route " + p)
		}
		s.byPattern[p] = rt
		mp := rt.muxPath()
		if _, ok := methods[mp]; !ok {
			paths = append(paths, mp)
		}
		methods[mp] = append(methods[mp], rt.Method)
	}
	for _, p := range paths {
		allow := methods[p]
		for _, m := range allow {
			if m == http.MethodGet {
				allow = append(allow, http.MethodHead)
				break
			}
		}
		slices.Sort(allow)
		s.allowed[p] = strings.Join(allow, ", ")
		s.probe.HandleFunc(p, func(http.ResponseWriter, *http.Request) {})
	}

	s.api = humago.New(humaMux{s}, s.humaConfig())
	for _, rt := range s.routes {
		if rt.register != nil {
			rt.register(s.api, s.operation(rt))
			continue
		}
		if rt.plain == nil {
			panic("httpapi: route " + rt.muxPattern() + " has no handler")
		}
		s.mux.Handle(rt.muxPattern(), s.wrap(rt, rt.plain))
		if rt.doc != nil {
			op := s.operation(rt)
			rt.doc(s.api.OpenAPI().Components.Schemas, &op)
			s.api.OpenAPI().AddOperation(&op)
		}
	}
	s.mux.HandleFunc("/", s.handleUnmatched)
	s.finishOpenAPI()
	for _, rt := range s.routes {
		rt.body = requestBodyNode(s.api.OpenAPI(), rt)
		rt.numbers = numberParams(s.api.OpenAPI(), rt)
	}

	var err error
	if s.openapiJSON, err = json.Marshal(s.api.OpenAPI()); err != nil {
		panic(fmt.Sprintf("httpapi: marshal OpenAPI document: %v", err))
	}
	if s.openapi30JSON, err = downgrade(s.api.OpenAPI()); err != nil {
		panic(fmt.Sprintf("httpapi: downgrade OpenAPI document: %v", err))
	}
	if s.rootJSON, err = json.Marshal(s.rootBody()); err != nil {
		panic(fmt.Sprintf("httpapi: marshal root document: %v", err))
	}
	s.rootJSON = append(s.rootJSON, '\n')
	return s
}

// Handler returns the http.Handler serving the whole API.
func (s *Server) Handler() http.Handler { return s }

// Routes returns a copy of the route table, in the order it is declared.
func (s *Server) Routes() []Route {
	out := make([]Route, len(s.routes))
	for i, rt := range s.routes {
		out[i] = rt.Route
	}
	return out
}

func (s *Server) humaConfig() huma.Config {
	c := huma.DefaultConfig("seedengine", s.cfg.Version)
	// The default create hook adds a $schema field and a Link header to
	// every response; clients of this API do not use them (DESIGN §4).
	c.CreateHooks = nil
	// The OpenAPI document and the docs page are routes of our own table,
	// served from bytes built once; huma's would add routes outside it.
	c.OpenAPIPath = ""
	c.DocsPath = ""
	c.SchemasPath = ""
	// A misspelt filter (?stauts=) silently ignored would return the wrong
	// list; reject it instead.
	c.RejectUnknownQueryParameters = true
	c.Info.Description = "seedengine discovers web data sources by country and category (research) " +
		"and decides how to retrieve them (seeds). Errors are RFC 9457 application/problem+json " +
		"with a stable `code`. Authenticate with `Authorization: Bearer <key>`; read, write and admin " +
		"scopes are ordered (admin includes write includes read). Every route that needs a key is rate limited " +
		"per key: over the limit the answer is 429 with `Retry-After`."
	documentServer(&c)
	c.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"bearer": {
			Type:        "http",
			Scheme:      "bearer",
			Description: "An API key created with `seedengine apikey create` or POST /api/v1/keys.",
		},
	}
	return c
}

// humaMux hands huma's registrations to the route table, so every huma
// operation runs behind the same per-route middleware as plain handlers.
type humaMux struct{ s *Server }

func (m humaMux) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	rt := m.s.byPattern[pattern]
	if rt == nil {
		panic("httpapi: huma operation " + pattern + " is not in the route table")
	}
	m.s.mux.Handle(pattern, m.s.wrap(rt, http.HandlerFunc(h)))
}

func (m humaMux) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.s.mux.ServeHTTP(w, r) }
