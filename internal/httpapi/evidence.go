package httpapi

import (
	"context"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/seedengine/seedengine"
)

// evidencePrefix is where contract evidence lives (DESIGN §5); a seed's
// evidence key outside it is never served.
const evidencePrefix = "prod/contracts/"

// evidenceStreamOutput sends an evidence object as stored.
type evidenceStreamOutput struct {
	ContentType   string `header:"Content-Type"`
	ContentLength int64  `header:"Content-Length"`
	EvidenceKey   string `header:"X-Evidence-Key" doc:"The object key the evidence is stored at."`
	Body          func(huma.Context)
}

// handleSeedEvidence streams the evidence of a seed's latest contract
// run: every candidate with where it came from, its priority, status,
// counts, preview and why it was not fetched, and the decisions.
func (s *Server) handleSeedEvidence(ctx context.Context, in *seedInput) (*evidenceStreamOutput, error) {
	if s.deps.Seeds == nil || s.deps.Objects == nil {
		return nil, unavailable("seed evidence")
	}
	sd, err := s.pathSeed(ctx, in.SeedID)
	if err != nil {
		return nil, err
	}
	key := sd.Evidence.Key
	if key == "" || !strings.HasPrefix(key, evidencePrefix) {
		return nil, seedengine.Errorf(seedengine.ENOTFOUND, "seed %s has no contract run evidence (it was made by hand)", sd.SeedID)
	}
	rc, size, err := s.deps.Objects.NewReader(ctx, key)
	if seedengine.ErrorCode(err) == seedengine.ENOTFOUND {
		return nil, seedengine.Errorf(seedengine.ENOTFOUND, "the evidence of seed %s is no longer stored", sd.SeedID)
	}
	if err != nil {
		return nil, err
	}
	out := &evidenceStreamOutput{ContentType: "application/json", ContentLength: size, EvidenceKey: key}
	out.Body = s.streamObject(ctx, rc, "stream seed evidence")
	return out, nil
}

// registerSeedEvidence documents the streamed body.
func (s *Server) registerSeedEvidence(api huma.API, op huma.Operation) {
	registerSeedSchemas(api.OpenAPI().Components.Schemas)
	op.Responses = map[string]*huma.Response{"200": {
		Description: "The contract run's evidence exactly as stored (JSON): domain, robots.txt, home page, CMS, every candidate " +
			"(kind, url, via, priority, fetched or why not, status, format, items, newest date, robots verdict, preview of its newest items) " +
			"and the decisions with their reasons. Its shape is internal/contract's Evidence.",
		Content: map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{Type: "object", AdditionalProperties: true}}},
	}}
	huma.Register(api, op, s.handleSeedEvidence)
}
