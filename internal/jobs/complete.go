package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"

	"github.com/seedengine/seedengine/internal/sqlstore"
)

// Chunk completions on PostgreSQL, grouped.
//
// Each completion adds to its batch's counters, so on PostgreSQL it holds
// the batch's row lock from that update to its commit, fsync included:
// recorded one transaction at a time, the chunks of one batch finish no
// faster than one commit after another (about 300 a second on two cores,
// against River's 3,500 without chunks). The completions that arrive
// while a group is being written are written together in the next one,
// as River's own completer does with job states: their chunk rows in one
// statement, each batch's counters in one, one commit
// (sqlstore.BatchService.CompleteChunksTx). A completion that arrives
// when nothing is being written is written at once, on its caller's
// goroutine.
//
// Each job's completion is written in its group's transaction too, all
// of them in one statement (River's own, JobSetStateIfRunningMany), so a
// chunk's outcome and its job's completion still commit together. A job
// no longer running (rescued meanwhile) is left to its new run, which
// finds the outcome recorded: a chunk is recorded only while it is open,
// so it counts once however many runs it has.

// completeGroupMax bounds how many completions share one transaction.
const completeGroupMax = 128

// chunkCompleter writes chunk completions in groups.
type chunkCompleter struct {
	q *Queue

	mu      sync.Mutex
	queue   []*pendingCompletion
	running bool // a group is being written
}

// pendingCompletion is one caller's completion, waiting for its group.
type pendingCompletion struct {
	ctx   context.Context
	jobID int64
	done  sqlstore.ChunkDone
	err   error
	ok    chan struct{}
}

// complete records d (an outcome that spawns nothing), what follows it
// (the batch's finisher when it finished the batch) and the completion of
// its job, jobID, and returns once their transaction has committed or
// failed. ctx bounds the wait for the
// write, not the write: one caller giving up does not roll back the
// others' outcomes, so the caller passes a bookkeeping context.
func (g *chunkCompleter) complete(ctx context.Context, jobID int64, d sqlstore.ChunkDone) error {
	p := &pendingCompletion{ctx: ctx, jobID: jobID, done: d, ok: make(chan struct{})}
	g.mu.Lock()
	g.queue = append(g.queue, p)
	if g.running {
		g.mu.Unlock()
		<-p.ok
		return p.err
	}
	// Nothing is being written: write p now, with whatever queues
	// meanwhile, and leave later groups to a goroutine so that this
	// caller does not write other callers' groups for as long as they
	// keep coming.
	g.running = true
	g.mu.Unlock()
	g.writeNext()
	g.mu.Lock()
	if len(g.queue) > 0 {
		go g.drain()
	} else {
		g.running = false
	}
	g.mu.Unlock()
	<-p.ok
	return p.err
}

// drain writes the queued completions until none is left.
func (g *chunkCompleter) drain() {
	for g.writeNext() {
	}
}

// writeNext writes the first completeGroupMax queued completions together
// and reports whether there were any; with none it marks the completer
// idle.
func (g *chunkCompleter) writeNext() bool {
	g.mu.Lock()
	n := min(len(g.queue), completeGroupMax)
	if n == 0 {
		g.running = false
		g.mu.Unlock()
		return false
	}
	group := g.queue[:n:n]
	g.queue = g.queue[n:]
	if len(g.queue) == 0 {
		g.queue = nil
	}
	g.mu.Unlock()
	g.write(group)
	return true
}

// write records group in one transaction. When that fails and the group
// holds more than one completion, each is recorded on its own, so that
// one bad outcome (a chunk deleted meanwhile, say) fails alone.
func (g *chunkCompleter) write(group []*pendingCompletion) {
	defer func() {
		for _, p := range group {
			close(p.ok)
		}
	}()
	// The group's transaction is no caller's: any of them may give up
	// without rolling back the others.
	ctx, cancel := bookkeepingContext(context.Background())
	defer cancel()
	done := make([]sqlstore.ChunkDone, len(group))
	for i, p := range group {
		done[i] = p.done
	}
	err := g.q.batches.InChunkTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		// The jobs' rows first, as completeChunk takes them.
		if err := g.completeJobs(ctx, tx, group); err != nil {
			return err
		}
		writes, err := g.q.batches.CompleteChunksTx(ctx, tx, done)
		if err != nil {
			return err
		}
		for _, w := range writes {
			if err := g.q.followTx(ctx, tx, w); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil || len(group) == 1 {
		for _, p := range group {
			p.err = err
		}
		return
	}
	for _, p := range group {
		p.err = g.q.completeChunk(p.ctx, p.done.BatchID, p.done.Index, p.done.Out, func(ctx context.Context, tx *sql.Tx) error {
			return g.completeJobs(ctx, tx, []*pendingCompletion{p})
		})
	}
}

// completeJobs marks the group's jobs completed in tx, those still
// running, in one statement.
func (g *chunkCompleter) completeJobs(ctx context.Context, tx *sql.Tx, group []*pendingCompletion) error {
	n := len(group)
	now := time.Now().UTC()
	params := &riverdriver.JobSetStateIfRunningManyParams{
		ID:              make([]int64, n),
		Attempt:         make([]*int, n),
		ErrData:         make([][]byte, n),
		FinalizedAt:     make([]*time.Time, n),
		MetadataDoMerge: make([]bool, n),
		MetadataUpdates: make([][]byte, n),
		ScheduledAt:     make([]*time.Time, n),
		State:           make([]rivertype.JobState, n),
	}
	for i, p := range group {
		params.ID[i] = p.jobID
		params.FinalizedAt[i] = &now
		params.State[i] = rivertype.JobStateCompleted
	}
	if _, err := g.q.client.Driver().UnwrapExecutor(tx).JobSetStateIfRunningMany(ctx, params); err != nil {
		return fmt.Errorf("complete %d jobs: %w", n, err)
	}
	return nil
}
