package jobs

import (
	"github.com/riverqueue/river"

	"github.com/seedengine/seedengine"
)

// OrchestrationFileArgs are the args of the job that processes one raw
// dataset file of an orchestration batch (the file step): its domains are
// extracted and spawned as domain jobs.
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

// OrchestrationDomainArgs are the args of the job that collects one domain
// of an orchestration batch (the domain step): robots.txt, the sitemap and
// domain_metadata.json.
type OrchestrationDomainArgs struct {
	BatchID string `json:"batch_id"`
	Chunk   int    `json:"chunk"` // index of the chunk (the domain) in its batch
}

// Kind names the job's worker. It is stored with every job, so it never
// changes.
func (OrchestrationDomainArgs) Kind() string { return "orchestration_domain" }

// BatchChunk returns the batch id and chunk index the job works on.
func (a OrchestrationDomainArgs) BatchChunk() (string, int) { return a.BatchID, a.Chunk }

func (OrchestrationDomainArgs) batchKind() seedengine.BatchKind { return seedengine.BatchOrchestration }

// InsertOpts puts domain jobs on their own River queue, QueueDomains, with
// its own worker count: they are many, short and spend most of their time
// waiting for politeness, so they get more workers than chunk jobs and
// cannot starve them.
func (OrchestrationDomainArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueDomains}
}
