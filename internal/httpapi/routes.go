package httpapi

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/seedengine/seedengine"
)

// Route describes one endpoint of the HTTP API, as listed by GET / and
// documented in /openapi.json.
type Route struct {
	Method      string
	Path        string           // Go 1.22 ServeMux path pattern, e.g. /api/v1/queues/batch/{batchId}
	Scope       seedengine.Scope // scope an API key needs; "" for open routes
	Summary     string
	OperationID string // OpenAPI operation id, e.g. list-batches
}

// route is a table row: the public description plus how it is served.
// Exactly one of register (a huma operation) and plain (a net/http handler,
// for open routes that must stay cheap or are not JSON) is set.
type route struct {
	Route
	status   int // success status when not 200, for huma and the docs
	register func(huma.API, huma.Operation)
	plain    http.Handler
	doc      func(huma.Registry, *huma.Operation) // OpenAPI for a plain route; nil hides it

	// maxBody overrides Config.MaxBodyBytes for a route that streams big
	// bodies to disk instead of decoding them (dataset saves).
	maxBody int64
	// text lists the media types of a route whose body is a document
	// that is not JSON (a seed import's OPML, CSV or URL list); the body
	// is read whole, within textBodyLimit, and handed over as it came.
	text []string
	// body is the request body's schema as checkBody holds it (from the
	// OpenAPI document, once built).
	body *bodyNode
	// numbers are its query parameters of type number (checkParams).
	numbers []string

	group, basePath string
	metrics         routeMetrics
}

func (rt *route) muxPath() string {
	if rt.Path == "/" {
		return "/{$}" // "/" alone would match every path
	}
	return rt.Path
}

func (rt *route) muxPattern() string { return rt.Method + " " + rt.muxPath() }

const (
	get  = http.MethodGet
	post = http.MethodPost
	put  = http.MethodPut
	pat  = http.MethodPatch
	del  = http.MethodDelete

	read  = seedengine.ScopeRead
	write = seedengine.ScopeWrite
	admin = seedengine.ScopeAdmin
)

// routeTable is every route of the API, in the order GET / lists them. A
// route added anywhere else does not exist: New registers exactly these.
func (s *Server) routeTable() []*route {
	return []*route{
		// Service and health: open, served by plain handlers.
		openRoute(get, "/", "get-root", "Describe the service and its APIs", http.HandlerFunc(s.handleRoot), docJSON[serviceInfo]()),
		openRoute(get, "/health", "get-health", "Report that the process is up", http.HandlerFunc(s.handleHealth), docJSON[healthStatus]()),
		openRoute(get, "/health/ready", "get-health-ready", "Report whether every dependency can serve requests", http.HandlerFunc(s.handleReady), docJSON[readiness](http.StatusServiceUnavailable)),
		openRoute(get, "/health/live", "get-health-live", "Report that the process is alive", http.HandlerFunc(s.handleLive), docJSON[liveStatus]()),
		openRoute(get, "/metrics", "get-metrics", "Prometheus metrics", s.metrics.handler, docText("Prometheus text exposition format.")),
		openRoute(get, "/openapi.json", "get-openapi", "This OpenAPI 3.1 document", http.HandlerFunc(s.handleOpenAPI), nil),
		openRoute(get, "/openapi-3.0.json", "get-openapi-3.0", "This OpenAPI document as OpenAPI 3.0.3, for tools that do not read 3.1", http.HandlerFunc(s.handleOpenAPI30), nil),
		openRoute(get, "/docs", "get-docs", "Interactive API documentation", http.HandlerFunc(s.handleDocs), nil),
		openRoute(get, "/docs/assets/{version}/{file}", "get-docs-asset", "A file of the documentation page's viewer", http.HandlerFunc(s.handleDocsAsset), nil),

		// The operator console (internal/console): pages for people, with
		// a session sign-in of their own; its actions are API requests
		// made on the signed-in key's behalf (ServeAs).
		openRoute(get, "/console/", "console", "The operator console (HTML pages)", http.HandlerFunc(s.handleConsole), nil),
		openRoute(post, "/console/", "console-forms", "The operator console's forms", http.HandlerFunc(s.handleConsole), nil),
		// River UI's API under /console/queue/ pauses and resumes queues.
		openRoute(put, "/console/", "console-put", "The console's queue UI: changes", http.HandlerFunc(s.handleConsole), nil),
		openRoute(pat, "/console/", "console-patch", "The console's queue UI: changes", http.HandlerFunc(s.handleConsole), nil),
		// The console's icon, where browsers look for one on every page
		// (the API's documentation included).
		openRoute(get, "/favicon.ico", "get-favicon", "The console's icon (SVG)", http.HandlerFunc(s.handleConsole), nil),

		// Queues.
		apiRoute(post, "/api/v1/queues/research", write, "enqueue-research", "Queue a research batch of URLs", http.StatusAccepted, handle(s.handleResearchEnqueue)),
		apiRoute(post, "/api/v1/queues/liveness", write, "enqueue-liveness", "Queue a liveness batch of domains", http.StatusAccepted, handle(s.handleLivenessEnqueue)),
		apiRoute(post, "/api/v1/queues/contract", write, "enqueue-contract", "Queue a contract batch of domain_ids, or of a research partition's domains, to find their seed contracts", http.StatusAccepted, handle(s.handleContractEnqueue)),
		apiRoute(get, "/api/v1/queues/batches", read, "list-batches", "List batches, newest first", 0, handle(s.handleBatchList)),
		apiRoute(get, "/api/v1/queues/batch/{batchId}", read, "get-batch", "Get a batch and its progress", 0, handle(s.handleBatchGet)),
		apiRoute(get, "/api/v1/queues/batch/{batchId}/results", read, "list-batch-results", "List the per-domain results of a liveness batch, by verdict", 0, handle(s.handleBatchResults)),
		apiRoute(get, "/api/v1/queues/stats", read, "get-queue-stats", "Count queued jobs by kind and state, and show each kind's throughput over the last minutes", 0, handle(s.handleQueueStats)),
		apiRoute(get, "/api/v1/queues/dead-letters", admin, "list-dead-letters", "List jobs that failed for good, newest first", 0, handle(s.handleDeadLetterList)),
		apiRoute(post, "/api/v1/queues/dead-letters/{id}/retry", admin, "retry-dead-letter", "Queue a failed job again, with its batch chunk", http.StatusAccepted, handle(s.handleDeadLetterRetry)),
		apiRoute(post, "/api/v1/queues/trigger/metadata-sync", admin, "trigger-metadata-sync", "Queue a metadata sync (or join the one queued)", http.StatusAccepted, handle(s.handleMetadataSyncTrigger)),

		// Datasets.
		apiRoute(get, "/api/v1/datasets", read, "list-datasets", "List dataset partitions with chunk, record and byte counts", 0, handle(s.handleDatasetList)),
		apiRoute(get, "/api/v1/datasets/stats", read, "get-dataset-stats", "Count partitions, chunks, records and bytes, by country and category", 0, handle(s.handleDatasetStats)),
		apiRoute(get, "/api/v1/datasets/{country}/{category}/{date}", read, "list-dataset-chunks", "List the chunks of a partition", 0, handle(s.handleDatasetChunks)),
		apiRoute(get, "/api/v1/datasets/{country}/{category}/{date}/{chunk}", read, "get-dataset-chunk", "Download one raw dataset chunk as stored", 0, s.registerChunkGet),
		withBodyLimit(apiRoute(post, "/api/v1/datasets", write, "save-dataset-body", "Save a raw dataset as the next chunk of the partition its meta names", http.StatusCreated, s.registerDatasetSaveBody), s.cfg.MaxDatasetBytes),
		withBodyLimit(apiRoute(post, "/api/v1/datasets/{country}/{category}/{date}", write, "save-dataset", "Save a raw dataset as the partition's next chunk", http.StatusCreated, s.registerDatasetSave), s.cfg.MaxDatasetBytes),
		apiRoute(del, "/api/v1/datasets/{country}/{category}/{date}/{chunk}", admin, "delete-dataset-chunk", "Delete one raw dataset chunk and its checkpoint", http.StatusNoContent, handle(s.handleChunkDelete)),

		// Metadata.
		apiRoute(get, "/api/v1/metadata/snapshot", read, "get-metadata-snapshot", "Get the metadata snapshot: totals and counts by country, category and date", 0, handle(s.handleMetadataSnapshot)),
		apiRoute(get, "/api/v1/metadata/by-country/{country}", read, "get-metadata-by-country", "Get one country's metadata with its seeds and liveness", 0, handle(s.handleMetadataCountry)),
		apiRoute(get, "/api/v1/metadata/tasks", read, "list-metadata-tasks", "List metadata sync tasks, newest first", 0, handle(s.handleMetadataTasks)),
		apiRoute(post, "/api/v1/metadata/sync", admin, "sync-metadata", "Sync the metadata snapshot to git now (or join the sync queued)", http.StatusAccepted, handle(s.handleMetadataSync)),

		// Research.
		apiRoute(post, "/api/v1/research", write, "create-research", "Submit research results for a partition", http.StatusCreated, s.registerResearchCreate),
		apiRoute(get, "/api/v1/research", read, "list-research", "List research partitions by country, category and date", 0, handle(s.handleResearchList)),
		apiRoute(get, "/api/v1/research/index", read, "get-research-index", "Index research by country, category and date", 0, handle(s.handleResearchIndex)),
		apiRoute(get, "/api/v1/research/{country}/{category}/{date}", read, "get-research-partition", "Get the research of one partition", 0, handle(s.handleResearchPartition)),

		// Domains.
		apiRoute(get, "/api/v1/domains", read, "list-domains", "List discovered domains", 0, handle(s.handleDomainList)),
		apiRoute(get, "/api/v1/domains/{domainId}", read, "get-domain", "Get one domain with the partitions it appeared in and its latest liveness", 0, handle(s.handleDomainGet)),

		// Seeds.
		apiRoute(get, "/api/v1/seeds", read, "list-seeds", "List seeds, filtered, in seed_id order", 0, handleSeed(s.handleSeedList)),
		apiRoute(post, "/api/v1/seeds", write, "create-seed", "Create a draft seed", http.StatusCreated, handleSeed(s.handleSeedCreate)),
		withTextBody(apiRoute(post, "/api/v1/seeds/import", write, "import-seeds", "Import a feed list (OPML, CSV or URLs): each entry is read once and becomes a draft seed or a rejected row", http.StatusAccepted, s.registerSeedImport),
			importMediaTypes...),
		apiRoute(get, "/api/v1/seeds/export", read, "export-seeds", "Stream the seeds the filters match as JSON Lines, CSV, OPML or a URL list", 0, s.registerSeedExport),
		apiRoute(get, "/api/v1/seeds/{seedId}", read, "get-seed", "Get one seed with its status history", 0, handleSeed(s.handleSeedGet)),
		apiRoute(pat, "/api/v1/seeds/{seedId}", write, "update-seed", "Update a seed's editable fields with a JSON merge patch", 0, s.registerSeedUpdate),
		apiRoute(get, "/api/v1/seeds/{seedId}/versions", read, "list-seed-versions", "List a seed's contract versions, newest first", 0, handleSeed(s.handleSeedVersions)),
		apiRoute(get, "/api/v1/seeds/{seedId}/checks", read, "list-seed-checks", "List a seed's checks, newest first, with its health", 0, handleSeed(s.handleSeedChecks)),
		apiRoute(post, "/api/v1/seeds/{seedId}/check", write, "check-seed", "Queue a check of an active or suspended seed now", http.StatusAccepted, handleSeed(s.handleSeedCheckNow)),
		apiRoute(get, "/api/v1/seeds/{seedId}/evidence", read, "get-seed-evidence", "Get the evidence of a seed's latest contract run, as stored", 0, s.registerSeedEvidence),
		apiRoute(post, "/api/v1/seeds/promote", admin, "promote-seed", "Promote a draft seed to active", 0, handleSeed(s.handleSeedPromote)),
		apiRoute(post, "/api/v1/seeds/{seedId}/reject", admin, "reject-seed", "Reject a draft seed with a reason; it can be reopened", 0, handleSeed(s.handleSeedReject)),
		apiRoute(post, "/api/v1/seeds/{seedId}/reopen", admin, "reopen-seed", "Reopen a rejected seed as a draft", 0, handleSeed(s.handleSeedAction(seedengine.SeedReopen))),
		apiRoute(get, "/api/v1/seeds/{seedId}/candidates", read, "list-seed-candidates", "List the candidates of a seed's evidence, each with why it is or is not the entry", 0, handleSeed(s.handleSeedCandidates)),
		apiRoute(post, "/api/v1/seeds/{seedId}/choose", write, "choose-seed-candidate", "Make a candidate of the seed's evidence its entry", 0, handleSeed(s.handleSeedChoose)),
		apiRoute(post, "/api/v1/seeds/bulk", admin, "bulk-seed-action", "Promote, reject, reopen, suspend, reactivate or archive many seeds at once", 0, handleSeed(s.handleSeedBulk)),
		apiRoute(post, "/api/v1/seeds/{seedId}/suspend", admin, "suspend-seed", "Suspend an active seed", 0, handleSeed(s.handleSeedAction(seedengine.SeedSuspend))),
		apiRoute(post, "/api/v1/seeds/{seedId}/reactivate", admin, "reactivate-seed", "Reactivate a suspended seed", 0, handleSeed(s.handleSeedAction(seedengine.SeedReactivate))),
		apiRoute(post, "/api/v1/seeds/{seedId}/archive", admin, "archive-seed", "Archive a seed, for good", 0, handleSeed(s.handleSeedAction(seedengine.SeedArchive))),
		apiRoute(post, "/api/v1/seeds/orchestrate", write, "orchestrate-seeds", "Queue seed collection for a partition's raw files", http.StatusAccepted, handle(s.handleOrchestrate)),

		// Items: what the harvest of active seeds recorded.
		apiRoute(get, "/api/v1/items", read, "list-items", "List harvested items after a cursor, in first-seen order", 0, handle(s.handleItemList)),
		apiRoute(get, "/api/v1/items/export", read, "export-items", "Stream harvested items as NDJSON: a partition, a seed, a cursor range", 0,
			itemsNDJSON("The items, one JSON object per line in id order (NDJSON), gzip-compressed when asked.", s.handleItemExport)),
		apiRoute(get, "/api/v1/items/partitions", read, "list-item-partitions", "List item partitions with item, file and byte counts", 0, handle(s.handleItemPartitions)),
		apiRoute(get, "/api/v1/items/{itemId}/page", read, "get-item-page", "Get where an item's page is: fetched, stored in which WARC file at which offset, skipped or failed", 0, handle(s.handleItemPage)),
		apiRoute(get, "/api/v1/items/{itemId}/page/content", read, "get-item-page-content", "Get an item's stored page, read back from its WARC record", 0, s.registerItemPageContent),
		apiRoute(get, "/api/v1/items/{itemId}/article", read, "get-item-article", "Get an item's article: the text and metadata read from its stored page", 0, handle(s.handleItemArticle)),
		apiRoute(get, "/api/v1/articles", read, "list-articles", "List articles after a cursor, filtered and searched (q)", 0, handle(s.handleArticleList)),
		apiRoute(get, "/api/v1/articles/export", read, "export-articles", "Stream articles as NDJSON: a partition, a seed, a language, a search", 0,
			streamedRoute("The articles, one JSON object per line in id order (NDJSON), gzip-compressed when asked.", ndjsonOf[seedengine.Article], s.handleArticleExport)),
		apiRoute(get, "/api/v1/articles/{country}/{category}/{date}", read, "list-article-files", "List the article files of a partition: JSON Lines, and Parquet once the day is over", 0, handle(s.handleArticleFiles)),
		apiRoute(get, "/api/v1/articles/{country}/{category}/{date}/{file}", read, "get-article-file", "Download one article file as stored (NDJSON or Parquet)", 0,
			streamedRoute("The file exactly as stored: one article per line (NDJSON) in id order, or the Parquet file.", articleFileContent, s.handleArticleFileGet)),
		apiRoute(get, "/api/v1/items/{country}/{category}/{date}/warc", read, "list-warc-files", "List the WARC files of an item partition, with their CDXJ indexes", 0, handle(s.handleWARCFiles)),
		// Five segments under items/ where …/{date}/warc and …/{date}/{file}
		// have four: ServeMux finds it overlapping neither.
		apiRoute(get, "/api/v1/items/{country}/{category}/{date}/warc/{file}", read, "get-warc-file", "Download one WARC file of an item partition as stored (.warc.gz, an attachment)", 0,
			streamedRoute("The WARC file exactly as stored, gzip-compressed record by record: the bytes of the .warc.gz, not decoded.", warcFileContent, s.handleWARCFileGet)),
		apiRoute(get, "/api/v1/items/{country}/{category}/{date}", read, "list-item-files", "List the item files of a partition", 0, handle(s.handleItemFiles)),
		apiRoute(get, "/api/v1/items/{country}/{category}/{date}/{file}", read, "get-item-file", "Download one item file as stored (NDJSON)", 0,
			itemsNDJSON("The file exactly as stored: one item per line (NDJSON), in id order.", s.handleItemFileGet)),

		// API keys.
		apiRoute(get, "/api/v1/keys", admin, "list-keys", "List API keys, revoked ones included", 0, handle(s.handleKeyList)),
		apiRoute(post, "/api/v1/keys", admin, "create-key", "Create an API key; its token is shown only in this response", http.StatusCreated, handle(s.handleKeyCreate)),
		apiRoute(del, "/api/v1/keys/{keyId}", admin, "revoke-key", "Revoke an API key", 0, handle(s.handleKeyRevoke)),
	}
}

// textBodyLimit is the largest document a text route takes: a 50,000-feed
// OPML file is about 12 MiB.
const textBodyLimit = 32 << 20

// withTextBody makes rt take a document of one of the media types instead
// of JSON.
func withTextBody(rt *route, mediaTypes ...string) *route {
	rt.text = mediaTypes
	return rt
}

// withBodyLimit gives rt a body limit of its own.
func withBodyLimit(rt *route, limit int64) *route {
	rt.maxBody = limit
	return rt
}

// bodyLimit is the largest request body rt accepts.
func (s *Server) bodyLimit(rt *route) int64 {
	if rt.maxBody > 0 {
		return rt.maxBody
	}
	if rt.text != nil {
		return textBodyLimit
	}
	return s.cfg.MaxBodyBytes
}

func openRoute(method, path, id, summary string, h http.Handler, doc func(huma.Registry, *huma.Operation)) *route {
	return &route{
		Route: Route{Method: method, Path: path, Summary: summary, OperationID: id},
		plain: h,
		doc:   doc,
	}
}

func apiRoute(method, path string, scope seedengine.Scope, id, summary string, status int, reg func(huma.API, huma.Operation)) *route {
	return &route{
		Route:    Route{Method: method, Path: path, Scope: scope, Summary: summary, OperationID: id},
		status:   status,
		register: reg,
	}
}

// handle registers a huma handler for a route.
func handle[I, O any](h func(context.Context, *I) (*O, error)) func(huma.API, huma.Operation) {
	return func(api huma.API, op huma.Operation) { huma.Register(api, op, h) }
}

// routeGroup names the API a path belongs to: /api/v1/{group}/…, the
// health endpoints, or the service's own documents.
func routeGroup(path string) (group, basePath string) {
	if rest, ok := strings.CutPrefix(path, "/api/v1/"); ok {
		group, _, _ = strings.Cut(rest, "/")
		return group, "/api/v1/" + group
	}
	if path == "/health" || strings.HasPrefix(path, "/health/") {
		return "health", "/health"
	}
	if strings.HasPrefix(path, "/console/") {
		return "console", "/console/"
	}
	return "service", "/"
}

// operation is the OpenAPI operation of a route; huma adds the parameter,
// body and response schemas from the handler's types.
func (s *Server) operation(rt *route) huma.Operation {
	op := huma.Operation{
		OperationID:   rt.OperationID,
		Method:        rt.Method,
		Path:          rt.Path,
		Summary:       rt.Summary,
		Tags:          []string{rt.group},
		DefaultStatus: rt.status,
		// One byte over the limit, so that the MaxBytesReader set by the
		// route middleware is what trips, with a 413 in our shape.
		MaxBodyBytes: s.bodyLimit(rt) + 1,
		// The route middleware reads bodies under their deadline
		// (checkBody); huma's would outlive the read and cancel a
		// handler that runs longer than it.
		BodyReadTimeout: -1,
	}
	if rt.Scope == "" {
		// Explicitly public: no security at all would read as forgotten.
		op.Security = []map[string][]string{}
	} else {
		op.Security = []map[string][]string{{"bearer": {}}}
		// 400: more than one Authorization header. 503: keys that cannot
		// be checked fail closed, and every service behind a route may be
		// down or not wired.
		op.Errors = append(op.Errors, http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests, http.StatusServiceUnavailable)
	}
	switch rt.Method {
	case post, pat, http.MethodPut:
		// Any body sent, even to a route that needs none, is held to the
		// body rules (checkBody): 400, 408, 413, 415, 422.
		op.Errors = append(op.Errors, http.StatusBadRequest, http.StatusRequestTimeout, http.StatusRequestEntityTooLarge,
			http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity)
	default:
		if rt.register != nil {
			op.Errors = append(op.Errors, http.StatusUnprocessableEntity)
		}
	}
	if strings.Contains(rt.Path, "{") && rt.register != nil {
		op.Errors = append(op.Errors, http.StatusNotFound)
	}
	for _, e := range operationErrors[rt.OperationID] {
		if !slices.Contains(op.Errors, e.status) {
			op.Errors = append(op.Errors, e.status)
		}
	}
	if rt.Scope != "" {
		op.Errors = append(op.Errors, http.StatusInternalServerError)
	}
	// A service without keys, or one given --allowed-hosts, answers a
	// Host it does not know with 421 on every route (host.go).
	op.Errors = append(op.Errors, http.StatusMisdirectedRequest)
	slices.Sort(op.Errors)
	op.Errors = slices.Compact(op.Errors)
	// The description is written by finishOpenAPI from the final
	// responses.
	return op
}
