package jobs

import "github.com/seedengine/seedengine"

// ResearchChunkArgs are the args of the job that processes one chunk of a
// research batch: URLs normalised into domains and stored as a raw dataset.
type ResearchChunkArgs struct {
	BatchID string `json:"batch_id"`
	Chunk   int    `json:"chunk"` // index of the chunk in its batch
}

// Kind names the job's worker. It is stored with every job, so it never
// changes.
func (ResearchChunkArgs) Kind() string { return "research_chunk" }

// BatchChunk returns the batch id and chunk index the job works on.
func (a ResearchChunkArgs) BatchChunk() (string, int) { return a.BatchID, a.Chunk }

func (ResearchChunkArgs) batchKind() seedengine.BatchKind { return seedengine.BatchResearch }
