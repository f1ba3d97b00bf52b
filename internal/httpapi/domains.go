package httpapi

import "time"

// Planned domain routes. A domain is what research normalises URLs into
// (DESIGN §2).

type domainListInput struct {
	Country    string `query:"country"`
	Authority  string `query:"authority" enum:"gov,mil,edu,ngo,org,media,com,other"`
	SourceType string `query:"source_type" enum:"government,organization,ngo,media,company,education,other"`
	Limit      int    `query:"limit" default:"50" minimum:"1" maximum:"1000"`
	Offset     int    `query:"offset" default:"0" minimum:"0"`
}

type domainInput struct {
	DomainID string `path:"domainId" maxLength:"300" doc:"{authority}:{country}:{registrable_domain}, URL-escaped." example:"gov:sg:mom.gov.sg"`
}

type domainRecord struct {
	DomainID          string    `json:"domain_id" example:"gov:sg:mom.gov.sg"`
	RegistrableDomain string    `json:"registrable_domain" example:"mom.gov.sg"`
	Authority         string    `json:"authority" enum:"gov,mil,edu,ngo,org,media,com,other"`
	AuthorityRule     string    `json:"authority_rule" example:"suffix:gov.sg"`
	Country           string    `json:"country" example:"sg"`
	SourceType        string    `json:"source_type"`
	FirstSeen         time.Time `json:"first_seen"`
	LastSeen          time.Time `json:"last_seen"`
}

type domainOutput struct{ Body domainRecord }

type domainList struct {
	Items  []domainRecord `json:"items"`
	Total  int            `json:"total"`
	Limit  int            `json:"limit"`
	Offset int            `json:"offset"`
}

type domainListOutput struct{ Body domainList }
