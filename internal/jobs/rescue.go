package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Jobs left running by nobody.
//
// River marks a job complete (or failed) after its worker returns, through
// a completer. A job whose process dies (SIGKILL, a lost machine) stays
// `running` with no worker holding it, and River's rescuer frees it only
// after RescueStuckJobsAfter (15 min by default), which must stay longer
// than the longest job. River v0.31 also left jobs so when its completer
// gave up after ~7 s of database errors; v0.51's completer keeps the
// completions and tries again (TestOutageLongerThanCompleterRetries), but
// a live process may still be left with such jobs (a completer that ends
// with the process's Stop during an outage, a future regression).
//
// The queue finds both sooner, without shortening River's rescue of jobs
// that really run long:
//
//   - Jobs of dead processes: every working process records a heartbeat in
//     queue_processes every RescueInterval; a process whose heartbeat is
//     older than DeadProcessAfter is taken for dead, and any other process
//     makes its running jobs available again and forgets it. A process
//     that stops cleanly removes its heartbeat, unless a job still stands
//     running under it.
//   - Orphans of this process: every RescueInterval it lists the jobs the
//     database has running under this process's River client id; those no
//     worker of this process holds on two looks at least OrphanGrace apart
//     (longer than the completer's retries) are made available again.
//
// A job made available runs again like a retry: chunk processors find an
// outcome already recorded and finish at once. A job on its last attempt
// is discarded instead, as River's rescuer does, and the sweep then fails
// its chunk if the chunk did not finish.
//
// A process cut off from the database longer than DeadProcessAfter while
// its jobs run on is taken for dead too, and its jobs may then run twice;
// chunk processors are idempotent for that reason (as for any retry).

// minRescueRound is the least time one rescue round may take.
const minRescueRound = 10 * time.Second

// rescuer finds and frees the jobs above; one per working Queue.
type rescuer struct {
	q  *Queue
	id string // this process's River client id

	mu       sync.Mutex
	held     map[int64]int             // job id → attempt, while a worker of this process runs it
	suspects map[int64]suspectSighting // running in the database, held by no worker here

	stop, done chan struct{}
}

type suspectSighting struct {
	attempt int
	first   time.Time
}

// newClientID names this process in river_job.attempted_by and
// queue_processes: host, pid and a random suffix, so a restarted process
// is a new client.
func newClientID() string {
	host, _ := os.Hostname()
	if host == "" {
		host = "host"
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// holdMiddleware records which jobs a worker of this process holds.
type holdMiddleware struct {
	river.MiddlewareDefaults
	r *rescuer
}

func (m *holdMiddleware) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	m.r.mu.Lock()
	m.r.held[job.ID] = job.Attempt
	m.r.mu.Unlock()
	defer func() {
		m.r.mu.Lock()
		delete(m.r.held, job.ID)
		m.r.mu.Unlock()
	}()
	return doInner(ctx)
}

func (r *rescuer) start() {
	r.stop, r.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(r.done)
		t := time.NewTicker(r.q.cfg.RescueInterval)
		defer t.Stop()
		for {
			r.once()
			select {
			case <-r.stop:
				return
			case <-t.C:
			}
		}
	}()
}

// halt stops the loop and, when clean, removes this process's heartbeat:
// River made its interrupted jobs available itself.
func (r *rescuer) halt(clean bool) {
	if r.stop == nil {
		return
	}
	close(r.stop)
	<-r.done
	r.stop = nil
	if !clean {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Unless a job still stands running under this process (its end not
	// recorded): then the row stays, to be found stale by the others.
	if _, err := r.q.db.ExecContext(ctx, `DELETE FROM queue_processes WHERE id = $1
		AND NOT EXISTS (SELECT 1 FROM river_job WHERE state = 'running' AND `+r.q.lastAttemptedBy()+` = $1)`, r.id); err != nil {
		r.q.log.Warn("remove queue heartbeat", "event", "queue_heartbeat_failed", "err", err)
	}
}

// once is one round: heartbeat, own orphans, dead processes. A failed
// step is logged and tried again next round (the database may be down).
func (r *rescuer) once() {
	// A round may take longer than the interval (a busy SQLite writer, a
	// slow database): the next tick waits for it rather than the round
	// being cut short every time.
	ctx, cancel := context.WithTimeout(context.Background(), max(r.q.cfg.RescueInterval, minRescueRound))
	defer cancel()
	now := time.Now()
	if err := r.heartbeat(ctx, now); err != nil {
		r.q.log.Warn("queue heartbeat failed", "event", "queue_heartbeat_failed", "err", err)
		return
	}
	if n, err := r.rescueOwn(ctx, now); err != nil {
		r.q.log.Warn("look for orphaned jobs failed", "event", "orphan_jobs_failed", "err", err)
	} else if n > 0 {
		r.q.log.Warn("made jobs no worker held available again", "event", "orphan_jobs_rescued", "jobs", n)
	}
	if n, err := r.rescueDead(ctx, now); err != nil {
		r.q.log.Warn("look for dead processes failed", "event", "dead_process_rescue_failed", "err", err)
	} else if n > 0 {
		r.q.log.Warn("made the jobs of dead processes available again", "event", "dead_process_jobs_rescued", "jobs", n)
	}
}

func (r *rescuer) heartbeat(ctx context.Context, now time.Time) error {
	host, _ := os.Hostname()
	_, err := r.q.db.ExecContext(ctx, `INSERT INTO queue_processes (id, host, pid, started_ms, seen_ms)
		VALUES ($1, $2, $3, $4, $4)
		ON CONFLICT (id) DO UPDATE SET seen_ms = excluded.seen_ms`,
		r.id, host, os.Getpid(), now.UnixMilli())
	return err
}

// lastAttemptedBy is the SQL of the client that fetched a job last.
func (q *Queue) lastAttemptedBy() string {
	if q.engine == EnginePostgres {
		return `attempted_by[array_upper(attempted_by, 1)]`
	}
	return `json_extract(attempted_by, '$[#-1]')`
}

type runningJob struct {
	id                   int64
	attempt, maxAttempts int
}

// runningOf lists the jobs the database has running under client.
func (r *rescuer) runningOf(ctx context.Context, client string) ([]runningJob, error) {
	rows, err := r.q.readDB().QueryContext(ctx, `SELECT id, attempt, max_attempts FROM river_job
		WHERE state = 'running' AND `+r.q.lastAttemptedBy()+` = $1`, client)
	if err != nil {
		return nil, fmt.Errorf("list running jobs of %s: %w", client, err)
	}
	defer rows.Close()
	var out []runningJob
	for rows.Next() {
		var j runningJob
		if err := rows.Scan(&j.id, &j.attempt, &j.maxAttempts); err != nil {
			return nil, fmt.Errorf("list running jobs of %s: %w", client, err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// rescueOwn frees this process's jobs that no worker here has held for
// two looks OrphanGrace apart.
func (r *rescuer) rescueOwn(ctx context.Context, now time.Time) (int, error) {
	jobs, err := r.runningOf(ctx, r.id)
	if err != nil {
		return 0, err
	}
	var free []runningJob
	r.mu.Lock()
	seen := make(map[int64]bool, len(jobs))
	for _, j := range jobs {
		seen[j.id] = true
		if attempt, ok := r.held[j.id]; ok && attempt == j.attempt {
			delete(r.suspects, j.id)
			continue
		}
		s, ok := r.suspects[j.id]
		switch {
		case !ok || s.attempt != j.attempt:
			r.suspects[j.id] = suspectSighting{attempt: j.attempt, first: now}
		case now.Sub(s.first) >= r.q.cfg.OrphanGrace:
			free = append(free, j)
			delete(r.suspects, j.id)
		}
	}
	for id := range r.suspects {
		if !seen[id] {
			delete(r.suspects, id)
		}
	}
	r.mu.Unlock()
	return r.free(ctx, free)
}

// rescueDead frees the running jobs of processes whose heartbeat is older
// than DeadProcessAfter, and forgets those processes.
func (r *rescuer) rescueDead(ctx context.Context, now time.Time) (int, error) {
	cutoff := now.Add(-r.q.cfg.DeadProcessAfter).UnixMilli()
	rows, err := r.q.readDB().QueryContext(ctx, `SELECT id FROM queue_processes WHERE seen_ms < $1 AND id <> $2`, cutoff, r.id)
	if err != nil {
		return 0, fmt.Errorf("list dead processes: %w", err)
	}
	var dead []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, fmt.Errorf("list dead processes: %w", err)
		}
		dead = append(dead, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("list dead processes: %w", err)
	}
	total := 0
	for _, id := range dead {
		jobs, err := r.runningOf(ctx, id)
		if err != nil {
			return total, err
		}
		n, err := r.free(ctx, jobs)
		total += n
		if err != nil {
			return total, err
		}
		// Still dead: a process that came back meanwhile keeps its row.
		if _, err := r.q.db.ExecContext(ctx, `DELETE FROM queue_processes WHERE id = $1 AND seen_ms < $2`, id, cutoff); err != nil {
			return total, fmt.Errorf("forget dead process %s: %w", id, err)
		}
		r.q.log.Warn("a queue process stopped sending heartbeats", "event", "queue_process_dead", "process", id, "jobs", n)
	}
	return total, nil
}

// free makes each job available again, or discards it when it was on its
// last attempt, if it is still running on the same attempt.
func (r *rescuer) free(ctx context.Context, jobs []runningJob) (int, error) {
	now := `now()`
	if r.q.engine == EngineSQLite {
		now = `datetime('now', 'subsec')`
	}
	n := 0
	for _, j := range jobs {
		query := `UPDATE river_job SET state = 'available', scheduled_at = ` + now + `
			WHERE id = $1 AND state = 'running' AND attempt = $2`
		if j.attempt >= j.maxAttempts {
			query = `UPDATE river_job SET state = 'discarded', finalized_at = ` + now + `
				WHERE id = $1 AND state = 'running' AND attempt = $2`
		}
		res, err := r.q.db.ExecContext(ctx, query, j.id, j.attempt)
		if err != nil {
			return n, fmt.Errorf("free job %d: %w", j.id, err)
		}
		if k, _ := res.RowsAffected(); k > 0 {
			n++
		}
	}
	return n, nil
}
