package research

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/discover"
)

// RegisterChunk streams the records of a stored chunk of p from r and
// registers their domains as seen in p at the chunk's meta.discovered_at
// (now when it has none). It returns how many distinct domains it
// registered.
//
// A record whose domain_id is valid is registered under it with its
// authority_rule; any other is classified from its raw_url (its
// normalized_url when raw_url is empty) for p's country, as Research
// would, and left out when that fails: the record stays in the chunk, it
// just names no domain. An empty rule never blanks a registered one.
// EINVALID for an invalid partition or a chunk that is not a dataset.
func (s *Service) RegisterChunk(ctx context.Context, p seedengine.Partition, r io.Reader) (int, error) {
	p.Country = seedengine.NormalizeCountry(p.Country)
	if err := p.Validate(); err != nil {
		return 0, err
	}
	index := map[string]int{} // domain_id → position in sightings
	var sightings []seedengine.DomainSighting
	dr := seedengine.NewDatasetReader(r)
	for dr.Next() {
		rec := dr.Record()
		sg, ok := s.sighting(rec, p.Country)
		if !ok {
			continue
		}
		if i, dup := index[sg.ID]; dup {
			if sightings[i].AuthorityRule == "" {
				sightings[i].AuthorityRule = sg.AuthorityRule
			}
			continue
		}
		index[sg.ID] = len(sightings)
		sightings = append(sightings, sg)
	}
	if err := dr.Err(); err != nil {
		return 0, err
	}
	if len(sightings) == 0 {
		return 0, nil
	}
	seen := s.now()
	if meta, ok := dr.Meta(); ok && !meta.DiscoveredAt.IsZero() {
		seen = meta.DiscoveredAt.UTC()
	}
	if err := s.registrar.register(ctx, p, seen, sightings); err != nil {
		return 0, fmt.Errorf("register domains of %s/%s/%s: %w", p.Country, p.Category, p.Date, err)
	}
	return len(sightings), nil
}

// sighting is the domain a stored record names: its own domain_id when
// valid, else the one its URL classifies to. A domain_id whose domain is an
// IP address (written before discover refused them) is not valid: an
// address is not a domain.
func (s *Service) sighting(rec seedengine.DatasetRecord, country string) (seedengine.DomainSighting, bool) {
	if rec.DomainID != "" {
		if _, _, d, err := seedengine.ParseDomainID(rec.DomainID); err == nil && !discover.IsIPLiteral(d) {
			rule := rec.AuthorityRule
			if len(rule) > maxAuthorityRuleLen {
				rule = "" // the registry refuses it; keep the domain, not the rule
			}
			return seedengine.DomainSighting{ID: rec.DomainID, AuthorityRule: rule}, true
		}
	}
	raw := rec.RawURL
	if raw == "" {
		raw = rec.NormalizedURL
	}
	d, err := s.classifier.Analyze(raw, country)
	if err != nil {
		return seedengine.DomainSighting{}, false
	}
	return seedengine.DomainSighting{ID: d.DomainID, RegistrableDomain: d.RegistrableDomain,
		Authority: d.Authority, AuthorityRule: d.AuthorityRule, Country: d.Country}, true
}

// maxAuthorityRuleLen is the registry's bound on a rule name.
const maxAuthorityRuleLen = 200

// RegisteringDatasets wraps a dataset service so that every dataset it
// saves has its domains registered, as research and upload do: SaveDataset
// saves through the inner service, then reads the saved chunk back and
// registers its domains with svc.RegisterChunk before answering. The other
// methods are the inner service's.
//
// A chunk is immutable once saved, so when registration fails the chunk
// stays and SaveDataset returns the error; saving the same dataset again
// writes a new chunk (whose domains are then registered), it does not
// repair the first.
func RegisteringDatasets(inner seedengine.DatasetService, svc *Service) seedengine.DatasetService {
	return &registeringDatasets{DatasetService: inner, svc: svc}
}

type registeringDatasets struct {
	seedengine.DatasetService
	svc *Service
}

func (d *registeringDatasets) SaveDataset(ctx context.Context, p seedengine.Partition, r io.Reader) (seedengine.ChunkInfo, error) {
	info, err := d.DatasetService.SaveDataset(ctx, p, r)
	if err != nil {
		return info, err
	}
	start := time.Now()
	n, err := d.registerSaved(ctx, p, info)
	if err != nil {
		d.svc.log.ErrorContext(ctx, "saved dataset chunk has no registered domains", "event", "dataset_domains_unregistered",
			"key", info.Key, "error", err)
		return seedengine.ChunkInfo{}, fmt.Errorf("chunk %s is saved but its domains are not registered: %w", info.Key, err)
	}
	d.svc.log.InfoContext(ctx, "dataset domains registered", "event", "dataset_domains_registered",
		"key", info.Key, "domains", n, "duration_ms", time.Since(start).Milliseconds())
	return info, nil
}

func (d *registeringDatasets) registerSaved(ctx context.Context, p seedengine.Partition, info seedengine.ChunkInfo) (int, error) {
	if info.Partition != (seedengine.Partition{}) {
		p = info.Partition
	}
	rc, _, err := d.DatasetService.OpenChunk(ctx, p, info.Chunk)
	if err != nil {
		return 0, fmt.Errorf("open saved chunk: %w", err)
	}
	defer rc.Close()
	return d.svc.RegisterChunk(ctx, p, rc)
}
