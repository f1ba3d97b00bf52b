package jobs

import "github.com/seedengine/seedengine"

// ContractChunkArgs are the args of the job that processes one chunk of a
// contract batch: domains whose evidence becomes draft seed contracts.
type ContractChunkArgs struct {
	BatchID string `json:"batch_id"`
	Chunk   int    `json:"chunk"` // index of the chunk in its batch
}

// Kind names the job's worker. It is stored with every job, so it never
// changes.
func (ContractChunkArgs) Kind() string { return "contract_chunk" }

// BatchChunk returns the batch id and chunk index the job works on.
func (a ContractChunkArgs) BatchChunk() (string, int) { return a.BatchID, a.Chunk }

func (ContractChunkArgs) batchKind() seedengine.BatchKind { return seedengine.BatchContract }
