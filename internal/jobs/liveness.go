package jobs

import "github.com/seedengine/seedengine"

// LivenessChunkArgs are the args of the job that processes one chunk of a
// liveness batch: domains probed for whether they still serve content.
type LivenessChunkArgs struct {
	BatchID string `json:"batch_id"`
	Chunk   int    `json:"chunk"` // index of the chunk in its batch
}

// Kind names the job's worker. It is stored with every job, so it never
// changes.
func (LivenessChunkArgs) Kind() string { return "liveness_chunk" }

// BatchChunk returns the batch id and chunk index the job works on.
func (a LivenessChunkArgs) BatchChunk() (string, int) { return a.BatchID, a.Chunk }

func (LivenessChunkArgs) batchKind() seedengine.BatchKind { return seedengine.BatchLiveness }
