package metasync

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/seedengine/seedengine"
)

// DefaultDebounce is how long a sync requested by a finished research
// batch waits before it runs, so that batches finishing close together
// share one sync.
const DefaultDebounce = 30 * time.Second

// Service is the metadata side of the engine: snapshots (from the SQL
// store, with the engine's name and version) and sync tasks, run through
// a Syncer when a git remote is configured. It implements
// seedengine.MetadataService and seedengine.MetadataSyncer, and runs the
// queue's sync jobs (jobs.MetadataRunner).
type Service struct {
	seedengine.MetadataService
	syncer   *Syncer // nil without a remote
	version  string
	debounce time.Duration
	log      *slog.Logger
}

// NewService returns the metadata service over store. syncer is nil when
// no remote is configured: triggers are then refused. debounce ≤ 0 means
// DefaultDebounce.
func NewService(store seedengine.MetadataService, syncer *Syncer, version string, debounce time.Duration, log *slog.Logger) *Service {
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{MetadataService: store, syncer: syncer, version: version, debounce: debounce, log: log}
}

// Snapshot computes the snapshot with the engine filled in.
func (s *Service) Snapshot(ctx context.Context) (*seedengine.MetadataSnapshot, error) {
	snap, err := s.MetadataService.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	snap.Engine = seedengine.EngineInfo{Name: "seedengine", Version: s.version}
	return snap, nil
}

// TriggerMetadataSync queues a sync task (or joins the queued one). A
// batch_completed trigger waits DefaultDebounce (or the configured
// debounce), so that 50 research batches finishing together make one
// sync. ECONFLICT when no remote is configured.
func (s *Service) TriggerMetadataSync(ctx context.Context, trigger seedengine.MetadataTrigger) (*seedengine.MetadataTask, bool, error) {
	if s.syncer == nil {
		return nil, false, &seedengine.Error{Code: seedengine.ECONFLICT, Field: "metadata-git-url",
			Message: "no metadata git remote is configured (--metadata-git-url); the snapshot is still served at GET /api/v1/metadata/snapshot"}
	}
	var delay time.Duration
	if trigger == seedengine.TriggerBatchCompleted {
		delay = s.debounce
	}
	t, created, err := s.RequestMetadataTask(ctx, trigger, delay)
	if err != nil {
		return nil, false, err
	}
	s.log.InfoContext(ctx, "metadata sync requested", "event", "metadata_sync_requested", "task_id", t.ID,
		"trigger", string(trigger), "joined_queued_task", !created, "requests", t.Requests)
	return t, created, nil
}

// RunMetadataTask runs one sync task: snapshot, commit when it changed,
// push. A sync that fails (the remote refuses, the network fails) is a
// failed task, not an error: the next trigger tries again. Errors are
// for the task store itself, which the queue retries, and ECONFLICT when
// another task is running.
func (s *Service) RunMetadataTask(ctx context.Context, id string) error {
	t, err := s.StartMetadataTask(ctx, id)
	if seedengine.ErrorCode(err) == seedengine.ECONFLICT && s.failStale(ctx, id) {
		t, err = s.StartMetadataTask(ctx, id)
	}
	if seedengine.ErrorCode(err) == seedengine.ECONFLICT {
		// A job rescued after a crash finds its task still running: it
		// takes the task over. Anything else waits its turn.
		cur, ferr := s.FindMetadataTaskByID(ctx, id)
		switch {
		case ferr != nil:
			return ferr
		case cur.Status.Finished():
			return nil // done by an earlier attempt
		case cur.Status != seedengine.TaskRunning:
			return err
		}
		t = cur
	} else if err != nil {
		return err
	}
	log := s.log.With("task_id", t.ID, "trigger", string(t.Trigger))
	log.InfoContext(ctx, "metadata sync start", "event", "metadata_sync_start")
	if s.syncer == nil {
		_, err := s.FinishMetadataTask(ctx, t.ID, seedengine.TaskFailed, "", "", "no metadata git remote is configured")
		return err
	}
	status, commit, remote, msg := s.sync(ctx)
	if _, err := s.FinishMetadataTask(context.WithoutCancel(ctx), t.ID, status, commit, remote, msg); err != nil {
		return err
	}
	log.InfoContext(ctx, "metadata sync finished", "event", "metadata_sync_complete", "status", string(status), "commit", commit, "remote", remote, "error", msg)
	return nil
}

// StaleAfter is how long a task may stay running before a waiting task
// takes it for dead: a sync is bounded by DefaultSyncTimeout (and the
// queue's job timeout), so a task running longer lost its process, and
// its job will not come back to finish it (River discards a job whose
// process died during its last attempt).
const StaleAfter = DefaultSyncTimeout + 5*time.Minute

// failStale fails another task that has been running longer than
// StaleAfter, so that one lost process cannot block every later sync. It
// reports whether it failed one.
func (s *Service) failStale(ctx context.Context, waiting string) bool {
	running, _, err := s.FindMetadataTasks(ctx, seedengine.MetadataTaskFilter{Status: seedengine.TaskRunning, Limit: 1})
	if err != nil || len(running) == 0 {
		return false
	}
	r := running[0]
	if r.ID == waiting || r.StartedAt == nil || time.Since(*r.StartedAt) < StaleAfter {
		return false
	}
	if _, err := s.FinishMetadataTask(ctx, r.ID, seedengine.TaskFailed, "", "",
		"interrupted: its process stopped before the sync finished"); err != nil {
		return false
	}
	s.log.WarnContext(ctx, "stale metadata sync failed", "event", "metadata_sync_stale", "task_id", r.ID, "started_at", r.StartedAt)
	return true
}

func (s *Service) sync(ctx context.Context) (status seedengine.MetadataTaskStatus, commit, remote, errMsg string) {
	remote = s.syncer.Remote()
	snap, err := s.Snapshot(ctx)
	if err != nil {
		return seedengine.TaskFailed, "", remote, "compute snapshot: " + seedengine.ErrorMessage(err)
	}
	snap.LastSync = nil // the repository's history is the record of syncs
	body, err := SnapshotJSON(snap)
	if err != nil {
		return seedengine.TaskFailed, "", remote, "encode snapshot: " + err.Error()
	}
	res, err := s.syncer.Sync(ctx, body, CommitMessage(snap), SameSnapshot)
	if err != nil {
		return seedengine.TaskFailed, "", remote, err.Error()
	}
	if !res.Changed {
		return seedengine.TaskSkippedUnchanged, res.Commit, res.Remote, ""
	}
	return seedengine.TaskSucceeded, res.Commit, res.Remote, ""
}

// SnapshotJSON is the snapshot as committed: indented JSON with sorted
// keys and a final newline.
func SnapshotJSON(snap *seedengine.MetadataSnapshot) ([]byte, error) {
	b, err := json.MarshalIndent(snap, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// volatile are the snapshot fields that change without the data changing.
var volatile = []string{"generated_at", "last_sync"}

// SameSnapshot reports whether two snapshot documents hold the same data:
// equal once generated_at and last_sync are left out. A document that is
// not a JSON object is never the same.
func SameSnapshot(old, new []byte) bool {
	canon := func(b []byte) ([]byte, bool) {
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			return nil, false
		}
		for _, k := range volatile {
			delete(m, k)
		}
		out, err := json.Marshal(m)
		if err != nil {
			return nil, false
		}
		var buf bytes.Buffer
		if json.Compact(&buf, out) != nil {
			return nil, false
		}
		return buf.Bytes(), true
	}
	a, ok1 := canon(old)
	b, ok2 := canon(new)
	return ok1 && ok2 && bytes.Equal(a, b)
}

// CommitMessage summarises a snapshot's totals in a commit message.
func CommitMessage(snap *seedengine.MetadataSnapshot) string {
	t := snap.Totals
	return fmt.Sprintf("metadata snapshot: %d partitions, %d chunks, %d records, %d domains, %d seeds\n\nGenerated by seedengine %s at %s.\n",
		t.Partitions, t.Chunks, t.Records, t.Domains, sum(t.SeedsByStatus), snap.Engine.Version, snap.GeneratedAt.UTC().Format(time.RFC3339))
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

var (
	_ seedengine.MetadataService = (*Service)(nil)
	_ seedengine.MetadataSyncer  = (*Service)(nil)
)
