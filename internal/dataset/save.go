package dataset

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/layout"
)

// maxWriteAttempts bounds how many chunk numbers one save tries. Only
// files written outside the engine (an upload racing a save) make a number
// fail, so a handful of attempts is plenty.
const maxWriteAttempts = 8

// releaseTimeout bounds freeing a reservation after a failed write. It
// runs on a context detached from the request, so a client that hangs up
// mid-upload still gives its number back.
const releaseTimeout = 10 * time.Second

// stageBuffer batches the small writes of the validating reader into the
// staging file.
const stageBuffer = 256 << 10

var errAbandoned = errors.New("write abandoned")

// MetaOriginField is the meta member in which the engine records the
// origin of a chunk it writes with one ("batch:{id}:{chunk}"). It rides in
// DatasetMeta.Extra, so other readers see an ordinary extra field; adopt
// trusts a file only when it carries the very origin being written.
const MetaOriginField = "origin"

// DatasetID returns the dataset_id of chunk n of p as the engine writes it
// into meta: "sg-news-2026-01-28-0001".
func DatasetID(p seedengine.Partition, n int) string {
	name, err := seedengine.ChunkName(n)
	if err != nil {
		name = strconv.Itoa(n) // never for a number the index handed out
	}
	return p.Country + "-" + p.Category + "-" + p.Date + "-" + strings.TrimPrefix(name, "raw_")
}

// SaveDataset validates the dataset read from r against p and stores it,
// byte for byte as sent, as the next chunk of p; a zero p takes the
// partition the dataset's meta names. The body streams through
// the validator into a temporary file, which is then uploaded: memory use
// does not grow with the body, and nothing reaches the store unless the
// whole dataset is valid. EINVALID names the first bad field; an error of
// r itself (a body over its limit) is returned wrapped.
func (s *Service) SaveDataset(ctx context.Context, p seedengine.Partition, r io.Reader) (seedengine.ChunkInfo, error) {
	fromMeta := p == (seedengine.Partition{})
	if !fromMeta {
		if err := p.Validate(); err != nil {
			return seedengine.ChunkInfo{}, err
		}
	}
	f, err := os.CreateTemp(s.TempDir, "seedengine-dataset-*.json")
	if err != nil {
		return seedengine.ChunkInfo{}, fmt.Errorf("stage dataset: %w", err)
	}
	defer func() {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}()
	bw := bufio.NewWriterSize(f, stageBuffer)
	// ValidateDataset reads to the end of r (it rejects trailing data), so
	// the tee sees every byte.
	meta, records, err := seedengine.ValidateDataset(io.TeeReader(r, bw), p)
	if err != nil {
		return seedengine.ChunkInfo{}, err
	}
	if fromMeta {
		if p, err = seedengine.PartitionOfMeta(&meta); err != nil {
			return seedengine.ChunkInfo{}, err // ValidateDataset checked it: never
		}
	}
	if err := bw.Flush(); err != nil {
		return seedengine.ChunkInfo{}, fmt.Errorf("stage dataset: %w", err)
	}
	info, err := s.writeChunk(ctx, p, "", records, func(int) (io.Reader, func() error, error) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, nil, fmt.Errorf("stage dataset: %w", err)
		}
		return f, func() error { return nil }, nil
	}, nil)
	if err != nil {
		return seedengine.ChunkInfo{}, err
	}
	s.logger.InfoContext(ctx, "dataset chunk saved", "event", "dataset_chunk_saved",
		"key", info.Key, "bytes", info.Bytes, "records", info.Records)
	return info, nil
}

// SaveDatasetFrom writes a dataset built in memory (research) as the next
// chunk of p. It fills meta's country, category and date when empty, sets
// record_count and dataset_id ({country}-{category}-{date}-{NNNN}), and
// validates ds like SaveDataset. ds.Meta is left unchanged; the records
// are only read.
//
// With a non-empty origin the write is idempotent, because jobs run at
// least once: a chunk already written for origin is returned as it is; a
// number reserved for origin by an attempt that died before writing is
// written now; and one written by an attempt that died before indexing it
// (the object carries this number's dataset_id and, in meta's "origin"
// member, this origin) is indexed and returned. A file that only looks
// alike (same dataset_id, another or no origin) is never adopted. An error
// reading that file is returned, keeping the reservation, so the job's
// retry decides again. ECONFLICT when origin belongs to another partition.
func (s *Service) SaveDatasetFrom(ctx context.Context, p seedengine.Partition, origin string, ds *seedengine.Dataset) (seedengine.ChunkInfo, error) {
	if err := p.Validate(); err != nil {
		return seedengine.ChunkInfo{}, err
	}
	if ds == nil {
		return seedengine.ChunkInfo{}, seedengine.FieldErrorf("dataset", "dataset is required")
	}
	if origin != "" {
		c, err := s.index.FindChunkByOrigin(ctx, origin)
		switch {
		case err == nil:
			if c.Partition != p {
				return seedengine.ChunkInfo{}, seedengine.Errorf(seedengine.ECONFLICT,
					"origin %q already wrote a chunk of %s/%s/%s", origin, c.Country, c.Category, c.Date)
			}
			info, err := s.statChunk(ctx, p, c.Chunk)
			if err != nil {
				return seedengine.ChunkInfo{}, err
			}
			if info != nil {
				info.Records, info.Origin = c.Records, c.Origin
				return *info, nil
			}
			// Indexed but gone from the store: write it again; the
			// reservation by origin hands back the same number.
		case seedengine.ErrorCode(err) != seedengine.ENOTFOUND:
			return seedengine.ChunkInfo{}, fmt.Errorf("save dataset: %w", err)
		}
	}

	out := *ds
	if out.Meta.Country == "" {
		out.Meta.Country = strings.ToUpper(p.Country)
	}
	if out.Meta.Category == "" {
		out.Meta.Category = p.Category
	}
	if out.Meta.Date == "" {
		out.Meta.Date = p.Date
	}
	out.Meta.RecordCount = len(out.Records)
	if origin != "" {
		o, err := json.Marshal(origin)
		if err != nil {
			return seedengine.ChunkInfo{}, fmt.Errorf("save dataset: %w", err)
		}
		extra := make(map[string]json.RawMessage, len(out.Meta.Extra)+1)
		maps.Copy(extra, out.Meta.Extra)
		extra[MetaOriginField] = o
		out.Meta.Extra = extra
	}
	if err := out.Validate(p); err != nil {
		return seedengine.ChunkInfo{}, err
	}

	body := func(n int) (io.Reader, func() error, error) {
		out.Meta.DatasetID = DatasetID(p, n)
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			_, err := out.WriteTo(pw)
			pw.CloseWithError(err)
			done <- err
		}()
		// Closing the read side unblocks the encoder when the store gave
		// up before reading everything (a taken number).
		return pr, func() error {
			_ = pr.CloseWithError(errAbandoned)
			return <-done
		}, nil
	}
	var adopt func(int) (*seedengine.ChunkInfo, error)
	if origin != "" {
		adopt = func(n int) (*seedengine.ChunkInfo, error) { return s.adopt(ctx, p, n, origin) }
	}
	info, err := s.writeChunk(ctx, p, origin, len(out.Records), body, adopt)
	if err != nil {
		return seedengine.ChunkInfo{}, err
	}
	s.logger.InfoContext(ctx, "dataset chunk saved", "event", "dataset_chunk_saved",
		"key", info.Key, "bytes", info.Bytes, "records", info.Records, "origin", origin)
	return info, nil
}

// adopt decides whether the object found at number n, reserved for origin,
// is the work of an earlier attempt with that origin: it is when its meta
// carries the dataset_id this number gets and origin in MetaOriginField.
// Then it is indexed and returned; nil when the file is someone else's (or
// gone). A failure to read it is an error, not a verdict: treating it as a
// foreign file would release the number and write the records a second
// time.
func (s *Service) adopt(ctx context.Context, p seedengine.Partition, n int, origin string) (*seedengine.ChunkInfo, error) {
	info, err := s.statChunk(ctx, p, n)
	if err != nil {
		return nil, fmt.Errorf("save dataset: adopt: %w", err)
	}
	if info == nil {
		return nil, nil
	}
	rc, _, err := s.store.NewReader(ctx, info.Key)
	if seedengine.ErrorCode(err) == seedengine.ENOTFOUND {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("save dataset: adopt %q: %w", info.Key, err)
	}
	dr := seedengine.NewDatasetReader(rc)
	m, ok := dr.Meta()
	_ = rc.Close()
	if err := dr.Err(); err != nil && seedengine.ErrorCode(err) != seedengine.EINVALID {
		return nil, fmt.Errorf("save dataset: adopt %q: %w", info.Key, err)
	}
	if !ok || m.DatasetID != DatasetID(p, n) || m.RecordCount <= 0 || metaOrigin(m) != origin {
		return nil, nil
	}
	info.Records, info.Origin = m.RecordCount, origin
	if err := s.index.IndexChunk(ctx, *info); err != nil {
		return nil, fmt.Errorf("save dataset: index adopted chunk: %w", err)
	}
	s.logger.InfoContext(ctx, "adopted a chunk written by an earlier attempt", "event", "dataset_chunk_adopted",
		"key", info.Key, "origin", origin)
	return info, nil
}

// metaOrigin returns the origin the engine recorded in m; "" when none.
func metaOrigin(m seedengine.DatasetMeta) string {
	var o string
	if raw, ok := m.Extra[MetaOriginField]; !ok || json.Unmarshal(raw, &o) != nil {
		return ""
	}
	return o
}

// writeChunk reserves a chunk number, at or above the highest in the
// store, and writes the reader body returns for it with PutIfAbsent. A
// number taken by a file the index did not know is released and the next
// one above the highest in the store tried, after adopt (when set) has had
// its say. Any other failure releases the reservation. On success the
// chunk is indexed with records.
//
// The store is listed the first time this process writes to a partition
// and after such a conflict, not for every write: the index knows every
// chunk the deployment wrote since, and a listing per write cost a LIST of
// the whole partition (thousands of keys on S3) for every chunk.
func (s *Service) writeChunk(ctx context.Context, p seedengine.Partition, origin string, records int,
	body func(n int) (io.Reader, func() error, error),
	adopt func(n int) (*seedengine.ChunkInfo, error),
) (seedengine.ChunkInfo, error) {
	highest, err := s.storeFloor(ctx, p)
	if err != nil {
		return seedengine.ChunkInfo{}, err
	}
	atLeast := highest + 1
	for range maxWriteAttempts {
		n, err := s.index.ReserveChunk(ctx, p, origin, atLeast)
		if err != nil {
			return seedengine.ChunkInfo{}, fmt.Errorf("save dataset: reserve chunk: %w", err)
		}
		key, err := layout.RawChunkKey(p, n)
		if err != nil {
			s.release(ctx, p, n)
			return seedengine.ChunkInfo{}, err
		}
		r, finish, err := body(n)
		if err != nil {
			s.release(ctx, p, n)
			return seedengine.ChunkInfo{}, err
		}
		size, err := s.store.PutIfAbsent(ctx, key, r, ContentType)
		// A failed encoding already failed the upload through the pipe;
		// finish only has to stop and collect the encoder.
		if ferr := finish(); err == nil && ferr != nil && !errors.Is(ferr, errAbandoned) {
			err = ferr
		}
		if err == nil {
			name, _ := layout.ChunkName(n)
			info := seedengine.ChunkInfo{
				Partition: p, Chunk: n, Name: name, Key: key, Bytes: size,
				Records: records, Origin: origin, ModTime: s.now(),
			}
			// The chunk is stored whatever the index says; a listing
			// re-indexes it if this fails.
			s.indexChunk(ctx, info)
			return info, nil
		}
		if seedengine.ErrorCode(err) != seedengine.ECONFLICT {
			s.release(ctx, p, n)
			return seedengine.ChunkInfo{}, fmt.Errorf("save dataset: %w", err)
		}
		if adopt != nil {
			info, err := adopt(n)
			if err != nil {
				return seedengine.ChunkInfo{}, err
			}
			if info != nil {
				return *info, nil
			}
		}
		s.release(ctx, p, n)
		s.logger.WarnContext(ctx, "chunk number taken by a file the index did not know", "event", "dataset_chunk_taken", "key", key)
		if highest, err = s.highestChunk(ctx, p); err != nil {
			return seedengine.ChunkInfo{}, err
		}
		s.setFloor(p, highest)
		atLeast = max(n, highest) + 1
	}
	return seedengine.ChunkInfo{}, seedengine.Errorf(seedengine.ECONFLICT,
		"no free chunk number in %s/%s/%s after %d attempts; files are being written there by other means", p.Country, p.Category, p.Date, maxWriteAttempts)
}

// release frees a reservation on a context of its own, so a cancelled
// request still gives its number back.
func (s *Service) release(ctx context.Context, p seedengine.Partition, n int) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	if err := s.index.ReleaseChunk(ctx, p, n); err != nil {
		s.logger.WarnContext(ctx, "cannot release a chunk reservation", "event", "dataset_release_failed",
			"country", p.Country, "category", p.Category, "date", p.Date, "chunk", n, "error", err)
	}
}

// storeFloor returns the highest chunk number the store held for p when
// this process last listed it, listing it the first time.
func (s *Service) storeFloor(ctx context.Context, p seedengine.Partition) (int, error) {
	s.floorsMu.Lock()
	highest, ok := s.floors[p]
	s.floorsMu.Unlock()
	if ok {
		return highest, nil
	}
	highest, err := s.highestChunk(ctx, p)
	if err != nil {
		return 0, err
	}
	s.setFloor(p, highest)
	return highest, nil
}

func (s *Service) setFloor(p seedengine.Partition, highest int) {
	s.floorsMu.Lock()
	defer s.floorsMu.Unlock()
	if len(s.floors) >= maxFloors {
		clear(s.floors)
	}
	s.floors[p] = max(s.floors[p], highest)
}

// highestChunk returns the highest chunk number in the store for p,
// counting checkpoints whose chunk is gone, so a number is never reused
// while anything of it is left; 0 for an empty partition.
func (s *Service) highestChunk(ctx context.Context, p seedengine.Partition) (int, error) {
	prefix, err := layout.PartitionPrefix(p)
	if err != nil {
		return 0, err
	}
	highest := 0
	err = s.store.List(ctx, prefix, func(o seedengine.Object) error {
		if k, err := layout.ParseKey(o.Key); err == nil && (k.Kind == layout.KindRawChunk || k.Kind == layout.KindRawCheckpoint) {
			highest = max(highest, k.Chunk)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("save dataset: list %q: %w", prefix, err)
	}
	return highest, nil
}

// statChunk describes chunk n of p from one listing of its key (which also
// finds its checkpoint); nil when it does not exist. Records is -1.
func (s *Service) statChunk(ctx context.Context, p seedengine.Partition, n int) (*seedengine.ChunkInfo, error) {
	key, err := layout.RawChunkKey(p, n)
	if err != nil {
		return nil, err
	}
	checkpoint, err := layout.RawCheckpointKey(p, n)
	if err != nil {
		return nil, err
	}
	var info *seedengine.ChunkInfo
	completed := false
	err = s.store.List(ctx, key, func(o seedengine.Object) error {
		switch o.Key {
		case key:
			name, _ := layout.ChunkName(n)
			info = &seedengine.ChunkInfo{Partition: p, Chunk: n, Name: name, Key: key, Bytes: o.Size, Records: -1, ModTime: o.ModTime}
		case checkpoint:
			completed = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("stat chunk %q: %w", key, err)
	}
	if info != nil {
		info.Completed = completed
	}
	return info, nil
}
