package httpapi

import (
	"context"

	"github.com/seedengine/seedengine"
)

type keyListOutput struct{ Body keyList }

type keyList struct {
	Items  []*seedengine.APIKey `json:"items"`
	Total  int                  `json:"total"`
	Limit  int                  `json:"limit"`
	Offset int                  `json:"offset"`
}

type keyCreateRequest struct {
	Name  string           `json:"name" minLength:"1" maxLength:"100" doc:"A name to recognise the key by; unique." example:"ci-research"`
	Scope seedengine.Scope `json:"scope" enum:"read,write,admin" doc:"What the key may do; admin includes write includes read."`
}

type keyCreateInput struct{ Body keyCreateRequest }

// createdKey is the key plus its secret token, which the store keeps only
// as a hash: this response is the one time it is shown.
type createdKey struct {
	seedengine.APIKey
	Token string `json:"token" doc:"The secret to send as Authorization: Bearer <token>. Shown only once."`
}

type keyCreateOutput struct{ Body createdKey }

type keyRevokeInput struct {
	KeyID string `path:"keyId" maxLength:"128" doc:"Key id, or its name."`
}

type keyOutput struct{ Body *seedengine.APIKey }

func (s *Server) handleKeyList(ctx context.Context, in *pageInput) (*keyListOutput, error) {
	if s.deps.APIKeys == nil {
		return nil, unavailable("API keys")
	}
	keys, err := s.deps.APIKeys.FindAPIKeys(ctx)
	if err != nil {
		return nil, err
	}
	out := keyList{Items: []*seedengine.APIKey{}, Total: len(keys), Limit: in.Limit, Offset: in.Offset}
	if in.Offset < len(keys) {
		out.Items = keys[in.Offset:min(len(keys), in.Offset+in.Limit)]
	}
	return &keyListOutput{Body: out}, nil
}

func (s *Server) handleKeyCreate(ctx context.Context, in *keyCreateInput) (*keyCreateOutput, error) {
	if s.deps.APIKeys == nil {
		return nil, unavailable("API keys")
	}
	if err := seedengine.ValidateAPIKeyName(in.Body.Name); err != nil {
		return nil, err
	}
	scope, err := seedengine.ParseScope(string(in.Body.Scope))
	if err != nil {
		return nil, err
	}
	key, token, err := s.deps.APIKeys.CreateAPIKey(ctx, in.Body.Name, scope)
	if err != nil {
		return nil, err
	}
	// The first key closes an open API: do not wait for the cached count.
	s.keys.invalidate()
	return &keyCreateOutput{Body: createdKey{APIKey: *key, Token: token}}, nil
}

func (s *Server) handleKeyRevoke(ctx context.Context, in *keyRevokeInput) (*keyOutput, error) {
	if s.deps.APIKeys == nil {
		return nil, unavailable("API keys")
	}
	key, err := s.deps.APIKeys.RevokeAPIKey(ctx, in.KeyID)
	if err != nil {
		return nil, err
	}
	s.keys.invalidate()
	return &keyOutput{Body: key}, nil
}
