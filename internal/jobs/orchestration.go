package jobs

import "github.com/seedengine/seedengine"

// OrchestrationFileArgs are the args of the job that processes one chunk of
// an orchestration batch: one raw dataset file whose domains are collected.
type OrchestrationFileArgs struct {
	BatchID string `json:"batch_id"`
	Chunk   int    `json:"chunk"` // index of the chunk (the file) in its batch
}

// Kind names the job's worker. It is stored with every job, so it never
// changes.
func (OrchestrationFileArgs) Kind() string { return "orchestration_file" }

// BatchChunk returns the batch id and chunk index the job works on.
func (a OrchestrationFileArgs) BatchChunk() (string, int) { return a.BatchID, a.Chunk }

func (OrchestrationFileArgs) batchKind() seedengine.BatchKind { return seedengine.BatchOrchestration }
