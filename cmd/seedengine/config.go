package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/httpapi"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/metasync"
)

// envPrefix prefixes the environment variable of every setting: --data-dir
// is SEEDENGINE_DATA_DIR.
const envPrefix = "SEEDENGINE_"

// Config is every setting of the program, read once here and copied onto the
// adapters by the wiring in main.go. Zero values are never used: defaults are
// set by the flag definitions.
type Config struct {
	Addr        string
	MetricsAddr string
	DataDir     string
	DatabaseURL string
	DBWait      time.Duration
	DBMaxConns  int
	BlobURL     string
	LogFormat   string
	LogLevel    string
	Environment string

	ShutdownTimeout time.Duration

	// HTTP API.
	MaxBodyBytes    int64
	MaxDatasetBytes int64
	RateLimit       float64
	RateBurst       int
	TrustedProxies  listFlag
	trustedProxies  []netip.Prefix // TrustedProxies parsed by finish
	AllowedHosts    listFlag
	allowedHosts    []string // AllowedHosts checked by finish

	// Queue.
	Workers         int
	DomainWorkers   int
	LivenessWorkers int

	SeedCheckInterval    time.Duration
	SeedCheckWorkers     int
	SeedCheckMinInterval time.Duration
	SeedCheckMaxInterval time.Duration
	SeedCheckRetention   time.Duration
	Retention            time.Duration
	JobRetention         time.Duration
	HarvestMinInterval   time.Duration
	HarvestDedupeWindow  time.Duration
	ItemFlushInterval    time.Duration
	PageWorkers          int
	ArticleWorkers       int
	WARCMaxBytes         int64
	WARCMaxAge           time.Duration
	ItemFileAge          time.Duration
	ItemFileMaxItems     int
	AlertWebhookURL      string
	AlertWebhookSecret   string
	PublicURL            string
	QueuePollInterval    time.Duration
	JobTimeout           time.Duration
	JobRescueAfter       time.Duration
	DeadProcessAfter     time.Duration
	MaxAttempts          int

	// Discovery.
	AuthorityRules string

	// Metadata sync.
	MetadataGitURL         string
	MetadataGitBranch      string
	MetadataGitPath        string
	MetadataGitToken       string
	MetadataGitAuthorName  string
	MetadataGitAuthorEmail string
	MetadataSyncInterval   time.Duration
	MetadataSyncDebounce   time.Duration

	// Outbound fetching.
	DNSServer            string
	ConnectTo            listFlag
	ExtraCAFile          string
	AllowPrivateNetworks listFlag
	UserAgentContact     string
	FetchConcurrency     int
	PerHostDelay         time.Duration
	ContractMaxRequests  int
	ContractDeadline     time.Duration
	allowNetworks        []netip.Prefix // AllowPrivateNetworks parsed by finish
	AllowPorts           listFlag
	allowPorts           []int // AllowPorts parsed by finish

	flags   *flag.FlagSet   // the parsed flags, pointing at the fields above
	secrets map[string]bool // flag names whose values are redacted
	known   map[string]bool // flag names that are settings, not command flags
}

// settingGroup selects which settings a subcommand takes.
type settingGroup int

const (
	groupStore    settingGroup = 1 << iota // data dir, database, blob store, logging
	groupServer                            // HTTP listener and API limits
	groupQueue                             // job workers
	groupDiscover                          // URL classification: serve, worker, upload
	groupFetch                             // the outbound client: serve, worker
	groupOps                               // worker's metrics and health listener
)

// setting describes one flag and its environment variable.
type setting struct {
	name   string
	usage  string
	group  settingGroup
	secret bool // redacted in logs; may also be read from $ENV_FILE
	define func(fs *flag.FlagSet, c *Config, name, usage string)
}

func stringSetting(name, def, usage string, g settingGroup, field func(*Config) *string) setting {
	return setting{name: name, usage: usage, group: g, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.StringVar(field(c), n, def, u)
	}}
}

// settings lists every setting. The defaults here are the embedded set-up:
// SQLite and a local directory under ./data, listening on loopback.
var settings = []setting{
	stringSetting("data-dir", "./data", "directory for the embedded database, object store and staged dataset uploads (tmp/)", groupStore, func(c *Config) *string { return &c.DataDir }),
	func() setting {
		s := stringSetting("database-url", "", "database: postgres://… for PostgreSQL; default: SQLite file <data-dir>/seedengine.db", groupStore, func(c *Config) *string { return &c.DatabaseURL })
		s.secret = true
		return s
	}(),
	{name: "db-wait", usage: "how long to wait at start for a PostgreSQL database that does not answer yet (booting, failing over), retrying with back-off; 0s: fail at once", group: groupStore, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.DBWait, n, 2*time.Minute, u)
	}},
	{name: "db-max-conns", usage: "PostgreSQL connections this process may hold (River, the API and the workers share them); keep the sum over all processes under the server's max_connections", group: groupStore, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.IntVar(&c.DBMaxConns, n, 40, u)
	}},
	stringSetting("blob-url", "", "object store: file:///dir, s3://bucket?endpoint=…&use_path_style=true, mem://; default: file://<data-dir>/objects", groupStore, func(c *Config) *string { return &c.BlobURL }),
	stringSetting("log-format", "text", "log format: json or text", groupStore, func(c *Config) *string { return &c.LogFormat }),
	stringSetting("log-level", "info", "log level: debug, info, warn or error", groupStore, func(c *Config) *string { return &c.LogLevel }),
	stringSetting("addr", "127.0.0.1:8080", "HTTP listen address; without API keys only a loopback address is allowed", groupServer, func(c *Config) *string { return &c.Addr }),
	stringSetting("metrics-addr", "", "listen address of this worker's /metrics, /health/live and /health/ready (open, like serve's: bind an internal address); empty: none", groupOps, func(c *Config) *string { return &c.MetricsAddr }),
	stringSetting("environment", "development", "deployment environment name reported by GET /", groupServer, func(c *Config) *string { return &c.Environment }),
	{name: "max-body-bytes", usage: "largest accepted request body in bytes", group: groupServer, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.Int64Var(&c.MaxBodyBytes, n, 16<<20, u)
	}},
	{name: "max-dataset-bytes", usage: "largest raw dataset accepted by a dataset save, in bytes (streamed to disk, not held in memory)", group: groupServer, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.Int64Var(&c.MaxDatasetBytes, n, 512<<20, u)
	}},
	{name: "rate-limit", usage: "requests per second allowed per API key (per client address without a key)", group: groupServer, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.Float64Var(&c.RateLimit, n, 100, u)
	}},
	{name: "rate-burst", usage: "burst size of the per-key rate limit", group: groupServer, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.IntVar(&c.RateBurst, n, 200, u)
	}},
	{name: "trusted-proxies", usage: "CIDRs of the reverse proxies in front of serve: their X-Forwarded-For and X-Forwarded-Proto are believed (client address, HTTPS for the console's cookies), and API keys are then always required; repeatable or comma-separated", group: groupServer, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.Var(&c.TrustedProxies, n, u)
	}},
	{name: "allowed-hosts", usage: "host names (or addresses, *.example.org, or * for any) the API answers for besides loopback names: without keys only loopback names and these are answered (against DNS rebinding), with keys these when set; other names get 421; repeatable or comma-separated", group: groupServer, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.Var(&c.AllowedHosts, n, u)
	}},
	{name: "shutdown-timeout", usage: "how long to wait for requests and in-flight jobs on SIGINT/SIGTERM", group: groupServer | groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.ShutdownTimeout, n, 30*time.Second, u)
	}},
	{name: "workers", usage: "concurrent job workers (batch chunks, file jobs); serve --workers 0 serves the API only and leaves the jobs to worker processes", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.IntVar(&c.Workers, n, 50, u)
	}},
	{name: "liveness-workers", usage: "concurrent liveness chunks (mostly waiting on slow and dead hosts, so many; their probes share --fetch-concurrency)", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.IntVar(&c.LivenessWorkers, n, 200, u)
	}},
	{name: "domain-workers", usage: "concurrent seed orchestration domain jobs (mostly waiting on politeness, so many)", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.IntVar(&c.DomainWorkers, n, 1500, u)
	}},
	{name: "seed-check-interval", usage: "how often the checks of active and suspended seeds that are due are queued; 0s turns seed checks off", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.SeedCheckInterval, n, 15*time.Second, u)
	}},
	{name: "seed-check-workers", usage: "concurrent seed checks (each one request, within the per-host politeness)", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.IntVar(&c.SeedCheckWorkers, n, 50, u)
	}},
	{name: "seed-check-min-interval", usage: "shortest time between two checks of an active seed, whatever its schedule", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.SeedCheckMinInterval, n, time.Hour, u)
	}},
	{name: "seed-check-max-interval", usage: "longest time between two checks of an active seed, whatever its schedule", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.SeedCheckMaxInterval, n, 24*time.Hour, u)
	}},
	{name: "seed-check-retention", usage: "how long seed checks are kept", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.SeedCheckRetention, n, 90*24*time.Hour, u)
	}},
	{name: "retention", usage: "how long finished batches (with their chunks and liveness results, each domain's latest kept forever), finished metadata sync tasks and dead-letter jobs are kept", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.Retention, n, 30*24*time.Hour, u)
	}},
	{name: "job-retention", usage: "how long the queue keeps completed and cancelled jobs (River's cleaner deletes them after)", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.JobRetention, n, 24*time.Hour, u)
	}},
	{name: "harvest-min-interval", usage: "shortest time between two reads of an active feed or sitemap seed, whose pace follows its publisher's (docs/harvest.md); the longest is --seed-check-max-interval", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.HarvestMinInterval, n, 30*time.Second, u)
	}},
	{name: "harvest-dedupe-window", usage: "an article URL is an item once; listed again after this long unseen, it is an item again", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.HarvestDedupeWindow, n, 30*24*time.Hour, u)
	}},
	{name: "item-flush-interval", usage: "how often harvested items that are due are written to their files; 0s turns it off", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.ItemFlushInterval, n, time.Minute, u)
	}},
	{name: "item-file-age", usage: "longest an item waits for its file (a partition's items are written when the oldest waiting is older)", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.ItemFileAge, n, 15*time.Minute, u)
	}},
	{name: "item-file-max-items", usage: "most items in one item file", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.IntVar(&c.ItemFileMaxItems, n, 50_000, u)
	}},
	{name: "page-workers", usage: "page jobs (seeds with harvest.pages) in hand at once in this process, each waiting for its host's turn or fetching; 0: this process fetches no pages", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.IntVar(&c.PageWorkers, n, jobs.DefaultPageWorkers, u)
	}},
	{name: "article-workers", usage: "article extractions (each stored page read as an article) run at once in this process; 0: this process extracts none", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.IntVar(&c.ArticleWorkers, n, jobs.DefaultArticleWorkers, u)
	}},
	{name: "warc-max-bytes", usage: "a WARC file of fetched pages is stored once it is this big (bytes)", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.Int64Var(&c.WARCMaxBytes, n, 1<<30, u)
	}},
	{name: "warc-max-age", usage: "a WARC file of fetched pages is stored this long after it was opened", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.WARCMaxAge, n, 10*time.Minute, u)
	}},
	func() setting {
		s := stringSetting("alert-webhook-url", "", "URL that receives one JSON POST per seed health change (retried for about a day); empty: no alerts", groupQueue, func(c *Config) *string { return &c.AlertWebhookURL })
		s.secret = true // it may carry a token
		return s
	}(),
	func() setting {
		s := stringSetting("alert-webhook-secret", "", "signs each alert: X-Seedengine-Signature: sha256=<HMAC-SHA256 of the body>", groupQueue, func(c *Config) *string { return &c.AlertWebhookSecret })
		s.secret = true
		return s
	}(),
	stringSetting("public-url", "", "the URL people reach this service at (https://seeds.example.org); alerts link to the console there", groupQueue, func(c *Config) *string { return &c.PublicURL }),
	{name: "queue-poll-interval", usage: "how often workers poll the database for new jobs; 0 (the default) is 2s where an insert wakes the workers (SQLite, PostgreSQL with LISTEN) and 100ms elsewhere", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.QueuePollInterval, n, 0, u)
	}},
	{name: "job-timeout", usage: "longest a single job may run", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.JobTimeout, n, 10*time.Minute, u)
	}},
	{name: "job-rescue-after", usage: "when a job left running by a dead worker is retried (at least --job-timeout)", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.JobRescueAfter, n, 15*time.Minute, u)
	}},
	{name: "dead-process-after", usage: "how old a worker process's heartbeat may grow before it is taken for dead and its running jobs run again elsewhere", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.DeadProcessAfter, n, time.Minute, u)
	}},
	{name: "max-attempts", usage: "attempts per job before it is given up", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.IntVar(&c.MaxAttempts, n, 5, u)
	}},
	stringSetting("dns-server", "", "DNS server (host:port) for every outbound lookup; default: the system resolver", groupFetch, func(c *Config) *string { return &c.DNSServer }),
	{name: "connect-to", usage: "reroute outbound connections like curl --connect-to: HOST:PORT:ADDR:PORT, empty host or port meaning any; repeatable, comma-separated in the environment", group: groupFetch, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.Var(&c.ConnectTo, n, u)
	}},
	stringSetting("extra-ca-file", "", "PEM file of CA certificates trusted for outbound TLS besides the system roots", groupFetch, func(c *Config) *string { return &c.ExtraCAFile }),
	{name: "allow-private-networks", usage: "CIDRs of private or special networks outbound fetches may reach (refused by default); repeatable or comma-separated", group: groupFetch, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.Var(&c.AllowPrivateNetworks, n, u)
	}},
	{name: "allow-ports", usage: "ports outbound fetches may reach besides 80, 443 and the port of the URL asked for (a redirect or an article link to any other is refused); repeatable or comma-separated", group: groupFetch, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.Var(&c.AllowPorts, n, u)
	}},
	stringSetting("user-agent-contact", fetch.DefaultUserAgentContact, "contact URL in the User-Agent: seedengine/<version> (+<contact>)", groupFetch, func(c *Config) *string { return &c.UserAgentContact }),
	{name: "fetch-concurrency", usage: "outbound requests in flight at once, over all hosts", group: groupFetch, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.IntVar(&c.FetchConcurrency, n, fetch.DefaultConcurrency, u)
	}},
	{name: "per-host-delay", usage: "minimum time between two requests to one host; 0s turns it off (robots Crawl-delay still applies)", group: groupFetch, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.PerHostDelay, n, fetch.DefaultPerHostDelay, u)
	}},
	{name: "contract-max-requests", usage: "hard limit of HTTP requests per domain in a contract run (redirect hops and retries count)", group: groupFetch, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.IntVar(&c.ContractMaxRequests, n, 40, u)
	}},
	{name: "contract-deadline", usage: "hard limit of time per domain in a contract run", group: groupFetch, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.ContractDeadline, n, 30*time.Second, u)
	}},
	func() setting {
		s := stringSetting("metadata-git-url", "", "git remote the metadata snapshot is pushed to (https://…, or file:///… with the git binary); empty: no push sync", groupQueue, func(c *Config) *string { return &c.MetadataGitURL })
		s.secret = true // it may carry credentials
		return s
	}(),
	stringSetting("metadata-git-branch", "main", "branch of the metadata remote", groupQueue, func(c *Config) *string { return &c.MetadataGitBranch }),
	stringSetting("metadata-git-path", "metadata/snapshot.json", "path of the snapshot in the metadata repository", groupQueue, func(c *Config) *string { return &c.MetadataGitPath }),
	func() setting {
		s := stringSetting("metadata-git-token", "", "token for an HTTPS metadata remote (sent as basic auth, user x-access-token)", groupQueue, func(c *Config) *string { return &c.MetadataGitToken })
		s.secret = true
		return s
	}(),
	stringSetting("metadata-git-author-name", "seedengine", "author name of metadata commits", groupQueue, func(c *Config) *string { return &c.MetadataGitAuthorName }),
	stringSetting("metadata-git-author-email", "seedengine@localhost", "author email of metadata commits", groupQueue, func(c *Config) *string { return &c.MetadataGitAuthorEmail }),
	{name: "metadata-sync-interval", usage: "how often a metadata sync is scheduled when a remote is configured; 0s turns the schedule off", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.MetadataSyncInterval, n, 6*time.Hour, u)
	}},
	{name: "metadata-sync-debounce", usage: "how long a sync requested by a finished research batch waits, so batches finishing together share one sync", group: groupQueue, define: func(fs *flag.FlagSet, c *Config, n, u string) {
		fs.DurationVar(&c.MetadataSyncDebounce, n, 30*time.Second, u)
	}},
	stringSetting("authority-rules", "", "JSON file of authority rules (the format of internal/discover/rules.json) that add to or replace the built-in rows", groupDiscover, func(c *Config) *string { return &c.AuthorityRules }),
}

// envName returns the environment variable of a flag.
func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// errHelp is returned by parseConfig when help was asked for and printed.
var errHelp = errors.New("help requested")

// parseConfig parses args for a subcommand that takes the settings in groups,
// filling what the command line leaves unset from the environment. Every
// error is one line that names the setting.
// The optional extra function defines flags of the command's own, which have
// no environment variable.
func parseConfig(cmd, summary string, groups settingGroup, args []string, getenv func(string) string, stdout io.Writer, extra func(*flag.FlagSet)) (*Config, []string, error) {
	c := &Config{}
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	secrets, known := map[string]bool{}, map[string]bool{}
	for _, s := range settings {
		if s.group&groups == 0 {
			continue
		}
		s.define(fs, c, s.name, fmt.Sprintf("%s (env %s)", s.usage, envName(s.name)))
		known[s.name] = true
		if s.secret {
			secrets[s.name] = true
		}
	}
	if extra != nil {
		extra(fs)
	}
	fs.Usage = func() { printUsage(stdout, cmd, summary, fs) }
	// Flags may come before or after positional arguments
	// ("apikey revoke NAME --data-dir D"); "--" ends the flags.
	var positional, afterDash []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, afterDash = args[:i], args[i+1:]
	}
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, nil, errHelp // fs.Parse printed the usage
			}
			return nil, nil, fmt.Errorf("%s: %v", cmd, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
	positional = append(positional, afterDash...)
	explicit := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		if envErr != nil || explicit[f.Name] || !known[f.Name] {
			return
		}
		env := envName(f.Name)
		v, ok := lookup(getenv, env)
		if secrets[f.Name] {
			if path, fok := lookup(getenv, env+"_FILE"); fok {
				b, err := os.ReadFile(path)
				if err != nil {
					envErr = fmt.Errorf("%s_FILE: %v", env, err)
					return
				}
				v, ok = strings.TrimSpace(string(b)), true
			}
		}
		if !ok {
			return
		}
		if err := f.Value.Set(v); err != nil {
			envErr = fmt.Errorf("invalid value %q for %s: %v", redactIf(secrets[f.Name], v), env, unwrapFlagErr(err))
		}
	})
	if envErr != nil {
		return nil, nil, envErr
	}
	if err := c.finish(groups); err != nil {
		return nil, nil, err
	}
	c.flags, c.secrets, c.known = fs, secrets, known
	return c, positional, nil
}

func lookup(getenv func(string) string, name string) (string, bool) {
	v := getenv(name)
	return v, v != ""
}

func unwrapFlagErr(err error) error {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		return ne.Err
	}
	return err
}

func redactIf(secret bool, v string) string {
	if secret {
		return "[redacted]"
	}
	return v
}

// finish validates the parsed values and derives the defaults that depend
// on other settings.
func (c *Config) finish(groups settingGroup) error {
	if groups&groupStore != 0 {
		if c.DataDir == "" {
			return errors.New("--data-dir must not be empty")
		}
		abs, err := filepath.Abs(c.DataDir)
		if err != nil {
			return fmt.Errorf("--data-dir: %v", err)
		}
		c.DataDir = abs
		if c.DatabaseURL == "" {
			c.DatabaseURL = "sqlite:" + filepath.Join(c.DataDir, "seedengine.db")
		}
		if c.DBMaxConns < 2 || c.DBMaxConns > 1000 {
			return fmt.Errorf("--db-max-conns: %d must be from 2 to 1000", c.DBMaxConns)
		}
		if c.DBWait < 0 {
			return fmt.Errorf("--db-wait: %v must not be negative", c.DBWait)
		}
		if err := validateDatabaseURL(c.DatabaseURL); err != nil {
			return fmt.Errorf("--database-url: %v", err)
		}
		if c.BlobURL == "" {
			c.BlobURL = "file://" + filepath.ToSlash(filepath.Join(c.DataDir, "objects"))
		}
		if err := validateBlobURL(c.BlobURL); err != nil {
			return fmt.Errorf("--blob-url: %v", err)
		}
		switch c.LogFormat {
		case "json", "text":
		default:
			return fmt.Errorf("--log-format: %q must be json or text", c.LogFormat)
		}
		switch c.LogLevel {
		case "debug", "info", "warn", "error":
		default:
			return fmt.Errorf("--log-level: %q must be debug, info, warn or error", c.LogLevel)
		}
	}
	if groups&groupServer != 0 {
		if _, port, err := net.SplitHostPort(c.Addr); err != nil {
			return fmt.Errorf("--addr: %q must be host:port", c.Addr)
		} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
			return fmt.Errorf("--addr: port %q must be a number from 0 to 65535", port)
		}
		if c.MaxBodyBytes < 1024 {
			return fmt.Errorf("--max-body-bytes: %d must be at least 1024", c.MaxBodyBytes)
		}
		if c.MaxDatasetBytes < 1024 {
			return fmt.Errorf("--max-dataset-bytes: %d must be at least 1024", c.MaxDatasetBytes)
		}
		if c.RateLimit <= 0 {
			return fmt.Errorf("--rate-limit: %v must be positive", c.RateLimit)
		}
		if c.RateBurst < 1 {
			return fmt.Errorf("--rate-burst: %d must be at least 1", c.RateBurst)
		}
		c.trustedProxies = nil
		for _, cidr := range c.TrustedProxies {
			p, err := netip.ParsePrefix(cidr)
			if err != nil {
				if a, aerr := netip.ParseAddr(cidr); aerr == nil {
					p = netip.PrefixFrom(a, a.BitLen())
				} else {
					return fmt.Errorf("--trusted-proxies: %q is not an address or a CIDR such as 10.0.0.0/8", cidr)
				}
			}
			c.trustedProxies = append(c.trustedProxies, p.Masked())
		}
		c.allowedHosts = nil
		for _, h := range c.AllowedHosts {
			name, err := httpapi.ValidAllowedHost(h)
			if err != nil {
				return fmt.Errorf("--allowed-hosts: %s", seedengine.ErrorMessage(err))
			}
			c.allowedHosts = append(c.allowedHosts, name)
		}
	}
	if groups&groupOps != 0 && c.MetricsAddr != "" {
		if _, port, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			return fmt.Errorf("--metrics-addr: %q must be host:port", c.MetricsAddr)
		} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
			return fmt.Errorf("--metrics-addr: port %q must be a number from 0 to 65535", port)
		}
	}
	if groups&(groupServer|groupQueue) != 0 && c.ShutdownTimeout <= 0 {
		return fmt.Errorf("--shutdown-timeout: %v must be positive", c.ShutdownTimeout)
	}
	if groups&groupQueue != 0 {
		if c.Workers < 0 || c.Workers > 10000 {
			return fmt.Errorf("--workers: %d must be from 0 (serve: API only) to 10000", c.Workers)
		}
		if c.LivenessWorkers < 1 || c.LivenessWorkers > 10000 {
			return fmt.Errorf("--liveness-workers: %d must be from 1 to 10000", c.LivenessWorkers)
		}
		if c.DomainWorkers < 1 || c.DomainWorkers > 10000 {
			return fmt.Errorf("--domain-workers: %d must be from 1 to 10000", c.DomainWorkers)
		}
		if c.SeedCheckInterval != 0 && (c.SeedCheckInterval < time.Second || c.SeedCheckInterval > time.Hour) {
			return fmt.Errorf("--seed-check-interval: %v must be 0s (off) or from 1s to 1h", c.SeedCheckInterval)
		}
		if c.SeedCheckWorkers < 1 || c.SeedCheckWorkers > 10000 {
			return fmt.Errorf("--seed-check-workers: %d must be from 1 to 10000", c.SeedCheckWorkers)
		}
		if c.SeedCheckMinInterval < time.Minute {
			return fmt.Errorf("--seed-check-min-interval: %v must be at least 1m", c.SeedCheckMinInterval)
		}
		if c.SeedCheckMaxInterval < c.SeedCheckMinInterval || c.SeedCheckMaxInterval > 30*24*time.Hour {
			return fmt.Errorf("--seed-check-max-interval: %v must be from --seed-check-min-interval (%v) to 720h", c.SeedCheckMaxInterval, c.SeedCheckMinInterval)
		}
		if c.Retention < 24*time.Hour {
			return fmt.Errorf("--retention: %v must be at least 24h", c.Retention)
		}
		if c.JobRetention < time.Hour {
			return fmt.Errorf("--job-retention: %v must be at least 1h", c.JobRetention)
		}
		if c.SeedCheckRetention < 24*time.Hour {
			return fmt.Errorf("--seed-check-retention: %v must be at least 24h", c.SeedCheckRetention)
		}
		if c.HarvestMinInterval < time.Second || c.HarvestMinInterval > c.SeedCheckMaxInterval {
			return fmt.Errorf("--harvest-min-interval: %v must be from 1s to --seed-check-max-interval (%v)", c.HarvestMinInterval, c.SeedCheckMaxInterval)
		}
		if c.HarvestDedupeWindow < time.Hour {
			return fmt.Errorf("--harvest-dedupe-window: %v must be at least 1h", c.HarvestDedupeWindow)
		}
		if c.ItemFlushInterval != 0 && (c.ItemFlushInterval < time.Second || c.ItemFlushInterval > time.Hour) {
			return fmt.Errorf("--item-flush-interval: %v must be 0s (off) or from 1s to 1h", c.ItemFlushInterval)
		}
		if c.ItemFileAge < time.Second || c.ItemFileAge > 24*time.Hour {
			return fmt.Errorf("--item-file-age: %v must be from 1s to 24h", c.ItemFileAge)
		}
		if c.ItemFileMaxItems < 1 || c.ItemFileMaxItems > 1_000_000 {
			return fmt.Errorf("--item-file-max-items: %d must be from 1 to 1000000", c.ItemFileMaxItems)
		}
		if c.PageWorkers < 0 || c.PageWorkers > 10000 {
			return fmt.Errorf("--page-workers: %d must be from 0 (none) to 10000", c.PageWorkers)
		}
		if c.ArticleWorkers < 0 || c.ArticleWorkers > 64 {
			return fmt.Errorf("--article-workers: %d must be from 0 (none) to 64", c.ArticleWorkers)
		}
		if c.WARCMaxBytes < 1<<20 || c.WARCMaxBytes > 16<<30 {
			return fmt.Errorf("--warc-max-bytes: %d must be from 1 MiB to 16 GiB", c.WARCMaxBytes)
		}
		if c.WARCMaxAge < time.Second || c.WARCMaxAge > 24*time.Hour {
			return fmt.Errorf("--warc-max-age: %v must be from 1s to 24h", c.WARCMaxAge)
		}
		for _, u := range []struct{ name, v string }{{"alert-webhook-url", c.AlertWebhookURL}, {"public-url", c.PublicURL}} {
			if u.v == "" {
				continue
			}
			if p, err := url.Parse(u.v); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
				return fmt.Errorf("--%s: must be an http:// or https:// URL", u.name)
			}
		}
		if c.MetadataSyncInterval != 0 && c.MetadataSyncInterval < time.Minute {
			return fmt.Errorf("--metadata-sync-interval: %v must be 0s (off) or at least 1m", c.MetadataSyncInterval)
		}
		if c.MetadataSyncDebounce < 0 || c.MetadataSyncDebounce > time.Hour {
			return fmt.Errorf("--metadata-sync-debounce: %v must be from 0s to 1h", c.MetadataSyncDebounce)
		}
		if c.MetadataGitURL != "" {
			if err := c.gitConfig().Validate(); err != nil {
				return fmt.Errorf("--%s: %s", seedengine.ErrorField(err), seedengine.ErrorMessage(err))
			}
		}
		if c.QueuePollInterval != 0 && c.QueuePollInterval < time.Millisecond {
			return fmt.Errorf("--queue-poll-interval: %v must be 0 (automatic) or at least 1ms", c.QueuePollInterval)
		}
		if c.JobTimeout <= 0 {
			return fmt.Errorf("--job-timeout: %v must be positive", c.JobTimeout)
		}
		if c.JobRescueAfter < c.JobTimeout {
			return fmt.Errorf("--job-rescue-after: %v must be at least --job-timeout (%v)", c.JobRescueAfter, c.JobTimeout)
		}
		if c.DeadProcessAfter < 30*time.Second {
			return fmt.Errorf("--dead-process-after: %v must be at least 30s (three heartbeats)", c.DeadProcessAfter)
		}
		if c.MaxAttempts < 1 || c.MaxAttempts > 100 {
			return fmt.Errorf("--max-attempts: %d must be from 1 to 100", c.MaxAttempts)
		}
	}
	if groups&groupFetch != 0 {
		return c.finishFetch()
	}
	return nil
}

// finishFetch validates the outbound client's settings; fetch.New checks
// them again when the client is built, with the CA file read.
func (c *Config) finishFetch() error {
	if c.DNSServer != "" {
		if _, _, err := net.SplitHostPort(c.DNSServer); err != nil {
			if ip, perr := netip.ParseAddr(c.DNSServer); perr != nil || !ip.IsValid() {
				return fmt.Errorf("--dns-server: %q must be host:port or an IP address", c.DNSServer)
			}
		}
	}
	for _, e := range c.ConnectTo {
		if _, err := fetch.ParseConnectTo(e); err != nil {
			return fmt.Errorf("--connect-to: %v", err)
		}
	}
	if c.ExtraCAFile != "" {
		if _, err := os.Stat(c.ExtraCAFile); err != nil {
			return fmt.Errorf("--extra-ca-file: %v", err)
		}
	}
	c.allowNetworks = nil
	for _, cidr := range c.AllowPrivateNetworks {
		p, err := netip.ParsePrefix(cidr)
		if err != nil {
			return fmt.Errorf("--allow-private-networks: %q is not a CIDR such as 10.0.0.0/8", cidr)
		}
		c.allowNetworks = append(c.allowNetworks, p.Masked())
	}
	c.allowPorts = nil
	for _, p := range c.AllowPorts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("--allow-ports: %q is not a port from 1 to 65535", p)
		}
		c.allowPorts = append(c.allowPorts, n)
	}
	if u, err := url.Parse(c.UserAgentContact); err != nil || (u.Scheme != "https" && u.Scheme != "http" && u.Scheme != "mailto") || (u.Host == "" && u.Opaque == "") {
		return fmt.Errorf("--user-agent-contact: %q must be an absolute http(s) or mailto URL", c.UserAgentContact)
	}
	if c.FetchConcurrency < 1 || c.FetchConcurrency > 10000 {
		return fmt.Errorf("--fetch-concurrency: %d must be from 1 to 10000", c.FetchConcurrency)
	}
	if c.PerHostDelay < 0 {
		return fmt.Errorf("--per-host-delay: %v must not be negative", c.PerHostDelay)
	}
	if c.ContractMaxRequests < 1 || c.ContractMaxRequests > 1000 {
		return fmt.Errorf("--contract-max-requests: %d must be from 1 to 1000", c.ContractMaxRequests)
	}
	if c.ContractDeadline < time.Second || c.ContractDeadline > 10*time.Minute {
		return fmt.Errorf("--contract-deadline: %v must be from 1s to 10m", c.ContractDeadline)
	}
	if c.ContractDeadline*2 > c.JobTimeout && c.JobTimeout > 0 {
		return fmt.Errorf("--contract-deadline: %v must be at most half of --job-timeout (%v): a chunk runs its domains side by side, but waits for politeness too", c.ContractDeadline, c.JobTimeout)
	}
	return nil
}

// fetchConfig is the outbound client's configuration.
func (c *Config) fetchConfig(log *slog.Logger) fetch.Config {
	delay := c.PerHostDelay
	if delay == 0 {
		delay = fetch.NoPerHostDelay // fetch reads 0 as "the default"
	}
	return fetch.Config{
		UserAgentContact: c.UserAgentContact,
		Version:          seedengine.Version,
		Concurrency:      c.FetchConcurrency,
		PerHostDelay:     delay,
		DNSServer:        c.DNSServer,
		ConnectTo:        c.ConnectTo,
		ExtraCAFile:      c.ExtraCAFile,
		AllowNetworks:    c.allowNetworks,
		AllowPorts:       c.allowPorts,
		Logger:           log,
	}
}

// listFlag is a repeatable flag whose values may also be given
// comma-separated, as its environment variable must.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*l = append(*l, part)
		}
	}
	return nil
}

// validateDatabaseURL catches a wrong engine early; the form of each URL is
// checked by sqlstore.Open, whose refusal is reported against the setting
// too.
func validateDatabaseURL(s string) error {
	scheme, _, ok := strings.Cut(s, "://")
	if !ok {
		scheme, _, _ = strings.Cut(s, ":")
		if scheme != "sqlite" && scheme != "file" {
			return nil // a bare SQLite file path
		}
	}
	switch scheme {
	case "postgres", "postgresql", "sqlite", "file":
		return nil
	}
	return fmt.Errorf("%q must be postgres://…, postgresql://…, sqlite:PATH or a file path", redactURL(s))
}

func validateBlobURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%q is not a URL", s)
	}
	switch u.Scheme {
	case "file":
		if u.Path == "" {
			return errors.New("file:// needs an absolute directory path")
		}
	case "s3":
		if u.Host == "" {
			return errors.New("s3:// needs a bucket name")
		}
	case "mem":
	default:
		return fmt.Errorf("scheme %q must be file, s3 or mem", u.Scheme)
	}
	return nil
}

// redactURL hides the credentials of a URL: the password in its user
// information or in a password query parameter (pgx accepts both), and a
// user name given alone (a git host reads a token there).
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "[unparsable URL redacted]"
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		} else {
			u.User = url.User("xxxxx")
		}
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// logAttrs returns the effective configuration for the start-up log line,
// with secrets redacted, in flag-name order.
func (c *Config) logAttrs() []any {
	var attrs []any
	c.flags.VisitAll(func(f *flag.Flag) {
		if !c.known[f.Name] {
			return
		}
		v := f.Value.String()
		switch {
		case !c.secrets[f.Name] || v == "":
		case strings.Contains(v, "://"):
			v = redactURL(v)
		default:
			v = "[redacted]" // a token, or a URL too odd to show
		}
		attrs = append(attrs, strings.ReplaceAll(f.Name, "-", "_"), v)
	})
	return attrs
}

// isLoopbackAddr reports whether a listen address only accepts connections
// from this machine.
func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func printUsage(w io.Writer, cmd, summary string, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: seedengine %s [flags]\n\n%s\n", cmd, summary)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "\nFlags (each also read from its environment variable):\n")
	fs.VisitAll(func(f *flag.Flag) {
		def := ""
		if f.DefValue != "" {
			def = fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "  --%s\n        %s%s\n", f.Name, f.Usage, def)
	})
}

// gitConfig is the metadata sync's git configuration; the clone lives in
// <data-dir>/metadata-git.
func (c *Config) gitConfig() metasync.GitConfig {
	return metasync.GitConfig{
		URL:         c.MetadataGitURL,
		Branch:      c.MetadataGitBranch,
		Path:        c.MetadataGitPath,
		Token:       c.MetadataGitToken,
		AuthorName:  c.MetadataGitAuthorName,
		AuthorEmail: c.MetadataGitAuthorEmail,
		WorkDir:     filepath.Join(c.DataDir, "metadata-git"),
	}
}
