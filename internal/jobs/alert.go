package jobs

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/seedengine/seedengine"
)

// QueueAlerts is the River queue of alert deliveries.
const QueueAlerts = "alerts"

// SeedAlertArgs are the args of the job that delivers the alert of one
// seed health change.
type SeedAlertArgs struct {
	Change seedengine.SeedHealthChange `json:"change"`
}

// Kind names the job's worker. It is stored with every job, so it never
// changes.
func (SeedAlertArgs) Kind() string { return "seed_alert" }

// InsertOpts puts alerts on QueueAlerts, tried for about a day with
// River's back-off (attempt n waits about n⁴ seconds).
func (SeedAlertArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueAlerts, MaxAttempts: alertAttempts}
}

// alertAttempts × River's back-off (attempt⁴ seconds after each failure)
// spans about a day: 13 waits add up to about 25 hours.
const alertAttempts = 14

// AlertWebhook is where alerts go.
type AlertWebhook struct {
	// URL receives one JSON POST per alert.
	URL string
	// Secret, when set, signs each body: X-Seedengine-Signature:
	// sha256=<hex HMAC-SHA256 of the body>.
	Secret string
	// ConsoleURL, when set, is the console's base URL: each alert links to
	// the seed's page there.
	ConsoleURL string
	// Client sends the POSTs; a client with a 10 s timeout when nil.
	// Redirects are never followed: SetAlertWebhook uses a copy that
	// refuses them.
	Client *http.Client
}

// SetAlertWebhook makes this queue deliver alerts to w; without it, alert
// jobs wait (retrying) for a process that has one. Call it before Start.
func (q *Queue) SetAlertWebhook(w AlertWebhook) {
	q.mustWire("SetAlertWebhook", false)
	c := http.Client{Timeout: 10 * time.Second}
	if w.Client != nil {
		c = *w.Client
	}
	// A receiver must not send the signed alert on to where its answer
	// points (another host, a loopback port): a 3xx is a failed delivery.
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	w.Client = &c
	q.mu.Lock()
	q.alertHook = &w
	q.mu.Unlock()
}

// alertBody is what the webhook receives.
type alertBody struct {
	Event string `json:"event"` // seed_health_changed
	seedengine.SeedHealthChange
	// Link is the seed's page in the console, when its URL is known, else
	// its API path.
	Link string `json:"link"`
}

type seedAlertWorker struct {
	river.WorkerDefaults[SeedAlertArgs]
	q *Queue
}

// maxLoggedLocation bounds the Location of a refused redirect in logs and
// job errors: it is the receiver's to choose.
const maxLoggedLocation = 256

// Work implements river.Worker: one POST; anything but a 2xx (a redirect
// too, never followed) is an error, and River tries again later.
func (w *seedAlertWorker) Work(ctx context.Context, job *river.Job[SeedAlertArgs]) error {
	w.q.mu.RLock()
	hook := w.q.alertHook
	w.q.mu.RUnlock()
	if hook == nil || hook.URL == "" {
		return fmt.Errorf("no alert webhook in this process")
	}
	c := job.Args.Change
	link := "/api/v1/seeds/" + url.PathEscape(c.SeedID)
	if hook.ConsoleURL != "" {
		link = strings.TrimSuffix(hook.ConsoleURL, "/") + "/console/seeds/" + url.PathEscape(c.SeedID)
	}
	body, err := json.Marshal(alertBody{Event: "seed_health_changed", SeedHealthChange: c, Link: link})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hook.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "seedengine-alerts")
	// The job's id is the same on every attempt: receivers drop repeats
	// by it.
	req.Header.Set("X-Seedengine-Delivery", fmt.Sprint(job.ID))
	if hook.Secret != "" {
		mac := hmac.New(sha256.New, []byte(hook.Secret))
		mac.Write(body)
		req.Header.Set("X-Seedengine-Signature", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	}
	resp, err := hook.Client.Do(req)
	if err != nil {
		// The URL may carry a token (it is read like a secret): the error,
		// kept with the job and shown in River UI, names only what failed.
		var ue *url.Error
		if errors.As(err, &ue) {
			return fmt.Errorf("alert webhook: %s: %w", ue.Op, ue.Err)
		}
		return fmt.Errorf("alert webhook: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		attrs := []any{"event", "seed_alert_failed", "seed_id", c.SeedID, "job_id", job.ID, "attempt", job.Attempt, "status", resp.StatusCode}
		err := fmt.Errorf("alert webhook answered %d", resp.StatusCode)
		if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
			loc := seedengine.Truncate(resp.Header.Get("Location"), maxLoggedLocation)
			attrs = append(attrs, "location", loc)
			err = fmt.Errorf("alert webhook answered %d with Location %q, not followed", resp.StatusCode, loc)
		}
		w.q.log.Warn("alert not delivered", attrs...)
		return err
	}
	w.q.log.Info("alert delivered", "event", "seed_alert_delivered", "seed_id", c.SeedID, "from", c.From, "to", c.To, "attempt", job.Attempt)
	// Complete the job now rather than through River's completer, which
	// batches completions: a process killed in between would deliver the
	// alert again after its jobs are rescued.
	if err := completeJob(ctx, w.q, job); err != nil {
		w.q.log.Warn("alert delivered, its job left to River's completer", "event", "seed_alert_complete_failed", "job_id", job.ID, "err", err)
	}
	return nil
}
