package seedengine

import (
	"context"
	"time"
)

// MetadataSnapshot is the state of the engine's data, as committed to the
// metadata git repository (DESIGN §8). Its JSON is deterministic: maps
// marshal with sorted keys and every list has a fixed order, so the same
// state gives the same bytes apart from GeneratedAt and LastSync.
type MetadataSnapshot struct {
	GeneratedAt time.Time      `json:"generated_at"`
	Engine      EngineInfo     `json:"engine"`
	Totals      MetadataTotals `json:"totals"`
	// Countries is country → category → date → counts.
	Countries map[string]map[string]map[string]PartitionCounts `json:"countries"`
	// LastSync is the last sync that reached the remote (a commit pushed,
	// or the remote already held the same snapshot); nil before any.
	LastSync *MetadataSync `json:"last_sync"`
}

// MetadataTotals are the counts over all partitions (or one country's).
type MetadataTotals struct {
	Partitions int `json:"partitions"`
	Chunks     int `json:"chunks"`
	Records    int `json:"records"`
	Domains    int `json:"domains"`
	// DomainsByAuthority counts domains by authority (gov, edu, …).
	DomainsByAuthority map[string]int `json:"domains_by_authority"`
	// LivenessByVerdict counts domains by their latest liveness verdict.
	LivenessByVerdict map[string]int `json:"liveness_by_verdict"`
	// SeedsByStatus counts seeds by status.
	SeedsByStatus map[string]int `json:"seeds_by_status"`
	// SeedsByHealth counts active and suspended seeds by health state
	// (unknown: never checked).
	SeedsByHealth map[string]int `json:"seeds_by_health"`
	// ItemPartitions, Items and ItemFiles count the harvested items
	// (issue 22) and their files.
	ItemPartitions int `json:"item_partitions"`
	Items          int `json:"items"`
	ItemFiles      int `json:"item_files"`
	// WARCFiles count the stored WARC files of fetched pages (issue 24)
	// and WARCRecords their response and revisit records.
	WARCFiles   int `json:"warc_files"`
	WARCRecords int `json:"warc_records"`
	// Articles counts the stored pages that are articles (issue 35);
	// ArticleFiles their JSON Lines files.
	Articles     int `json:"articles"`
	ArticleFiles int `json:"article_files"`
}

// PartitionCounts are the counts of one partition: its raw chunks, their
// records and domains, and the items first seen that day with their
// files (a partition with items but no chunk has only these).
type PartitionCounts struct {
	Chunks      int `json:"chunks"`
	Records     int `json:"records"`
	Domains     int `json:"domains"`
	Items       int `json:"items,omitempty"`
	ItemFiles   int `json:"item_files,omitempty"`
	WARCFiles   int `json:"warc_files,omitempty"`
	WARCRecords int `json:"warc_records,omitempty"`
	// Articles counts the partition's pages that are articles;
	// ArticleFiles its article files (JSON Lines).
	Articles     int `json:"articles,omitempty"`
	ArticleFiles int `json:"article_files,omitempty"`
}

// MetadataSync is one sync that reached the remote.
type MetadataSync struct {
	At     time.Time `json:"at"`
	Commit string    `json:"commit"`
	Remote string    `json:"remote"` // without credentials
}

// CountryMetadata is one country's slice of the snapshot, with its seeds
// and liveness.
type CountryMetadata struct {
	GeneratedAt time.Time      `json:"generated_at"`
	Country     string         `json:"country"`
	Totals      MetadataTotals `json:"totals"`
	// Categories is category → date → counts.
	Categories map[string]map[string]PartitionCounts `json:"categories"`
	// SeedsByFetchType counts the country's seeds by fetch type.
	SeedsByFetchType map[string]int `json:"seeds_by_fetch_type"`
}

// MetadataTrigger says what asked for a metadata sync.
type MetadataTrigger string

// Metadata sync triggers.
const (
	TriggerAPI            MetadataTrigger = "api"             // POST /api/v1/metadata/sync
	TriggerQueue          MetadataTrigger = "queue"           // POST /api/v1/queues/trigger/metadata-sync
	TriggerSchedule       MetadataTrigger = "schedule"        // the periodic schedule
	TriggerBatchCompleted MetadataTrigger = "batch_completed" // a research batch finished
)

// Valid reports whether t is one of the MetadataTrigger constants.
func (t MetadataTrigger) Valid() bool {
	switch t {
	case TriggerAPI, TriggerQueue, TriggerSchedule, TriggerBatchCompleted:
		return true
	}
	return false
}

// MetadataTaskStatus is where a sync task is.
type MetadataTaskStatus string

// Metadata task statuses.
const (
	TaskQueued           MetadataTaskStatus = "queued"
	TaskRunning          MetadataTaskStatus = "running"
	TaskSucceeded        MetadataTaskStatus = "succeeded"         // a commit was pushed
	TaskFailed           MetadataTaskStatus = "failed"            // see Error
	TaskSkippedUnchanged MetadataTaskStatus = "skipped_unchanged" // the remote already held this snapshot
)

// Valid reports whether s is one of the MetadataTaskStatus constants.
func (s MetadataTaskStatus) Valid() bool {
	switch s {
	case TaskQueued, TaskRunning, TaskSucceeded, TaskFailed, TaskSkippedUnchanged:
		return true
	}
	return false
}

// Finished reports whether s is a final status.
func (s MetadataTaskStatus) Finished() bool {
	return s == TaskSucceeded || s == TaskFailed || s == TaskSkippedUnchanged
}

// MetadataTask is one metadata sync run.
type MetadataTask struct {
	ID      string             `json:"id"`
	Trigger MetadataTrigger    `json:"trigger"`
	Status  MetadataTaskStatus `json:"status"`
	// Requests counts the triggers this task answers: a trigger that
	// finds a task already queued joins it instead of queueing another.
	Requests   int        `json:"requests"`
	CreatedAt  time.Time  `json:"created_at"`
	StartedAt  *time.Time `json:"started_at,omitempty"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	DurationMS *int64     `json:"duration_ms,omitempty"`
	Commit     string     `json:"commit,omitempty"`
	Remote     string     `json:"remote,omitempty"` // without credentials
	// Error says why a failed task failed; it never holds credentials.
	Error string `json:"error,omitempty"`
}

// MetadataTaskFilter selects tasks. Zero fields do not filter.
type MetadataTaskFilter struct {
	Status MetadataTaskStatus
	Limit  int
	Offset int
}

// MetadataService computes snapshots from the SQL store and keeps the sync
// tasks.
type MetadataService interface {
	// Snapshot computes the snapshot (GeneratedAt now, LastSync from the
	// tasks); the caller fills Engine.
	Snapshot(ctx context.Context) (*MetadataSnapshot, error)

	// CountryMetadata computes one country's slice. EINVALID for an
	// invalid country code; ENOTFOUND when the country has no partition,
	// domain or seed.
	CountryMetadata(ctx context.Context, country string) (*CountryMetadata, error)

	// RequestMetadataTask returns the queued task, counting one more
	// request on it, or — when none is queued — creates a task with
	// trigger and enqueues its job to run after delay, in one
	// transaction. created says which. EINVALID for an unknown trigger.
	RequestMetadataTask(ctx context.Context, trigger MetadataTrigger, delay time.Duration) (t *MetadataTask, created bool, err error)

	// StartMetadataTask moves a queued task to running. ECONFLICT when
	// another task is running (one sync at a time) or the task is not
	// queued; ENOTFOUND.
	StartMetadataTask(ctx context.Context, id string) (*MetadataTask, error)

	// FinishMetadataTask records a running task's outcome: status (a
	// final one, else EINVALID), commit, remote and error. ECONFLICT when
	// the task is not running; ENOTFOUND.
	FinishMetadataTask(ctx context.Context, id string, status MetadataTaskStatus, commit, remote, errMsg string) (*MetadataTask, error)

	// FindMetadataTaskByID returns a task. ENOTFOUND.
	FindMetadataTaskByID(ctx context.Context, id string) (*MetadataTask, error)

	// FindMetadataTasks returns tasks matching f, newest first, and the
	// total matching f. EINVALID for an unknown status.
	FindMetadataTasks(ctx context.Context, f MetadataTaskFilter) ([]*MetadataTask, int, error)
}

// MetadataSyncer queues metadata syncs; internal/metasync's Service is one.
type MetadataSyncer interface {
	// TriggerMetadataSync queues a sync task for trigger, or returns the
	// task already queued (created false), which then answers this trigger
	// too. ECONFLICT when no git remote is configured.
	TriggerMetadataSync(ctx context.Context, trigger MetadataTrigger) (t *MetadataTask, created bool, err error)
}
