package seedengine

import (
	"bytes"
	"context"
	"encoding/json"
	"time"
)

// BatchKind is the kind of work a batch does.
type BatchKind string

// Batch kinds.
const (
	BatchResearch      BatchKind = "research"
	BatchLiveness      BatchKind = "liveness"
	BatchContract      BatchKind = "contract"
	BatchOrchestration BatchKind = "orchestration"
	// BatchImport reads the entries of an imported feed list (OPML, CSV,
	// URLs) into draft seeds (internal/seedimport).
	BatchImport BatchKind = "import"
)

// Valid reports whether k is a known batch kind.
func (k BatchKind) Valid() bool {
	switch k {
	case BatchResearch, BatchLiveness, BatchContract, BatchOrchestration, BatchImport:
		return true
	}
	return false
}

// ResearchBatchParams are the params of a research batch (Batch.Params),
// stored once on the batch when the API accepts it, not copied into each
// chunk; the research chunk processor reads them for every chunk. The date
// is fixed then, so every chunk lands in the same partition however late
// it runs. The API bounds research_methods and queries (count and length)
// so the params stay small.
type ResearchBatchParams struct {
	Date            string   `json:"date"`
	ResearchMethods []string `json:"research_methods,omitempty"`
	Queries         []string `json:"queries,omitempty"`
}

// OrchestrationBatchParams are the params of a seed orchestration batch:
// the partition's date (country and category are the batch's) and whether
// the run was forced, which makes the file processor and the domain
// collector redo work their checkpoints say is done.
type OrchestrationBatchParams struct {
	Date  string `json:"date"`
	Force bool   `json:"force"`
}

// Steps of an orchestration batch's chunks. Chunks of other batches have
// no step.
const (
	StepFile   = "file"   // one raw dataset file
	StepDomain = "domain" // one domain of a partition, spawned by a file
)

// ChunkRef names one chunk of one batch. It is what a chunk's job
// carries: each batch kind declares its job type beside its Plan as a
// struct embedding ChunkRef with a Kind method naming the job (see
// internal/jobs, Batch), so a job's args encode as
// {"batch_id":…,"chunk":…} whatever its kind.
type ChunkRef struct {
	BatchID string `json:"batch_id"`
	Chunk   int    `json:"chunk"` // index of the chunk in its batch
}

// BatchStatus is where a batch is in its life.
type BatchStatus string

// Batch statuses. A batch is queued until its first chunk starts, running
// until every chunk has finished, then completed (no failed chunk or item),
// completed_with_errors (some items or chunks failed), failed (every chunk
// failed) or cancelled.
const (
	BatchQueued              BatchStatus = "queued"
	BatchRunning             BatchStatus = "running"
	BatchCompleted           BatchStatus = "completed"
	BatchCompletedWithErrors BatchStatus = "completed_with_errors"
	BatchFailed              BatchStatus = "failed"
	BatchCancelled           BatchStatus = "cancelled"
)

// Finished reports whether s is a final status.
func (s BatchStatus) Finished() bool {
	switch s {
	case BatchCompleted, BatchCompletedWithErrors, BatchFailed, BatchCancelled:
		return true
	}
	return false
}

// ChunkCounts counts the chunks of a batch by outcome.
type ChunkCounts struct {
	Total  int `json:"total"`
	Done   int `json:"done"`
	Failed int `json:"failed"`
}

// ItemCounts counts the items (URLs, domains, files) of a batch by outcome.
type ItemCounts struct {
	Total     int `json:"total"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
}

// Batch is a unit of accepted work split into chunks, each processed by one
// queued job. The batch row and its jobs are written in one transaction.
type Batch struct {
	ID         string          `json:"id"`
	Kind       BatchKind       `json:"kind"`
	Status     BatchStatus     `json:"status"`
	Country    string          `json:"country,omitempty"`
	Category   string          `json:"category,omitempty"`
	ChunkSize  int             `json:"chunk_size"`
	Chunks     ChunkCounts     `json:"chunks"`
	Items      ItemCounts      `json:"items"`
	Progress   float64         `json:"progress"`
	CreatedAt  time.Time       `json:"created_at"`
	StartedAt  *time.Time      `json:"started_at"`
	FinishedAt *time.Time      `json:"finished_at"`
	Params     json.RawMessage `json:"params,omitempty"` // kind-specific request parameters
	Result     json.RawMessage `json:"result"`           // kind-specific result, merged from chunk results
}

// ChunkStatus is where one chunk of a batch is.
type ChunkStatus string

// Chunk statuses.
const (
	ChunkQueued    ChunkStatus = "queued"
	ChunkRunning   ChunkStatus = "running"
	ChunkDone      ChunkStatus = "done"
	ChunkFailed    ChunkStatus = "failed"
	ChunkCancelled ChunkStatus = "cancelled"
)

// BatchChunk is one chunk of a batch: its input and, once processed, its
// outcome.
type BatchChunk struct {
	BatchID string `json:"batch_id"`
	Index   int    `json:"index"` // 0-based, dense within a batch
	// Step says which stage of a multi-stage batch the chunk belongs to
	// (StepFile, StepDomain); "" for single-stage batches.
	Step string `json:"step,omitempty"`
	// Key identifies what the chunk works on within its step (a raw file
	// key, a domain); a batch holds at most one chunk per step and
	// non-empty key, so spawning the same work twice adds it once.
	Key       string          `json:"key,omitempty"`
	Status    ChunkStatus     `json:"status"`
	Input     json.RawMessage `json:"input"`  // kind-specific input (URLs, domains, a file key)
	Items     int             `json:"items"`  // number of items in Input
	Result    json.RawMessage `json:"result"` // kind-specific result
	Succeeded int             `json:"succeeded"`
	Failed    int             `json:"failed"`
	Attempts  int             `json:"attempts"`
	LastError string          `json:"last_error,omitempty"`
	UpdatedAt time.Time       `json:"updated_at"`
}

// ChunkOutcome is what processing a chunk produced.
type ChunkOutcome struct {
	Succeeded int
	Failed    int
	Result    json.RawMessage
	// Spawn are chunks to add to the batch (Step, Key, Input and Items
	// set), written with their jobs in the transaction that records this
	// outcome, so the batch cannot finish before them and a crash loses
	// none. A chunk whose step and key the batch already holds is not
	// added again. The number added is merged into Result as
	// "chunks_spawned".
	Spawn []*BatchChunk
	// AfterCommit, when set, runs once the outcome has been committed, for
	// effects that must follow it (a checkpoint saying the work is done).
	// Its error is logged, not retried: the outcome stands.
	AfterCommit func(context.Context) error
}

// BatchFilter selects batches. Zero fields do not filter.
type BatchFilter struct {
	Kind   BatchKind
	Status BatchStatus
	Limit  int
	Offset int
}

// BatchService creates and reads batches. Running them is the queue's
// (internal/jobs), which records each chunk's progress with the store.
type BatchService interface {
	// CreateBatch assigns b an id if it has none, sets its status to queued
	// and its counters from chunks, and writes the batch, its chunks and
	// their jobs in one transaction. EINVALID for a batch without chunks or
	// of an unknown kind; ECONFLICT when its id is taken.
	CreateBatch(ctx context.Context, b *Batch, chunks []*BatchChunk) error

	// FindBatchByID returns a batch. ENOTFOUND when there is none.
	FindBatchByID(ctx context.Context, id string) (*Batch, error)

	// FindBatches returns batches matching f, newest first, and the total
	// number matching f regardless of Limit and Offset.
	FindBatches(ctx context.Context, f BatchFilter) ([]*Batch, int, error)

	// FindBatchChunk returns one chunk. ENOTFOUND when there is none.
	FindBatchChunk(ctx context.Context, batchID string, index int) (*BatchChunk, error)
}

// DeadLetter is a queue job that used all its attempts (or was failed at
// once) and was set aside; retrying it puts it back on the queue.
type DeadLetter struct {
	ID    int64  `json:"id"`
	Kind  string `json:"kind"`
	Queue string `json:"queue"`
	// State is the queue's: "discarded" (every attempt used) or
	// "cancelled" (failed at once, for input no retry could fix).
	State       string          `json:"state"`
	Args        json.RawMessage `json:"args"`
	BatchID     string          `json:"batch_id,omitempty"`
	Chunk       *int            `json:"chunk,omitempty"`
	Attempts    int             `json:"attempts"`
	MaxAttempts int             `json:"max_attempts"`
	LastError   string          `json:"last_error"`
	CreatedAt   time.Time       `json:"created_at"`
	FailedAt    *time.Time      `json:"failed_at,omitempty"`
}

// DeadLetterService lists and retries dead letters.
type DeadLetterService interface {
	// FindDeadLetters returns dead letters, newest first, optionally of
	// one job kind, and how many there are.
	FindDeadLetters(ctx context.Context, kind string, limit, offset int) ([]*DeadLetter, int, error)
	// RetryDeadLetter puts a dead letter back on the queue (and its batch
	// chunk back to queued). ENOTFOUND when there is no such job;
	// ECONFLICT when the job is not a dead letter.
	RetryDeadLetter(ctx context.Context, id int64) (*DeadLetter, error)
}

// MergeResults merges two kind-specific results, each a JSON object or
// empty: numbers are added, arrays concatenated, objects merged key by key,
// and any other value is replaced by the one from b. It is how chunk results
// add up to a batch result.
func MergeResults(a, b json.RawMessage) (json.RawMessage, error) {
	if len(b) == 0 || string(b) == "null" {
		return a, nil
	}
	if len(a) == 0 || string(a) == "null" {
		return b, nil
	}
	var av, bv any
	if err := json.Unmarshal(a, &av); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &bv); err != nil {
		return nil, err
	}
	return json.Marshal(mergeValue(av, bv))
}

// ResultMerger adds up many results as MergeResults does pairwise, each
// parsed once and the sum encoded once: a batch's result from its chunks'.
// The zero value is ready to use.
type ResultMerger struct {
	acc    any
	single json.RawMessage // the one result added so far, kept as written
	n      int
}

// Add merges raw (null and empty are skipped) into the sum.
func (m *ResultMerger) Add(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	m.n++
	if m.n == 1 {
		m.acc, m.single = v, raw
		return nil
	}
	m.acc = mergeValue(m.acc, v)
	return nil
}

// Result is the sum: nil when nothing was added, the one result as
// written when one was.
func (m *ResultMerger) Result() (json.RawMessage, error) {
	switch m.n {
	case 0:
		return nil, nil
	case 1:
		return m.single, nil
	}
	return json.Marshal(m.acc)
}

func mergeValue(a, b any) any {
	switch bt := b.(type) {
	case float64:
		if at, ok := a.(float64); ok {
			return at + bt
		}
	case []any:
		if at, ok := a.([]any); ok {
			return append(at, bt...)
		}
	case map[string]any:
		if at, ok := a.(map[string]any); ok {
			for k, v := range bt {
				if old, ok := at[k]; ok {
					at[k] = mergeValue(old, v)
				} else {
					at[k] = v
				}
			}
			return at
		}
	}
	return b
}

// SplitChunks cuts items into chunks of size (the last may be shorter),
// each chunk's input the JSON of input(part) and its Items the part's
// length: how a batch kind's Plan turns a request's list into chunks.
func SplitChunks[T any](items []T, size int, input func(part []T) any) ([]*BatchChunk, error) {
	if size < 1 {
		return nil, FieldErrorf("chunkSize", "chunk size must be at least 1")
	}
	chunks := make([]*BatchChunk, 0, (len(items)+size-1)/size)
	for start := 0; start < len(items); start += size {
		part := items[start:min(start+size, len(items))]
		raw, err := json.Marshal(input(part))
		if err != nil {
			return nil, err
		}
		chunks = append(chunks, &BatchChunk{Input: raw, Items: len(part)})
	}
	return chunks, nil
}

// The lifecycle rules of batches and chunks, which the store applies.

// Bounds of a chunk's step and key: a key is a file key or a domain, and
// both sit in a unique index, whose entries PostgreSQL limits to about
// 2.7 kB.
const (
	MaxChunkStepLen = 64
	MaxChunkKeyLen  = 1024
)

// ValidateNewBatch checks a batch about to be created with its chunks:
// EINVALID for no batch, an unknown kind, no chunks, a negative chunk size
// or item count, params, result or input that are not JSON, a step or key
// past its bound, or two chunks of the same step and non-empty key.
func ValidateNewBatch(b *Batch, chunks []*BatchChunk) error {
	if b == nil {
		return Errorf(EINVALID, "batch is required")
	}
	if !b.Kind.Valid() {
		return FieldErrorf("kind", "kind must be one of research, liveness, contract, orchestration")
	}
	if len(chunks) == 0 {
		return FieldErrorf("chunks", "a batch needs at least one chunk")
	}
	if b.ChunkSize < 0 {
		return FieldErrorf("chunk_size", "chunk_size must not be negative")
	}
	if err := validJSONField("params", b.Params); err != nil {
		return err
	}
	if err := validJSONField("result", b.Result); err != nil {
		return err
	}
	type stepKey struct{ step, key string }
	seen := map[stepKey]int{}
	for i, c := range chunks {
		if c == nil {
			return FieldErrorf("chunks", "chunk %d is missing", i)
		}
		if c.Items < 0 {
			return FieldErrorf("chunks", "chunk %d has a negative item count", i)
		}
		if err := validJSONField("input", c.Input); err != nil {
			return err
		}
		if err := ValidateChunkStepKey("chunks", i, c); err != nil {
			return err
		}
		if c.Key == "" {
			continue
		}
		k := stepKey{c.Step, c.Key}
		if j, ok := seen[k]; ok {
			return FieldErrorf("chunks", "chunk %d repeats the step and key of chunk %d", i, j)
		}
		seen[k] = i
	}
	return nil
}

// ValidateChunkStepKey checks chunk i's step and key against their bounds,
// as EINVALID naming field.
func ValidateChunkStepKey(field string, i int, c *BatchChunk) error {
	if len(c.Step) > MaxChunkStepLen {
		return FieldErrorf(field, "chunk %d has a step longer than %d bytes", i, MaxChunkStepLen)
	}
	if len(c.Key) > MaxChunkKeyLen {
		return FieldErrorf(field, "chunk %d has a key longer than %d bytes", i, MaxChunkKeyLen)
	}
	return nil
}

// Validate checks an outcome before it is recorded: EINVALID for negative
// counts, a result that is not JSON (or not an object when chunks are
// spawned: chunks_spawned is merged into it) or a spawned chunk without a
// step or key, with a negative item count, input that is not JSON or a
// step or key past its bound.
func (o ChunkOutcome) Validate() error {
	if o.Succeeded < 0 || o.Failed < 0 {
		return FieldErrorf("items", "succeeded and failed counts must not be negative")
	}
	if err := validJSONField("result", o.Result); err != nil {
		return err
	}
	if len(o.Spawn) == 0 {
		return nil
	}
	// chunks_spawned is merged into the result, which only an object can
	// take without losing what it holds.
	if r := bytes.TrimSpace(o.Result); len(r) > 0 && string(r) != "null" && r[0] != '{' {
		return FieldErrorf("result", "result must be a JSON object when chunks are spawned")
	}
	for i, c := range o.Spawn {
		switch {
		case c == nil:
			return FieldErrorf("spawn", "spawned chunk %d is missing", i)
		case c.Step == "":
			return FieldErrorf("spawn", "spawned chunk %d has no step", i)
		case c.Key == "":
			return FieldErrorf("spawn", "spawned chunk %d has no key", i)
		case c.Items < 0:
			return FieldErrorf("spawn", "spawned chunk %d has a negative item count", i)
		case len(c.Input) > 0 && !json.Valid(c.Input):
			return FieldErrorf("spawn", "spawned chunk %d has input that is not valid JSON", i)
		}
		if err := ValidateChunkStepKey("spawn", i, c); err != nil {
			return err
		}
	}
	return nil
}

// Open reports whether a chunk in this status may still run and record an
// outcome: queued or running.
func (s ChunkStatus) Open() bool { return s == ChunkQueued || s == ChunkRunning }

// FinalStatus is the status a batch none of whose chunks is open takes:
// failed when no chunk got done, completed when none failed and no item
// failed, completed_with_errors otherwise.
func (b *Batch) FinalStatus() BatchStatus {
	switch {
	case b.Chunks.Done == 0:
		return BatchFailed
	case b.Chunks.Failed == 0 && b.Items.Failed == 0:
		return BatchCompleted
	}
	return BatchCompletedWithErrors
}

func validJSONField(field string, raw []byte) error {
	if len(raw) > 0 && !json.Valid(raw) {
		return FieldErrorf(field, "%s is not valid JSON", field)
	}
	return nil
}
