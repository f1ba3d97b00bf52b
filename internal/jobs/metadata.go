package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
)

// QueueMetadata is the River queue of metadata sync jobs. It has one worker
// per process, and the task store lets one task run at a time across
// processes.
const QueueMetadata = "metadata"

// MetadataSyncArgs are the args of the job that runs one metadata sync
// task.
type MetadataSyncArgs struct {
	TaskID string `json:"task_id"`
}

// Kind names the job's worker. It is stored with every job, so it never
// changes.
func (MetadataSyncArgs) Kind() string { return "metadata_sync" }

// InsertOpts puts sync jobs on QueueMetadata.
func (MetadataSyncArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: QueueMetadata} }

// MetadataScheduleArgs are the args of the periodic job that requests a
// scheduled sync.
type MetadataScheduleArgs struct{}

// Kind names the job's worker. It is stored with every job, so it never
// changes.
func (MetadataScheduleArgs) Kind() string { return "metadata_schedule" }

// InsertOpts puts schedule jobs on QueueMetadata.
func (MetadataScheduleArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueMetadata}
}

// MetadataRunner runs metadata sync tasks; internal/metasync's Service is
// one. RunMetadataTask returns an ECONFLICT error when another task is
// running, and the job waits its turn.
type MetadataRunner interface {
	RunMetadataTask(ctx context.Context, taskID string) error
	TriggerMetadataSync(ctx context.Context, trigger seedengine.MetadataTrigger) (*seedengine.MetadataTask, bool, error)
}

// metadataConflictWait is how long a sync job waits when another sync is
// running.
const metadataConflictWait = 5 * time.Second

// RegisterMetadata makes r run the metadata sync jobs and, when every is
// above zero, requests a scheduled sync every that often (on the leader
// process only). Call it before Start.
func (q *Queue) RegisterMetadata(r MetadataRunner, every time.Duration) {
	q.mustWire("RegisterMetadata", r == nil)
	q.mu.Lock()
	q.metadata = r
	q.mu.Unlock()
	q.addPeriodic(every, MetadataScheduleArgs{}, false)
}

func (q *Queue) metadataRunner() MetadataRunner {
	q.mu.RLock()
	defer q.mu.RUnlock()
	return q.metadata
}

// MetadataTasks is the application's seedengine.MetadataService: tasks
// are kept in store, and a new task's sync job is queued in the
// transaction that creates it.
func (q *Queue) MetadataTasks(store *sqlstore.MetadataService) seedengine.MetadataService {
	return metadataService{store, q}
}

type metadataService struct {
	*sqlstore.MetadataService
	q *Queue
}

// RequestMetadataTask returns the queued task with one more request
// counted, or, when none is queued, creates a task and queues its sync job
// to run after delay (a trigger's debounce window), in one transaction. A
// request that joins a queued task leaves its job as it is.
func (s metadataService) RequestMetadataTask(ctx context.Context, trigger seedengine.MetadataTrigger, delay time.Duration) (*seedengine.MetadataTask, bool, error) {
	var (
		t       *seedengine.MetadataTask
		created bool
	)
	err := s.InTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		if t, created, err = s.RequestMetadataTaskTx(ctx, tx, trigger); err != nil || !created {
			return err
		}
		return s.q.enqueueMetadataSyncTx(ctx, tx, t, max(delay, 0))
	})
	if err != nil {
		return nil, false, err
	}
	return t, created, nil
}

// enqueueMetadataSyncTx inserts the sync job of task t in tx, to run after
// delay.
func (q *Queue) enqueueMetadataSyncTx(ctx context.Context, tx *sql.Tx, t *seedengine.MetadataTask, delay time.Duration) error {
	opts := &river.InsertOpts{Queue: QueueMetadata}
	if delay > 0 {
		opts.ScheduledAt = time.Now().Add(delay)
	}
	if _, err := q.client.InsertTx(ctx, tx, MetadataSyncArgs{TaskID: t.ID}, opts); err != nil {
		return fmt.Errorf("enqueue metadata task %s: %w", t.ID, err)
	}
	return nil
}

type metadataSyncWorker struct {
	river.WorkerDefaults[MetadataSyncArgs]
	q *Queue
}

// Work implements river.Worker.
func (w *metadataSyncWorker) Work(ctx context.Context, job *river.Job[MetadataSyncArgs]) error {
	r := w.q.metadataRunner()
	if r == nil {
		return fmt.Errorf("no metadata runner in this process")
	}
	err := r.RunMetadataTask(ctx, job.Args.TaskID)
	if seedengine.ErrorCode(err) == seedengine.ECONFLICT {
		w.q.log.Info("metadata sync waits for the one running", "event", "metadata_sync_waiting", "task_id", job.Args.TaskID)
		return river.JobSnooze(metadataConflictWait)
	}
	return err
}

type metadataScheduleWorker struct {
	river.WorkerDefaults[MetadataScheduleArgs]
	q *Queue
}

// Work implements river.Worker.
func (w *metadataScheduleWorker) Work(ctx context.Context, job *river.Job[MetadataScheduleArgs]) error {
	r := w.q.metadataRunner()
	if r == nil {
		return fmt.Errorf("no metadata runner in this process")
	}
	t, created, err := r.TriggerMetadataSync(ctx, seedengine.TriggerSchedule)
	if err != nil {
		return err
	}
	w.q.log.LogAttrs(ctx, slog.LevelInfo, "scheduled metadata sync", slog.String("event", "metadata_sync_scheduled"),
		slog.String("task_id", t.ID), slog.Bool("joined_queued_task", !created))
	return nil
}
