// Package layout is the storage layout of DESIGN §5 in one file: it builds
// and parses every object key (raw chunks and their checkpoints, prod
// domain files, liveness results, contract evidence, item files), validating each
// component before it reaches a path. It imports only the root package,
// so services name objects with it and store them through
// seedengine.ObjectStore without depending on a store.
package layout

import (
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
)

// Roots of the layout (DESIGN §5). Listing under a root and parsing each key
// with ParseKey is how callers walk the store.
const (
	RawRoot       = "raw/"
	ProdRoot      = "prod/"
	LivenessRoot  = "prod/liveness/"
	ContractsRoot = "prod/contracts/"
	ItemsRoot     = "items/"
)

// SuccessSuffix marks a checkpoint: an empty object written after the object
// it names, so a reader that sees it knows the data is complete.
const SuccessSuffix = ".success"

// RawMetadataName is the one non-chunk file a raw partition is known to hold.
const RawMetadataName = "raw_metadata.json"

// Files of a domain directory under a prod partition. ProdDomainFileKey
// accepts only these, so a typo cannot create a file nobody reads.
const (
	FileDomainMetadata        = "domain_metadata.json"
	FileDomainMetadataSuccess = "domain_metadata.json" + SuccessSuffix
	FileRobots                = "robots.txt"
	FileSitemap               = "sitemap.xml"
)

// ContractTimeLayout is the time form in contract evidence keys: UTC, one
// second resolution and no colons, so the key is a valid file name on every
// OS and sorts by time.
const ContractTimeLayout = "2006-01-02T150405Z"

// Contract run ids: what makes a contract evidence key unique when runs of
// one registrable domain start in the same second (one domain under several
// domain_ids in a batch, or two batches at once). NewContractRunID makes
// them; keys accept any [0-9a-z] token of up to maxContractRunID bytes.
const (
	contractRunIDLen = 8 // base32 characters: 40 random bits
	maxContractRunID = 32
	contractRunSep   = "-"
)

// KeyKind says which entry of the layout a key is.
type KeyKind string

// The kinds ParseKey recognises.
const (
	KindRawChunk         KeyKind = "raw_chunk"
	KindRawCheckpoint    KeyKind = "raw_checkpoint"
	KindRawMetadata      KeyKind = "raw_metadata"
	KindProdDomainFile   KeyKind = "prod_domain_file"
	KindLiveness         KeyKind = "liveness"
	KindLivenessChunk    KeyKind = "liveness_chunk"
	KindContractEvidence KeyKind = "contract_evidence"
	KindItemFile         KeyKind = "item_file"
)

// Key is a parsed object key. Only the fields of its Kind are set: Partition
// for raw, item and prod domain keys (Country and Date only for liveness),
// Chunk for raw chunks and checkpoints and for item files (the file's
// number), Domain and File for prod domain files, Domain
// Time and RunID for contract evidence (RunID is empty in keys written
// before run ids, {time}.json), BatchID for liveness results (and Chunk,
// the 0-based chunk index, for a liveness chunk's part).
type Key struct {
	Kind      KeyKind
	Partition seedengine.Partition
	Chunk     int
	Domain    string
	File      string
	BatchID   string
	Time      time.Time
	RunID     string
}

var prodDomainFiles = map[string]bool{
	FileDomainMetadata:        true,
	FileDomainMetadataSuccess: true,
	FileRobots:                true,
	FileSitemap:               true,
}

const (
	chunkExt     = ".json"
	itemsExt     = ".jsonl"
	livenessExt  = ".jsonl"
	contractExt  = ".json"
	maxBatchID   = 64
	maxDomainLen = 253
)

// PartitionPrefix returns the raw prefix of p, ending in "/", for listing
// the chunks of one partition.
func PartitionPrefix(p seedengine.Partition) (string, error) {
	if err := p.Validate(); err != nil {
		return "", err
	}
	return RawRoot + hivePath(p), nil
}

// RawFilterPrefix returns the narrowest raw prefix, ending in "/", that
// holds every partition of country and, when country is set, category:
// raw/, raw/country=sg/ or raw/country=sg/category=news/. A category
// without a country cannot narrow a listing (country comes first in the
// key) and gives raw/. EINVALID for an invalid country or category.
func RawFilterPrefix(country, category string) (string, error) {
	if country == "" {
		if category != "" {
			if err := seedengine.ValidateCategory(category); err != nil {
				return "", err
			}
		}
		return RawRoot, nil
	}
	if err := seedengine.ValidateCountry(country); err != nil {
		return "", err
	}
	prefix := RawRoot + "country=" + country + "/"
	if category == "" {
		return prefix, nil
	}
	if err := seedengine.ValidateCategory(category); err != nil {
		return "", err
	}
	return prefix + "category=" + category + "/", nil
}

// ProdPartitionPrefix returns the prod prefix of p, ending in "/"; its
// immediate subdirectories are the domains collected for p.
func ProdPartitionPrefix(p seedengine.Partition) (string, error) {
	if err := p.Validate(); err != nil {
		return "", err
	}
	return ProdRoot + hivePath(p), nil
}

// ItemFileName is the name of item file n of a partition: items_0001.
func ItemFileName(n int) (string, error) {
	if n < 1 || n > 99_999_999 {
		return "", seedengine.FieldErrorf("file", "file must be between 1 and 99999999")
	}
	return fmt.Sprintf("items_%04d", n), nil
}

// ParseItemFileName parses items_NNNN (4 to 8 digits, from 0001).
func ParseItemFileName(name string) (int, error) {
	digits, ok := strings.CutPrefix(name, "items_")
	if !ok || len(digits) < 4 || len(digits) > 8 {
		return 0, seedengine.FieldErrorf("file", "file must be a file name like items_0001")
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 1 || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, seedengine.FieldErrorf("file", "file must be a file name like items_0001")
	}
	if want, _ := ItemFileName(n); want != name {
		return 0, seedengine.FieldErrorf("file", "file must be a file name like items_0001")
	}
	return n, nil
}

// ItemFileKey returns the key of item file n of partition p:
// items/country=…/category=…/date=…/items_NNNN.jsonl.
func ItemFileKey(p seedengine.Partition, n int) (string, error) {
	if err := p.Validate(); err != nil {
		return "", err
	}
	name, err := ItemFileName(n)
	if err != nil {
		return "", err
	}
	return ItemsRoot + hivePath(p) + name + itemsExt, nil
}

// ArticlesRoot is where the articles' files live (internal/article).
const ArticlesRoot = "articles/"

// ArticleFileKey returns the key of article file n of partition p:
// articles/country=…/category=…/date=…/articles_NNNN.jsonl.
func ArticleFileKey(p seedengine.Partition, n int) (string, error) {
	if err := p.Validate(); err != nil {
		return "", err
	}
	if n < 1 || n > 99_999_999 {
		return "", seedengine.FieldErrorf("file", "file must be between 1 and 99999999")
	}
	return fmt.Sprintf("%s%sarticles_%04d%s", ArticlesRoot, hivePath(p), n, itemsExt), nil
}

// ArticleParquetKey returns the key of partition p's Parquet file of
// articles: articles/country=…/category=…/date=…/articles.parquet.
func ArticleParquetKey(p seedengine.Partition) (string, error) {
	if err := p.Validate(); err != nil {
		return "", err
	}
	return ArticlesRoot + hivePath(p) + "articles.parquet", nil
}

// WARCRoot is where page retrieval's WARC files and their CDXJ indexes
// live (internal/pages).
const WARCRoot = "warc/"

// WARCFileKey returns the key of a WARC file of partition p:
// warc/country=…/category=…/date=…/{name}, name being
// seedengine-{process}-{time}-{serial}.warc.gz. EINVALID for a name that
// is not one.
func WARCFileKey(p seedengine.Partition, name string) (string, error) {
	if err := p.Validate(); err != nil {
		return "", err
	}
	if !strings.HasPrefix(name, "seedengine-") || !strings.HasSuffix(name, ".warc.gz") || strings.ContainsAny(name, "/\\ ") || len(name) > 200 {
		return "", seedengine.FieldErrorf("name", "a WARC file name is seedengine-{process}-{time}-{serial}.warc.gz")
	}
	return WARCRoot + hivePath(p) + name, nil
}

// WARCIndexKey is the key of the CDXJ index beside a WARC file's key.
func WARCIndexKey(warcKey string) string { return strings.TrimSuffix(warcKey, ".warc.gz") + ".cdxj" }

// ChunkName is seedengine.ChunkName, kept here beside the keys it names.
func ChunkName(n int) (string, error) { return seedengine.ChunkName(n) }

// ParseChunkName is seedengine.ParseChunkName.
func ParseChunkName(name string) (int, error) { return seedengine.ParseChunkName(name) }

// RawChunkKey returns the key of raw chunk n of partition p.
func RawChunkKey(p seedengine.Partition, n int) (string, error) {
	prefix, err := PartitionPrefix(p)
	if err != nil {
		return "", err
	}
	name, err := ChunkName(n)
	if err != nil {
		return "", err
	}
	return prefix + name + chunkExt, nil
}

// RawCheckpointKey returns the key of the checkpoint of raw chunk n, written
// after the chunk so readers never pick up a partial file.
func RawCheckpointKey(p seedengine.Partition, n int) (string, error) {
	key, err := RawChunkKey(p, n)
	if err != nil {
		return "", err
	}
	return key + SuccessSuffix, nil
}

// RawMetadataKey returns the key of the partition's raw_metadata.json.
func RawMetadataKey(p seedengine.Partition) (string, error) {
	prefix, err := PartitionPrefix(p)
	if err != nil {
		return "", err
	}
	return prefix + RawMetadataName, nil
}

// ProdDomainPrefix returns the prefix, ending in "/", of the files collected
// for domain in partition p.
func ProdDomainPrefix(p seedengine.Partition, domain string) (string, error) {
	prefix, err := ProdPartitionPrefix(p)
	if err != nil {
		return "", err
	}
	if err := ValidateDomain(domain); err != nil {
		return "", err
	}
	return prefix + domain + "/", nil
}

// ProdDomainFileKey returns the key of one of the known domain files
// (FileDomainMetadata, FileDomainMetadataSuccess, FileRobots, FileSitemap).
func ProdDomainFileKey(p seedengine.Partition, domain, file string) (string, error) {
	prefix, err := ProdDomainPrefix(p, domain)
	if err != nil {
		return "", err
	}
	if !prodDomainFiles[file] {
		return "", seedengine.FieldErrorf("file", "%q is not a known domain file", seedengine.Truncate(file, 40))
	}
	return prefix + file, nil
}

// LivenessPrefix returns the prefix, ending in "/", of the liveness results
// of one country and date.
func LivenessPrefix(country, date string) (string, error) {
	if err := seedengine.ValidateCountry(country); err != nil {
		return "", err
	}
	if err := seedengine.ValidateDate(date); err != nil {
		return "", err
	}
	return LivenessRoot + "country=" + country + "/date=" + date + "/", nil
}

// LivenessKey returns the key of the liveness results of one batch.
func LivenessKey(country, date, batchID string) (string, error) {
	prefix, err := LivenessPrefix(country, date)
	if err != nil {
		return "", err
	}
	if err := validateBatchID(batchID); err != nil {
		return "", err
	}
	return prefix + batchID + livenessExt, nil
}

// livenessPartSep separates a batch id from its chunk part in a liveness
// key; batch ids never hold a dot, so the split is unambiguous.
const livenessPartSep = ".part-"

// maxLivenessChunk bounds the chunk index of a liveness part key: five
// digits, more than a 10,000-domain batch of one-domain chunks needs.
const maxLivenessChunk = 99999

// LivenessChunkKey returns the key of the liveness results of chunk index
// (0-based) of a batch: {batchID}.part-{index:05d}.jsonl beside where
// LivenessKey puts the whole batch's. Chunks run in parallel and objects
// are written whole, so each chunk writes its own part; listing the
// LivenessPrefix for "{batchID}." gives every part of a batch in chunk
// order.
func LivenessChunkKey(country, date, batchID string, index int) (string, error) {
	key, err := LivenessKey(country, date, batchID)
	if err != nil {
		return "", err
	}
	if index < 0 || index > maxLivenessChunk {
		return "", seedengine.FieldErrorf("chunk", "liveness chunk index must be 0 to %d", maxLivenessChunk)
	}
	return strings.TrimSuffix(key, livenessExt) + fmt.Sprintf("%s%05d", livenessPartSep, index) + livenessExt, nil
}

// ContractEvidencePrefix returns the prefix, ending in "/", of the contract
// evidence of one domain; its keys sort by run time.
func ContractEvidencePrefix(domain string) (string, error) {
	if err := ValidateDomain(domain); err != nil {
		return "", err
	}
	return ContractsRoot + domain + "/", nil
}

// ContractEvidenceKey returns the key of the evidence of the contract run
// runID started at t: {domain}/{time}-{runID}.json under ContractsRoot.
// The time keeps whole seconds, so keys sort by run time; the run id (see
// NewContractRunID) keeps runs of one domain that start in the same second
// apart. Write the key with PutIfAbsent and take a new run id on ECONFLICT.
func ContractEvidenceKey(domain string, t time.Time, runID string) (string, error) {
	prefix, err := ContractEvidencePrefix(domain)
	if err != nil {
		return "", err
	}
	if t.IsZero() {
		return "", seedengine.FieldErrorf("time", "contract run time is required")
	}
	if y := t.UTC().Year(); y < 1 || y > 9999 {
		return "", seedengine.FieldErrorf("time", "contract run time must be within years 1 to 9999")
	}
	if !validRunID(runID) {
		return "", seedengine.FieldErrorf("run_id", "contract run id %q must be 1 to %d characters of [0-9a-z]", seedengine.Truncate(runID, 40), maxContractRunID)
	}
	return prefix + t.UTC().Format(ContractTimeLayout) + contractRunSep + runID + contractExt, nil
}

// runIDEncoding spells run ids: lower-case base32 (RFC 4648 alphabet,
// a–z and 2–7), no padding.
var runIDEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewContractRunID returns a fresh run id for ContractEvidenceKey: 8
// lower-case base32 characters from crypto/rand. Two runs of one domain
// in one second collide once in about 10^12 pairs, and PutIfAbsent
// catches even that.
func NewContractRunID() string {
	var b [contractRunIDLen * 5 / 8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return runIDEncoding.EncodeToString(b[:])
}

func validRunID(id string) bool {
	if id == "" || len(id) > maxContractRunID {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// ParseKey parses any key of the layout. A key outside it, including stray
// files under a raw partition such as .DS_Store or raw_0001.json.tmp, is an
// EINVALID error with Field "key", so a listing loop can skip it with
// `if err != nil || k.Kind != KindRawChunk { continue }`.
func ParseKey(key string) (Key, error) {
	k, ok := parseKey(key)
	if !ok {
		return Key{}, seedengine.FieldErrorf("key", "%q is not a key of the object store layout", seedengine.Truncate(key, 200))
	}
	return k, nil
}

func parseKey(key string) (Key, bool) {
	parts := strings.Split(key, "/")
	switch {
	case parts[0] == "raw" && len(parts) == 5:
		return parseRaw(parts[1:])
	case parts[0] == "items" && len(parts) == 5:
		return parseItems(parts[1:])
	case parts[0] != "prod" || len(parts) < 2:
		return Key{}, false
	case parts[1] == "liveness" && len(parts) == 5:
		return parseLiveness(parts[2:])
	case parts[1] == "contracts" && len(parts) == 4:
		return parseContract(parts[2:])
	case len(parts) == 6:
		return parseProdDomainFile(parts[1:])
	}
	return Key{}, false
}

// parseItems parses country=…/category=…/date=…/items_NNNN.jsonl.
func parseItems(parts []string) (Key, bool) {
	p, ok := parsePartition(parts[:3])
	if !ok {
		return Key{}, false
	}
	name, ok := strings.CutSuffix(parts[3], itemsExt)
	if !ok {
		return Key{}, false
	}
	n, err := ParseItemFileName(name)
	if err != nil {
		return Key{}, false
	}
	return Key{Kind: KindItemFile, Partition: p, Chunk: n}, true
}

// parseRaw parses country=…/category=…/date=…/file.
func parseRaw(parts []string) (Key, bool) {
	p, ok := parsePartition(parts[:3])
	if !ok {
		return Key{}, false
	}
	file := parts[3]
	if file == RawMetadataName {
		return Key{Kind: KindRawMetadata, Partition: p}, true
	}
	kind := KindRawChunk
	if name, cut := strings.CutSuffix(file, SuccessSuffix); cut {
		kind, file = KindRawCheckpoint, name
	}
	name, ok := strings.CutSuffix(file, chunkExt)
	if !ok {
		return Key{}, false
	}
	n, err := ParseChunkName(name)
	if err != nil {
		return Key{}, false
	}
	return Key{Kind: kind, Partition: p, Chunk: n}, true
}

// parseProdDomainFile parses country=…/category=…/date=…/domain/file.
func parseProdDomainFile(parts []string) (Key, bool) {
	p, ok := parsePartition(parts[:3])
	if !ok || ValidateDomain(parts[3]) != nil || !prodDomainFiles[parts[4]] {
		return Key{}, false
	}
	return Key{Kind: KindProdDomainFile, Partition: p, Domain: parts[3], File: parts[4]}, true
}

// parseLiveness parses country=…/date=…/batch.jsonl and
// country=…/date=…/batch.part-NNNNN.jsonl.
func parseLiveness(parts []string) (Key, bool) {
	country, ok1 := strings.CutPrefix(parts[0], "country=")
	date, ok2 := strings.CutPrefix(parts[1], "date=")
	batch, ok3 := strings.CutSuffix(parts[2], livenessExt)
	kind, chunk := KindLiveness, 0
	if b, part, cut := strings.Cut(batch, livenessPartSep); cut {
		n, err := strconv.Atoi(part)
		if err != nil || len(part) != 5 || n < 0 {
			return Key{}, false
		}
		kind, chunk, batch = KindLivenessChunk, n, b
	}
	if !ok1 || !ok2 || !ok3 ||
		seedengine.ValidateCountry(country) != nil || seedengine.ValidateDate(date) != nil || validateBatchID(batch) != nil {
		return Key{}, false
	}
	return Key{Kind: kind, Partition: seedengine.Partition{Country: country, Date: date}, BatchID: batch, Chunk: chunk}, true
}

// parseContract parses domain/time-runid.json and the older
// domain/time.json, which stored objects keep.
func parseContract(parts []string) (Key, bool) {
	name, ok := strings.CutSuffix(parts[1], contractExt)
	if !ok || ValidateDomain(parts[0]) != nil || len(name) < len(ContractTimeLayout) {
		return Key{}, false
	}
	stamp, runID := name[:len(ContractTimeLayout)], ""
	if rest := name[len(stamp):]; rest != "" {
		id, ok := strings.CutPrefix(rest, contractRunSep)
		if !ok || !validRunID(id) {
			return Key{}, false
		}
		runID = id
	}
	t, err := time.Parse(ContractTimeLayout, stamp)
	if err != nil {
		return Key{}, false
	}
	return Key{Kind: KindContractEvidence, Domain: parts[0], Time: t, RunID: runID}, true
}

func parsePartition(parts []string) (seedengine.Partition, bool) {
	country, ok1 := strings.CutPrefix(parts[0], "country=")
	category, ok2 := strings.CutPrefix(parts[1], "category=")
	date, ok3 := strings.CutPrefix(parts[2], "date=")
	p := seedengine.Partition{Country: country, Category: category, Date: date}
	if !ok1 || !ok2 || !ok3 || p.Validate() != nil {
		return seedengine.Partition{}, false
	}
	return p, true
}

func hivePath(p seedengine.Partition) string {
	return "country=" + p.Country + "/category=" + p.Category + "/date=" + p.Date + "/"
}

// ValidateDomain accepts a lower-case hostname in A-label form (what the
// discovery code stores as registrable_domain): dot-separated labels of 1 to
// 63 characters from [a-z0-9_-], not starting or ending with "-", at most 253
// characters in all. Anything else, "/" and ".." included, is an EINVALID
// error with Field "domain", so a domain can never move a key outside its
// directory.
func ValidateDomain(d string) error {
	if d == "" {
		return seedengine.FieldErrorf("domain", "domain is required")
	}
	if len(d) > maxDomainLen {
		return seedengine.FieldErrorf("domain", "domain must be at most %d characters", maxDomainLen)
	}
	for label := range strings.SplitSeq(d, ".") {
		if !validLabel(label) {
			return seedengine.FieldErrorf("domain", "%q is not a lower-case hostname in A-label form", seedengine.Truncate(d, 64))
		}
	}
	return nil
}

func validLabel(l string) bool {
	if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// validateBatchID accepts ULIDs and UUIDs (and anything else of
// [0-9A-Za-z-]), which are safe as a file name on every driver.
func validateBatchID(id string) error {
	if id == "" {
		return seedengine.FieldErrorf("batch_id", "batch id is required")
	}
	if len(id) > maxBatchID {
		return seedengine.FieldErrorf("batch_id", "batch id must be at most %d characters", maxBatchID)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '-' {
			return seedengine.FieldErrorf("batch_id", "batch id %q must match [0-9A-Za-z-]", seedengine.Truncate(id, 64))
		}
	}
	return nil
}
