package httpapi

import (
	"context"
	"strings"

	"github.com/seedengine/seedengine"
)

// Domain routes: the registry research fills, one row per domain_id
// (DESIGN §2).

type domainListInput struct {
	Country   string `query:"country" maxLength:"8" doc:"Only domains classified for this country: ISO 3166-1 alpha-2 or intl, any case." example:"sg"`
	Authority string `query:"authority" enum:"gov,mil,edu,ngo,org,media,com,other" doc:"Only domains of this authority."`
	Limit     int    `query:"limit" default:"50" minimum:"1" maximum:"1000" doc:"Page size."`
	Offset    int    `query:"offset" default:"0" minimum:"0" doc:"Items to skip."`
}

type domainList struct {
	Items  []*seedengine.Domain `json:"items"`
	Total  int                  `json:"total" doc:"Domains matching the filters, regardless of limit and offset."`
	Limit  int                  `json:"limit"`
	Offset int                  `json:"offset"`
}

type domainListOutput struct{ Body domainList }

type domainInput struct {
	DomainID string `path:"domainId" maxLength:"300" doc:"{authority}:{country}:{registrable_domain}, URL-escaped." example:"gov:sg:mom.gov.sg"`
}

type domainOutput struct{ Body *seedengine.Domain }

func (s *Server) handleDomainList(ctx context.Context, in *domainListInput) (*domainListOutput, error) {
	if s.deps.Domains == nil {
		return nil, unavailable("domains")
	}
	f := seedengine.DomainFilter{Authority: seedengine.Authority(in.Authority), Limit: in.Limit, Offset: in.Offset}
	if in.Country != "" {
		f.Country = seedengine.NormalizeCountry(in.Country)
		if err := seedengine.ValidateCountry(f.Country); err != nil {
			return nil, inQuery(err)
		}
	}
	items, total, err := s.deps.Domains.FindDomains(ctx, f)
	if err != nil {
		return nil, err
	}
	if items == nil {
		items = []*seedengine.Domain{}
	}
	return &domainListOutput{Body: domainList{Items: items, Total: total, Limit: in.Limit, Offset: in.Offset}}, nil
}

func (s *Server) handleDomainGet(ctx context.Context, in *domainInput) (*domainOutput, error) {
	if s.deps.Domains == nil {
		return nil, unavailable("domains")
	}
	// Ids are stored lower case; a client that upper-cased the country
	// (GOV:SG:…) still means the same domain.
	id := strings.ToLower(in.DomainID)
	if _, _, _, err := seedengine.ParseDomainID(id); err != nil {
		// Name the path parameter as the client wrote it, not the
		// root package's field name.
		return nil, inPath(&seedengine.Error{Code: seedengine.EINVALID, Field: "domainId", Message: seedengine.ErrorMessage(err)})
	}
	d, err := s.deps.Domains.FindDomainByID(ctx, id)
	if err != nil {
		return nil, err
	}
	return &domainOutput{Body: d}, nil
}

// inQuery marks the fields of err as query parameters, for handlers that
// validate them with the root package.
func inQuery(err error) error {
	if err == nil {
		return nil
	}
	return &locatedError{loc: "query", err: err}
}
