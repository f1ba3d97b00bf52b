package client

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// WithToken sends token as the bearer credential of every request: an API
// key's token (seedengine apikey create, or POST /api/v1/keys).
func WithToken(token string) ClientOption {
	return WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+token)
		return nil
	})
}

// WaitBatch reads batch id every so often until it has finished (a final
// status: completed, completed_with_errors, failed, cancelled) and returns
// it; ctx bounds the wait. An answer other than 200 is an error naming
// its status.
func (c *ClientWithResponses) WaitBatch(ctx context.Context, id string, every time.Duration) (*Batch, error) {
	for {
		r, err := c.GetBatchWithResponse(ctx, id)
		if err != nil {
			return nil, err
		}
		if r.JSON200 == nil {
			return nil, fmt.Errorf("get batch %s: %s", id, r.Status())
		}
		if r.JSON200.FinishedAt != nil {
			return r.JSON200, nil
		}
		select {
		case <-ctx.Done():
			return r.JSON200, ctx.Err()
		case <-time.After(every):
		}
	}
}
