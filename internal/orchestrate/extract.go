package orchestrate

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/discover"
	"github.com/seedengine/seedengine/internal/layout"
)

// ReasonUnsupportedDomain is the bad-record reason of a URL whose
// registrable domain cannot name a prod directory (an IPv6 literal). The
// other reasons are discover's Reason* codes.
const ReasonUnsupportedDomain = "unsupported_domain"

// FileDomain is one unique domain of a raw file.
type FileDomain struct {
	DomainID string `json:"domain_id"`
	Domain   string `json:"domain"` // registrable domain
}

// FileDomains is what ExtractDomains found in one raw file.
type FileDomains struct {
	// Domains are the unique registrable domains in the order first seen.
	Domains []FileDomain
	// Records is the number of records read.
	Records int
	// Bad counts records no domain could be derived from; BadReasons
	// splits them by reason (discover's Reason* codes and
	// ReasonUnsupportedDomain).
	Bad        int
	BadReasons map[string]int
	// Duplicates counts records whose domain was already seen.
	Duplicates int
	// FromURL counts records whose domain was derived from their URL
	// because their domain_id was missing or unusable (bad ones excluded).
	FromURL int
}

// LogValue implements slog.LogValuer with the counts, not the domains.
func (fd *FileDomains) LogValue() slog.Value {
	return slog.GroupValue(
		slog.Int("records", fd.Records),
		slog.Int("domains", len(fd.Domains)),
		slog.Int("duplicates", fd.Duplicates),
		slog.Int("bad", fd.Bad),
		slog.Any("bad_reasons", fd.BadReasons),
		slog.Int("from_url", fd.FromURL),
	)
}

// ExtractDomains reads the raw dataset file in r as a stream and returns
// its unique domains with counts (see the package documentation for the
// rules). c classifies URLs whose domain_id cannot be used; nil means
// discover.DefaultClassifier(). A malformed file, or one whose meta names
// another partition, is an EINVALID error locating the problem; an
// invalid p is EINVALID too; an error of r is returned wrapped.
func ExtractDomains(r io.Reader, c *discover.Classifier, p seedengine.Partition) (*FileDomains, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if c == nil {
		c = discover.DefaultClassifier()
	}
	dr := seedengine.NewDatasetReader(r)
	// Checking meta first, when it comes first, fails a misplaced file
	// before reading all of it.
	metaChecked := false
	if m, ok := dr.Meta(); ok {
		if err := checkMeta(&m, p); err != nil {
			return nil, err
		}
		metaChecked = true
	}
	fd := &FileDomains{BadReasons: map[string]int{}}
	seen := make(map[string]struct{})
	for dr.Next() {
		rec := dr.Record()
		fd.Records++
		d, fromURL, reason := recordDomain(c, &rec, p.Country)
		if reason != "" {
			fd.Bad++
			fd.BadReasons[reason]++
			continue
		}
		if fromURL {
			fd.FromURL++
		}
		if _, dup := seen[d.Domain]; dup {
			fd.Duplicates++
			continue
		}
		// Clones keep the set from pinning whatever larger strings the
		// domain was cut from (a URL, a domain_id).
		d = FileDomain{DomainID: strings.Clone(d.DomainID), Domain: strings.Clone(d.Domain)}
		seen[d.Domain] = struct{}{}
		fd.Domains = append(fd.Domains, d)
	}
	if err := dr.Err(); err != nil {
		return nil, malformed(err)
	}
	m, ok := dr.Meta()
	if !ok {
		return nil, seedengine.FieldErrorf("meta", "meta is required")
	}
	if !metaChecked {
		if err := checkMeta(&m, p); err != nil {
			return nil, err
		}
	}
	if fd.Records == 0 {
		return nil, seedengine.FieldErrorf("records", "records: a dataset needs at least one record")
	}
	if m.RecordCount != fd.Records {
		return nil, seedengine.FieldErrorf("meta.record_count", "meta.record_count is %d but the file has %d records", m.RecordCount, fd.Records)
	}
	return fd, nil
}

// recordDomain derives the domain of one record: from its domain_id when
// usable, else from its URLs. reason is set when there is none.
func recordDomain(c *discover.Classifier, rec *seedengine.DatasetRecord, country string) (d FileDomain, fromURL bool, reason string) {
	if rec.DomainID != "" {
		if _, _, dom, err := seedengine.ParseDomainID(rec.DomainID); err == nil && layout.ValidateDomain(dom) == nil {
			return FileDomain{DomainID: rec.DomainID, Domain: dom}, false, ""
		}
	}
	raw, alt := rec.RawURL, rec.NormalizedURL
	if strings.TrimSpace(raw) == "" {
		raw, alt = alt, ""
	}
	res, err := c.Analyze(raw, country)
	if err != nil && alt != "" && alt != raw {
		if r2, err2 := c.Analyze(alt, country); err2 == nil {
			res, err = r2, nil
		}
	}
	if err != nil {
		return FileDomain{}, false, discoverReason(err)
	}
	if layout.ValidateDomain(res.RegistrableDomain) != nil {
		return FileDomain{}, false, ReasonUnsupportedDomain
	}
	return FileDomain{DomainID: res.DomainID, Domain: res.RegistrableDomain}, true, ""
}

func discoverReason(err error) string {
	if ue, ok := err.(*discover.URLError); ok {
		return ue.Reason
	}
	return discover.ReasonInvalidURL
}

// checkMeta holds meta to the partition, as seedengine.ValidateDataset
// does, but takes the country in any case.
func checkMeta(m *seedengine.DatasetMeta, p seedengine.Partition) error {
	if !strings.EqualFold(m.Country, p.Country) {
		return seedengine.FieldErrorf("meta.country", "meta.country is %q; this partition needs %q", seedengine.Truncate(m.Country, 16), strings.ToUpper(p.Country))
	}
	if m.Category != p.Category {
		return seedengine.FieldErrorf("meta.category", "meta.category is %q; this partition needs %q", seedengine.Truncate(m.Category, 48), p.Category)
	}
	if m.Date != p.Date {
		return seedengine.FieldErrorf("meta.date", "meta.date is %q; this partition needs %q", seedengine.Truncate(m.Date, 16), p.Date)
	}
	return nil
}

// malformed makes a DatasetReader error one whose message says where the
// problem is, since the job's failure reason shows only the message.
// Errors of the underlying reader stay as they are (wrapped), so the job
// retries them.
func malformed(err error) error {
	if seedengine.ErrorCode(err) != seedengine.EINVALID {
		return fmt.Errorf("read raw file: %w", err)
	}
	field, msg := seedengine.ErrorField(err), seedengine.ErrorMessage(err)
	if field != "" && !strings.HasPrefix(msg, field) {
		msg = field + ": " + msg
	}
	return &seedengine.Error{Code: seedengine.EINVALID, Field: field, Message: "malformed raw file: " + msg}
}
