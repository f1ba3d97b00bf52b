package seedengine

import (
	"context"
	"strings"
	"time"
)

// Authority classifies who stands behind a domain.
type Authority string

// Authorities, from the most to the least specific.
const (
	AuthorityGov   Authority = "gov"   // national, regional or local government
	AuthorityMil   Authority = "mil"   // military
	AuthorityEdu   Authority = "edu"   // universities, schools, academic networks
	AuthorityNGO   Authority = "ngo"   // international bodies (.int) and NGOs
	AuthorityOrg   Authority = "org"   // other organisations
	AuthorityMedia Authority = "media" // news and broadcasting
	AuthorityCom   Authority = "com"   // companies
	AuthorityOther Authority = "other" // nothing more specific is known
)

// Valid reports whether a is a known authority.
func (a Authority) Valid() bool {
	switch a {
	case AuthorityGov, AuthorityMil, AuthorityEdu, AuthorityNGO, AuthorityOrg, AuthorityMedia, AuthorityCom, AuthorityOther:
		return true
	}
	return false
}

// Label is the authority in a word or two, as the console shows it
// everywhere (lists, filters, the partition's counts); the code itself is
// what URLs, filters and domain_ids carry. An unknown authority is its
// own label.
func (a Authority) Label() string {
	switch a {
	case AuthorityGov:
		return "government"
	case AuthorityMil:
		return "military"
	case AuthorityEdu:
		return "education"
	case AuthorityNGO:
		return "NGO or international"
	case AuthorityOrg:
		return "organisation"
	case AuthorityMedia:
		return "media"
	case AuthorityCom:
		return "company"
	case AuthorityOther:
		return "other"
	}
	return string(a)
}

// SourceType returns the seed source type of an authority.
func (a Authority) SourceType() string {
	switch a {
	case AuthorityGov, AuthorityMil:
		return "government"
	case AuthorityEdu:
		return "education"
	case AuthorityNGO:
		return "ngo"
	case AuthorityOrg:
		return "organization"
	case AuthorityMedia:
		return "media"
	case AuthorityCom:
		return "company"
	}
	return "other"
}

// DomainID returns the domain_id "{authority}:{country}:{registrable_domain}".
func DomainID(a Authority, country, registrable string) string {
	return string(a) + ":" + country + ":" + registrable
}

// ParseDomainID splits a domain_id into its parts and checks their form:
// a known authority, a valid country and a lower-case host name (never an
// IP address). EINVALID with Field "domain_id"
// otherwise.
func ParseDomainID(id string) (Authority, string, string, error) {
	parts := strings.SplitN(id, ":", 3)
	if len(parts) != 3 {
		return "", "", "", FieldErrorf("domain_id", "domain_id must be {authority}:{country}:{registrable_domain}")
	}
	a, c, d := Authority(parts[0]), parts[1], parts[2]
	if !a.Valid() {
		return "", "", "", FieldErrorf("domain_id", "domain_id must begin with an authority: gov, mil, edu, ngo, org, media, com or other")
	}
	if ValidateCountry(c) != nil {
		return "", "", "", FieldErrorf("domain_id", "domain_id must have an ISO 3166-1 alpha-2 country or %q after the authority", CountryIntl)
	}
	if !validHostname(d) {
		return "", "", "", FieldErrorf("domain_id", "domain_id must end with a lower-case host name, not an IP address")
	}
	return a, c, d, nil
}

// validHostname accepts lower-case A-label host names (letters, digits,
// hyphens, dots; labels of 1–63 bytes; 253 bytes at most), as registrable
// domains are stored. An IP address is not a domain: a bracketed IPv6
// literal is refused, and so is a name whose last label is a number
// (the WHATWG URL Standard reads it as IPv4; no top-level domain is
// numeric).
func validHostname(h string) bool {
	if h == "" || len(h) > 253 || h[0] == '[' {
		return false
	}
	last := h[strings.LastIndexByte(h, '.')+1:]
	if last != "" && (strings.Trim(last, "0123456789") == "" || (strings.HasPrefix(last, "0x") && strings.Trim(last[2:], "0123456789abcdef") == "")) {
		return false
	}
	label := 0
	for i := 0; i < len(h); i++ {
		b := h[i]
		switch {
		case b == '.':
			if label == 0 {
				return false
			}
			label = 0
			continue
		case b >= 'a' && b <= 'z', b >= '0' && b <= '9', b == '-', b == '_':
		default:
			return false
		}
		label++
		if label > 63 {
			return false
		}
	}
	return label > 0
}

// Domain is one row of the domain registry: a registrable domain as
// classified for a country, with where and when it was seen.
type Domain struct {
	ID                string    `json:"domain_id"`
	RegistrableDomain string    `json:"registrable_domain"`
	Authority         Authority `json:"authority"`
	AuthorityRule     string    `json:"authority_rule"`
	SourceType        string    `json:"source_type"`
	Country           string    `json:"country"`
	FirstSeen         time.Time `json:"first_seen"`
	LastSeen          time.Time `json:"last_seen"`
	PartitionCount    int       `json:"partition_count"`
	// Partitions lists the partitions the domain appeared in; filled by
	// FindDomainByID only.
	Partitions []Partition `json:"partitions,omitempty"`
	// Liveness is the latest liveness verdict of RegistrableDomain, when a
	// liveness batch has probed it; filled by FindDomainByID only.
	Liveness *LivenessSummary `json:"liveness,omitempty"`
}

// DomainSighting is one domain seen in a partition, to be registered.
type DomainSighting struct {
	ID                string
	RegistrableDomain string
	Authority         Authority
	AuthorityRule     string
	Country           string
}

// DomainFilter selects domains. Zero fields do not filter.
type DomainFilter struct {
	Country   string
	Authority Authority
	Partition *Partition // only domains seen in this partition
	// PartitionCountry keeps only domains seen in some partition of this
	// country, whatever their own country: research for gl files
	// reuters.com as media:gb:reuters.com.
	PartitionCountry string
	// IDs keeps only these domain_ids (at most MaxDomainFilterIDs).
	IDs    []string
	Limit  int
	Offset int
}

// MaxDomainFilterIDs is the most domain_ids one DomainFilter may name.
const MaxDomainFilterIDs = 1000

// DomainService is the domain registry.
type DomainService interface {
	// RegisterDomains upserts the domains seen in p at time seen: new ones
	// are created, known ones get last_seen and the partition added. It
	// never creates duplicates, also when called concurrently.
	RegisterDomains(ctx context.Context, p Partition, seen time.Time, ds []DomainSighting) error

	// FindDomainByID returns one domain with its partitions. ENOTFOUND
	// when there is none.
	FindDomainByID(ctx context.Context, id string) (*Domain, error)

	// FindDomains returns domains matching f ordered by domain_id, and the
	// total number matching regardless of Limit and Offset. EINVALID for an
	// invalid filter value, naming it.
	FindDomains(ctx context.Context, f DomainFilter) ([]*Domain, int, error)
}
