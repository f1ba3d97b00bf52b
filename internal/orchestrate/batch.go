package orchestrate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/discover"
	"github.com/seedengine/seedengine/internal/layout"
)

// ChunkLister lists a partition's raw files; seedengine.DatasetService is
// one.
type ChunkLister interface {
	ListChunks(ctx context.Context, p seedengine.Partition) ([]seedengine.ChunkInfo, error)
}

// BatchPlan is an orchestration batch to create (nil when every file is
// checkpointed already) with its file chunks, and what was found.
type BatchPlan struct {
	Batch      *seedengine.Batch
	Chunks     []*seedengine.BatchChunk
	FilesFound int // raw_NNNN.json files of the partition
	Skipped    int // checkpointed files left out (0 with force)
}

// Plan lists the partition's raw files in chunk order and makes one file
// chunk of each that is not checkpointed (each one with force): the batch
// for the queue to create. Domain chunks are spawned by the file chunks as
// they run.
func Plan(ctx context.Context, files ChunkLister, p seedengine.Partition, force bool) (BatchPlan, error) {
	if err := p.Validate(); err != nil {
		return BatchPlan{}, err
	}
	found, err := files.ListChunks(ctx, p)
	if err != nil {
		return BatchPlan{}, err
	}
	plan := BatchPlan{FilesFound: len(found)}
	for _, f := range found {
		if f.Completed && !force {
			plan.Skipped++
			continue
		}
		input, err := json.Marshal(FileInput{Key: f.Key, Chunk: f.Chunk})
		if err != nil {
			return BatchPlan{}, err
		}
		plan.Chunks = append(plan.Chunks, &seedengine.BatchChunk{Step: seedengine.StepFile, Key: f.Key, Input: input, Items: 1})
	}
	if len(plan.Chunks) == 0 {
		return plan, nil
	}
	params, err := json.Marshal(seedengine.OrchestrationBatchParams{Date: p.Date, Force: force})
	if err != nil {
		return BatchPlan{}, err
	}
	plan.Batch = &seedengine.Batch{Kind: seedengine.BatchOrchestration, Country: p.Country, Category: p.Category, ChunkSize: 1, Params: params}
	return plan, nil
}

// FileJob is the queue job that runs one file chunk of an orchestration
// batch (the file step); DomainJob runs one domain chunk (the domain
// step). Their kinds are stored with every job, so they never change.
type (
	FileJob   struct{ seedengine.ChunkRef }
	DomainJob struct{ seedengine.ChunkRef }
)

// Kind names the job.
func (FileJob) Kind() string { return "orchestration_file" }

// Kind names the job.
func (DomainJob) Kind() string { return "orchestration_domain" }

// FileInput is the input of a file chunk of an orchestration batch.
type FileInput struct {
	Key   string `json:"key"`   // raw/country=…/category=…/date=…/raw_NNNN.json
	Chunk int    `json:"chunk"` // NNNN
}

// DomainInput is the input of a domain chunk, spawned by a file chunk.
type DomainInput struct {
	DomainID   string `json:"domain_id"`
	Domain     string `json:"domain"`
	RawFileKey string `json:"raw_file_key"`
}

// FileResult is a file chunk's result. Batch results add chunk results up
// (seedengine.MergeResults), so an orchestration batch's result counts
// files, records and domains over the whole partition.
type FileResult struct {
	Files            FileCounts     `json:"files"`
	Records          int            `json:"records"`
	BadRecords       int            `json:"bad_records"`
	BadReasons       map[string]int `json:"bad_reasons,omitempty"`
	DuplicateRecords int            `json:"duplicate_records"`
	// DomainsExtracted counts the unique domains of each file; a domain in
	// several files counts once per file. "chunks_spawned" (added by the
	// batch store) counts the domain jobs actually queued: once per domain
	// of the batch.
	DomainsExtracted int `json:"domains_extracted"`
}

// FileCounts counts files by what happened to them.
type FileCounts struct {
	Processed int `json:"processed"`
	Skipped   int `json:"skipped"` // checkpointed since the batch was queued
}

// DomainResult is a domain chunk's result.
type DomainResult struct {
	Domains  DomainCounts   `json:"domains"`
	Robots   map[string]int `json:"robots,omitempty"` // by robots result: parsed, unavailable, unreachable
	Sitemaps SitemapCounts  `json:"sitemaps"`
}

// DomainCounts counts domains by what happened to them.
type DomainCounts struct {
	Collected int `json:"collected"`
	Skipped   int `json:"skipped"` // checkpointed (collected by an earlier run or file)
}

// SitemapCounts counts the sitemaps found and their URLs, and the
// domains whose news sitemap was found.
type SitemapCounts struct {
	Found     int `json:"found"`
	URLs      int `json:"urls"`
	NewsFound int `json:"news_found"`
}

// RawStore is what the file step needs of the object store; any
// seedengine.ObjectStore is one.
type RawStore interface {
	NewReader(ctx context.Context, key string) (io.ReadCloser, int64, error)
	Exists(ctx context.Context, key string) (bool, error)
	Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error)
}

// ChunkProcessor returns the processor of orchestration batch chunks, to
// register with the queue for seedengine.BatchOrchestration. The batch's
// params are a seedengine.OrchestrationBatchParams; its chunks are files
// (seedengine.StepFile, input FileInput), which spawn domains
// (seedengine.StepDomain, input DomainInput).
//
// A file chunk is skipped at once when the file's .success checkpoint
// exists and the run is not forced. Otherwise the file is read as a stream
// and its domains extracted (ExtractDomains); each unique domain becomes a
// domain chunk spawned in the transaction that records the file's outcome
// — the batch store adds a domain once per batch however many files name
// it — and the checkpoint is written after that transaction commits, last.
// A malformed file fails the attempt with its reason and is retried like
// any failure (a file being re-uploaded may be whole next time), then
// fails its chunk; it never gets a checkpoint.
//
// A domain chunk runs the Collector, which skips a domain whose
// domain_metadata.json.success exists unless forced.
func ChunkProcessor(store RawStore, c *discover.Classifier, collector *Collector, log *slog.Logger) func(context.Context, *seedengine.Batch, *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
	if c == nil {
		c = discover.DefaultClassifier()
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(ctx context.Context, b *seedengine.Batch, ch *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
		var params seedengine.OrchestrationBatchParams
		if err := json.Unmarshal(b.Params, &params); err != nil {
			return seedengine.ChunkOutcome{}, seedengine.Errorf(seedengine.EINVALID, "orchestration batch %s: params are not {\"date\", \"force\"}: %v", b.ID, err)
		}
		p := seedengine.Partition{Country: b.Country, Category: b.Category, Date: params.Date}
		if err := p.Validate(); err != nil {
			return seedengine.ChunkOutcome{}, fmt.Errorf("orchestration batch %s: %w", b.ID, err)
		}
		switch ch.Step {
		case seedengine.StepFile:
			return processFile(ctx, store, c, log, b, ch, p, params.Force)
		case seedengine.StepDomain:
			return collectDomain(ctx, collector, b, ch, p, params.Force)
		}
		return seedengine.ChunkOutcome{}, seedengine.Errorf(seedengine.EINVALID, "orchestration batch %s chunk %d: unknown step %q", b.ID, ch.Index, ch.Step)
	}
}

func processFile(ctx context.Context, store RawStore, c *discover.Classifier, log *slog.Logger, b *seedengine.Batch, ch *seedengine.BatchChunk, p seedengine.Partition, force bool) (seedengine.ChunkOutcome, error) {
	var in FileInput
	if err := json.Unmarshal(ch.Input, &in); err != nil {
		return seedengine.ChunkOutcome{}, seedengine.Errorf(seedengine.EINVALID, "orchestration batch %s chunk %d: input is not {\"key\", \"chunk\"}: %v", b.ID, ch.Index, err)
	}
	checkpoint, err := layout.RawCheckpointKey(p, in.Chunk)
	if err != nil {
		return seedengine.ChunkOutcome{}, fmt.Errorf("orchestration batch %s chunk %d: %w", b.ID, ch.Index, err)
	}
	attrs := []any{"event", "file_processor_start", "batch_id", b.ID, "key", in.Key,
		slog.Group("partition", "country", p.Country, "category", p.Category, "date", p.Date), "force", force}
	log.Info("file processor start", attrs...)
	start := time.Now()

	if !force {
		done, err := store.Exists(ctx, checkpoint)
		if err != nil {
			return seedengine.ChunkOutcome{}, fmt.Errorf("check %s: %w", checkpoint, err)
		}
		if done {
			log.Info("file already processed", append(attrs[2:], "event", "file_processing_complete", "skipped", true)...)
			return outcome(FileResult{Files: FileCounts{Skipped: 1}}, nil, nil)
		}
	}

	rd, _, err := store.NewReader(ctx, in.Key)
	if err != nil {
		return seedengine.ChunkOutcome{}, fmt.Errorf("open %s: %w", in.Key, err)
	}
	fd, err := ExtractDomains(rd, c, p)
	rd.Close()
	if err != nil {
		if seedengine.ErrorCode(err) == seedengine.EINVALID {
			// Not EINVALID for the queue: a malformed file is retried (it
			// may be mid-replacement), then fails its chunk.
			msg := strings.TrimPrefix(seedengine.ErrorMessage(err), "malformed raw file: ")
			return seedengine.ChunkOutcome{}, fmt.Errorf("malformed raw file %s: %s", in.Key, msg)
		}
		return seedengine.ChunkOutcome{}, fmt.Errorf("read %s: %w", in.Key, err)
	}
	log.Info("domains extracted", append(attrs[2:], "event", "domains_extracted", "records", fd.Records, "bad_records", fd.Bad,
		"duplicates", fd.Duplicates, "domains", len(fd.Domains))...)

	spawn := make([]*seedengine.BatchChunk, 0, len(fd.Domains))
	for _, d := range fd.Domains {
		input, err := json.Marshal(DomainInput{DomainID: d.DomainID, Domain: d.Domain, RawFileKey: in.Key})
		if err != nil {
			return seedengine.ChunkOutcome{}, fmt.Errorf("encode domain %s: %w", d.Domain, err)
		}
		spawn = append(spawn, &seedengine.BatchChunk{Step: seedengine.StepDomain, Key: d.Domain, Input: input, Items: 1})
	}
	res := FileResult{Files: FileCounts{Processed: 1}, Records: fd.Records, BadRecords: fd.Bad, DuplicateRecords: fd.Duplicates,
		DomainsExtracted: len(fd.Domains)}
	if len(fd.BadReasons) > 0 {
		res.BadReasons = fd.BadReasons
	}
	after := func(ctx context.Context) error {
		if _, err := store.Put(ctx, checkpoint, bytes.NewReader(nil), "application/octet-stream"); err != nil {
			return fmt.Errorf("write checkpoint %s: %w", checkpoint, err)
		}
		log.Info("file processing complete", append(attrs[2:], "event", "file_processing_complete", "domains", len(fd.Domains),
			"duration_ms", time.Since(start).Milliseconds())...)
		return nil
	}
	return outcome(res, spawn, after)
}

func collectDomain(ctx context.Context, collector *Collector, b *seedengine.Batch, ch *seedengine.BatchChunk, p seedengine.Partition, force bool) (seedengine.ChunkOutcome, error) {
	var in DomainInput
	if err := json.Unmarshal(ch.Input, &in); err != nil {
		return seedengine.ChunkOutcome{}, seedengine.Errorf(seedengine.EINVALID, "orchestration batch %s chunk %d: input is not a domain: %v", b.ID, ch.Index, err)
	}
	if collector == nil {
		return seedengine.ChunkOutcome{}, seedengine.Errorf(seedengine.ENOTIMPLEMENTED, "orchestration batch %s: no domain collector in this process", b.ID)
	}
	r, err := collector.Collect(ctx, p, in.DomainID, in.Domain, in.RawFileKey, force)
	if err != nil {
		return seedengine.ChunkOutcome{}, fmt.Errorf("collect %s: %w", in.Domain, err)
	}
	var res DomainResult
	if r.Skipped {
		res.Domains.Skipped = 1
		return outcome(res, nil, nil)
	}
	res.Domains.Collected = 1
	if m := r.Metadata; m != nil {
		res.Robots = map[string]int{m.Robots.Result: 1}
		if m.Sitemap.Exists {
			res.Sitemaps = SitemapCounts{Found: 1, URLs: m.Sitemap.URLCount}
		}
		if m.NewsSitemap.Exists {
			res.Sitemaps.NewsFound = 1
		}
	}
	return outcome(res, nil, nil)
}

// outcome is one succeeded item with its result.
func outcome(res any, spawn []*seedengine.BatchChunk, after func(context.Context) error) (seedengine.ChunkOutcome, error) {
	b, err := json.Marshal(res)
	if err != nil {
		return seedengine.ChunkOutcome{}, fmt.Errorf("encode result: %w", err)
	}
	return seedengine.ChunkOutcome{Succeeded: 1, Result: b, Spawn: spawn, AfterCommit: after}, nil
}

// ChunkReader finds a batch's chunks; seedengine.BatchService is one.
type ChunkReader interface {
	FindBatchChunk(ctx context.Context, batchID string, index int) (*seedengine.BatchChunk, error)
}

// Finisher returns the finisher of orchestration batches, to register with
// the queue for seedengine.BatchOrchestration. A file's checkpoint is
// written just after the transaction that records the file; a process
// that dies in between would leave the file without one and the next
// orchestration would read it again. Once the batch has finished, the
// finisher writes the checkpoint of every file chunk that is done and was
// processed, when it is missing. File chunks come first in a batch (the
// domain chunks they spawn follow), so it reads chunks from index 0 until
// the first that is not a file. Safe to repeat.
func Finisher(store RawStore, chunks ChunkReader) func(context.Context, *seedengine.Batch) error {
	return func(ctx context.Context, b *seedengine.Batch) error {
		var params seedengine.OrchestrationBatchParams
		if err := json.Unmarshal(b.Params, &params); err != nil {
			return seedengine.Errorf(seedengine.EINVALID, "orchestration batch %s: params: %v", b.ID, err)
		}
		p := seedengine.Partition{Country: b.Country, Category: b.Category, Date: params.Date}
		for i := 0; i < b.Chunks.Total; i++ {
			ch, err := chunks.FindBatchChunk(ctx, b.ID, i)
			if err != nil {
				return fmt.Errorf("orchestration batch %s: %w", b.ID, err)
			}
			if ch.Step != seedengine.StepFile {
				return nil
			}
			var res FileResult
			if ch.Status != seedengine.ChunkDone || json.Unmarshal(ch.Result, &res) != nil || res.Files.Processed == 0 {
				continue
			}
			var in FileInput
			if err := json.Unmarshal(ch.Input, &in); err != nil {
				continue
			}
			key, err := layout.RawCheckpointKey(p, in.Chunk)
			if err != nil {
				return fmt.Errorf("orchestration batch %s: %w", b.ID, err)
			}
			ok, err := store.Exists(ctx, key)
			if err != nil {
				return fmt.Errorf("check %s: %w", key, err)
			}
			if ok {
				continue
			}
			if _, err := store.Put(ctx, key, bytes.NewReader(nil), "application/octet-stream"); err != nil {
				return fmt.Errorf("write checkpoint %s: %w", key, err)
			}
		}
		return nil
	}
}
