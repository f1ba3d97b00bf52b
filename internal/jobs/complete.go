package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
)

// Chunk starts and completions on PostgreSQL, grouped.
//
// Every chunk job writes its chunk twice, at its start and at its
// completion, and each completion adds to its batch's counters, so on
// PostgreSQL it holds the batch's row lock from that update to its
// commit, fsync included. Written one job at a time, the chunks of one
// batch finish no faster than one commit after another (241 a second on
// two cores, against River's 3,600 without chunks), and every statement
// costs its round trip and a turn of a backend on the shared cores. So
// the starts and the completions that arrive while others are being
// written are written together, as River's own completer does with job
// states:
//
//   - starts: their chunk rows in one statement that reads their batches
//     without locking them (sqlstore.BatchService.StartFindBatchChunks);
//   - completions: their jobs in one statement (River's own,
//     JobSetStateIfRunningMany), their chunk rows in one, each batch's
//     counters in one, one commit (CompleteChunksTx), so a chunk's
//     outcome and its job's completion still commit together.
//
// A start or completion that arrives when nothing is being written is
// written at once, on its caller's goroutine (sqlstore.Grouper). A job no longer running
// (rescued meanwhile) is left to its new run, which finds the outcome
// recorded: a chunk is recorded only while it is open, so it counts once
// however many runs it has.

// groupMax bounds how many starts or completions share one statement.
const groupMax = 128

// chunkGroups groups a queue's chunk starts and completions.
type chunkGroups struct {
	q         *Queue
	starts    sqlstore.Grouper[*pendingStart]
	completes sqlstore.Grouper[*pendingCompletion]
}

func newChunkGroups(q *Queue) *chunkGroups {
	g := &chunkGroups{q: q}
	g.starts = sqlstore.Grouper[*pendingStart]{Write: g.writeStarts, Max: groupMax}
	g.completes = sqlstore.Grouper[*pendingCompletion]{Write: g.writeCompletions, Max: groupMax}
	return g
}

// pendingStart is one caller's start, waiting for its group.
type pendingStart struct {
	ref   seedengine.ChunkRef
	start sqlstore.ChunkStart
}

// start starts a chunk and returns it and its batch, as
// sqlstore.BatchService.StartFindBatchChunk does.
func (g *chunkGroups) start(batchID string, index int) (*seedengine.Batch, *seedengine.BatchChunk, error) {
	p := &pendingStart{ref: seedengine.ChunkRef{BatchID: batchID, Chunk: index}}
	g.starts.Do(p)
	return p.start.Batch, p.start.Chunk, p.start.Err
}

// writeStarts starts group's chunks in one statement.
func (g *chunkGroups) writeStarts(group []*pendingStart) {
	// The statement is no caller's: any of them may give up without
	// failing the others.
	ctx, cancel := bookkeepingContext(context.Background())
	defer cancel()
	refs := make([]seedengine.ChunkRef, len(group))
	for i, p := range group {
		refs[i] = p.ref
	}
	starts, _ := g.q.batches.StartFindBatchChunks(ctx, refs)
	for i, p := range group {
		p.start = starts[i]
	}
}

// pendingCompletion is one caller's completion, waiting for its group.
type pendingCompletion struct {
	ctx   context.Context
	jobID int64
	done  sqlstore.ChunkDone
	err   error
}

// complete records d (an outcome that spawns nothing), what follows it
// (the batch's finisher when it finished the batch) and the completion of
// its job, jobID, and returns once their transaction has committed or
// failed. The group's transaction is no caller's: one caller giving up
// does not roll back the others' outcomes.
func (g *chunkGroups) complete(ctx context.Context, jobID int64, d sqlstore.ChunkDone) error {
	p := &pendingCompletion{ctx: ctx, jobID: jobID, done: d}
	g.completes.Do(p)
	return p.err
}

// write records group in one transaction. When that fails and the group
// holds more than one completion, each is recorded on its own, so that
// one bad outcome (a chunk deleted meanwhile, say) fails alone.
func (g *chunkGroups) writeCompletions(group []*pendingCompletion) {
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
func (g *chunkGroups) completeJobs(ctx context.Context, tx *sql.Tx, group []*pendingCompletion) error {
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
