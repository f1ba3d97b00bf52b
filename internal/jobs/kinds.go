package jobs

import (
	"fmt"

	"github.com/riverqueue/river"

	"github.com/seedengine/seedengine"
)

// The registry of batch kinds. A kind is declared once, by one call of
// Batch in internal/app, naming the job type its service package declares
// beside its Plan and processor (research.ChunkJob in
// internal/research/batch.go). The queue is built with every kind
// (New), so the set of River workers is fixed before River's client
// exists, and nothing else in this package knows one kind from another.

// ChunkJob is what a batch kind's job type must be: a struct holding only
// the chunk it runs, with a Kind method naming the River job:
//
//	type ChunkJob struct{ seedengine.ChunkRef }
//
//	func (ChunkJob) Kind() string { return "research_chunk" }
//
// Kind is all River asks of job args, so the service package declaring
// the type imports nothing of River. The kind is stored with every job,
// so it never changes.
type ChunkJob interface {
	~struct{ seedengine.ChunkRef }
	Kind() string
}

// Kind is one batch kind as the queue runs it: the job types of its
// chunks and the processor that runs them. Batch makes one.
type Kind struct {
	kind    seedengine.BatchKind
	process ChunkProcessor
	jobs    []chunkJob // jobs[0] runs the chunks of every step not named by another
}

// chunkJob is one job type of a kind: the chunks of one step, or of every
// step no other job names.
type chunkJob struct {
	step  string
	queue string // River queue; "" for the default
	args  func(seedengine.ChunkRef) river.JobArgs
	add   func(w *river.Workers, q *Queue, kind seedengine.BatchKind)
}

// StepJob gives the chunks of one step of a multi-step batch their own job
// type J, worked on River queue queue ("" for the default one). Pass it to
// Batch.
type StepJob struct{ job chunkJob }

// Batch declares batch kind k: its chunks run as jobs of type J (chunks of
// the steps that steps name, as theirs), and p processes them. p may be
// nil in a process that lacks what the kind needs (a prober, a fetcher):
// the kind's jobs can still be inserted and counted there, CreateBatch
// refuses a batch of it with ENOTIMPLEMENTED, and a chunk job that reaches
// the process anyway fails its attempt and is retried, within the usual
// attempts, wherever a processor is registered.
func Batch[J ChunkJob](k seedengine.BatchKind, p ChunkProcessor, steps ...StepJob) Kind {
	kind := Kind{kind: k, process: p, jobs: []chunkJob{jobFor[J]("", "")}}
	for _, s := range steps {
		if s.job.step == "" {
			kind.jobs[0] = s.job // the kind's own chunks, on another queue
			continue
		}
		kind.jobs = append(kind.jobs, s.job)
	}
	return kind
}

// Step makes the StepJob that runs the chunks of step as jobs of type J on
// River queue queue. A Step of step "" moves the chunks that no other step
// names (a one-step kind's all) to queue; J must then be Batch's.
func Step[J ChunkJob](step, queue string) StepJob { return StepJob{jobFor[J](step, queue)} }

func jobFor[J ChunkJob](step, queue string) chunkJob {
	return chunkJob{
		step:  step,
		queue: queue,
		args:  func(ref seedengine.ChunkRef) river.JobArgs { return J(struct{ seedengine.ChunkRef }{ref}) },
		add: func(w *river.Workers, q *Queue, kind seedengine.BatchKind) {
			addWorker(q, w, &chunkWorker[J]{q: q, kind: kind})
		},
	}
}

// job returns the job type that runs chunks of step.
func (k *Kind) job(step string) *chunkJob {
	for i := 1; i < len(k.jobs); i++ {
		if k.jobs[i].step == step {
			return &k.jobs[i]
		}
	}
	return &k.jobs[0]
}

// addKinds registers each kind with q and its job types' workers with w,
// panicking on the wiring mistakes of an unknown or twice declared kind.
func (q *Queue) addKinds(w *river.Workers, kinds []Kind) {
	for _, k := range kinds {
		if !k.kind.Valid() {
			panic(fmt.Sprintf("jobs: unknown batch kind %q", k.kind))
		}
		if _, dup := q.kinds[k.kind]; dup {
			panic(fmt.Sprintf("jobs: batch kind %q declared twice", k.kind))
		}
		for _, j := range k.jobs {
			j.add(w, q, k.kind)
		}
		q.kinds[k.kind] = k
	}
}

// processor returns the processor of kind's chunks, nil if this process
// runs none.
func (q *Queue) processor(kind seedengine.BatchKind) ChunkProcessor {
	return q.kinds[kind].process
}

// chunkJobArgs returns the args and insert options of the job that runs
// chunk c of batch b.
func (q *Queue) chunkJobArgs(b *seedengine.Batch, c *seedengine.BatchChunk) (river.InsertManyParams, error) {
	k, ok := q.kinds[b.Kind]
	if !ok {
		return river.InsertManyParams{}, seedengine.Errorf(seedengine.ENOTIMPLEMENTED, "%s batches cannot be processed yet", b.Kind)
	}
	j := k.job(c.Step)
	p := river.InsertManyParams{Args: j.args(seedengine.ChunkRef{BatchID: b.ID, Chunk: c.Index})}
	if j.queue != "" {
		p.InsertOpts = &river.InsertOpts{Queue: j.queue}
	}
	return p, nil
}
