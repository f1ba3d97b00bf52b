package jobs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/riverqueue/river/rivertype"
	"riverqueue.com/riverui"

	"github.com/seedengine/seedengine"
)

// maxUIRetryBody bounds the body of River UI's retry request, which holds
// at most 1,000 job ids.
const maxUIRetryBody = 64 << 10

// UIHandler returns River UI (riverqueue.com/riverui, MPL-2.0) for the
// queue's own River client: the single-page app and its JSON API under
// /api, both served from prefix, which must start with "/" ("/console/queue"
// and "/console/queue/" are the same prefix). The caller mounts it on that
// prefix without stripping it (River UI strips it itself) and puts it
// behind its own authentication: the handler checks none, and its API can
// retry, cancel and delete jobs and pause queues. The app's scripts, styles
// and icons are embedded in the riverui module; the page loads nothing from
// another host.
//
// Everything the open-source UI offers works on both engines, SQLite
// (riversqlite) and PostgreSQL (riverdatabasesql): the job list by state,
// kind, queue, priority and id; job detail with args, attempt errors and
// metadata; retry, cancel and delete; the queue list and queue detail with
// available and running counts; queue pause and resume; the sidebar's
// counts by state; kind and queue name autocomplete; the health checks.
// The differences on SQLite: every request is a transaction on the queue's
// single writer connection, so it waits behind the jobs being recorded (and
// they behind it); and above 10,000 jobs in one state the sidebar shows
// "10K+" where PostgreSQL, once autovacuum has analysed river_job, shows the
// planner's estimate (SQLite has one only after a full ANALYZE, which the
// store does not run).
//
// Not available on either engine, because they are River Pro features the
// open-source app shows only as a notice: workflows, producers, durable
// periodic jobs, River Pro's dead letter queue and queue concurrency limits.
// Nothing needs hiding on SQLite that PostgreSQL shows.
//
// Retrying a discarded or cancelled job through the UI is the same as
// RetryDeadLetter: a batch chunk's job reopens its chunk in the same
// transaction, so the batch runs the chunk again. Cancelling or deleting a
// chunk's job that has not finished leaves the chunk to the queue's sweep,
// which fails it within about two minutes so the batch finishes.
//
// The UI's background count refresher is not started, so the UI puts no
// load on the database while nobody has it open; a request for the
// sidebar's counts runs at most one count query, bounded at 10,001 jobs per
// state.
func (q *Queue) UIHandler(prefix string) (http.Handler, error) {
	if !strings.HasPrefix(prefix, "/") {
		return nil, seedengine.Errorf(seedengine.EINVALID, "queue UI prefix %q must start with /", prefix)
	}
	ui, err := riverui.NewHandler(&riverui.HandlerOpts{
		Endpoints: riverui.NewEndpoints(q.client, nil),
		Logger:    q.log.With("component", "riverui"),
		Prefix:    prefix,
	})
	if err != nil {
		return nil, fmt.Errorf("build queue UI: %w", err)
	}
	return &uiHandler{q: q, ui: ui, retryPath: riverui.NormalizePathPrefix(prefix) + "/api/jobs/retry"}, nil
}

// uiHandler is River UI with its job retry routed through RetryDeadLetter
// for dead letters, so that a chunk's job and its chunk reopen together.
type uiHandler struct {
	q         *Queue
	ui        http.Handler
	retryPath string
}

func (h *uiHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.URL.Path == h.retryPath {
		h.serveRetry(w, r)
		return
	}
	h.ui.ServeHTTP(w, r)
}

// serveRetry retries each dead letter among the ids of River UI's retry
// request with RetryDeadLetter and hands the other ids (jobs that are
// retryable or scheduled, made available now) to River UI unchanged. A
// body it cannot read is handed to River UI as it is, which answers it.
func (h *uiHandler) serveRetry(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxUIRetryBody))
	if err != nil {
		writeUIJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"message": "Request body too large."})
		return
	}
	var req struct {
		IDs []json.RawMessage `json:"ids"`
	}
	ids := []int64{}
	if json.Unmarshal(body, &req) == nil {
		for _, raw := range req.IDs {
			id, err := strconv.ParseInt(strings.Trim(string(raw), `"`), 10, 64)
			if err != nil {
				ids = nil
				break
			}
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		h.passRetry(w, r, body)
		return
	}

	rest := []string{}
	for _, id := range ids {
		j, err := h.q.client.JobGet(r.Context(), id)
		if err != nil || (j.State != rivertype.JobStateDiscarded && j.State != rivertype.JobStateCancelled) {
			rest = append(rest, strconv.FormatInt(id, 10))
			continue
		}
		if _, err := h.q.RetryDeadLetter(r.Context(), id); err != nil {
			status := http.StatusInternalServerError
			switch seedengine.ErrorCode(err) {
			case seedengine.ENOTFOUND:
				status = http.StatusNotFound
			case seedengine.ECONFLICT:
				status = http.StatusConflict
			}
			if status == http.StatusInternalServerError {
				h.q.log.ErrorContext(r.Context(), "queue UI retry failed", "event", "queue_ui_retry_failed", "job_id", id, "err", err)
			}
			writeUIJSON(w, status, map[string]string{"message": seedengine.ErrorMessage(err)})
			return
		}
	}
	if len(rest) == 0 {
		writeUIJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		return
	}
	body, _ = json.Marshal(map[string][]string{"ids": rest})
	h.passRetry(w, r, body)
}

func (h *uiHandler) passRetry(w http.ResponseWriter, r *http.Request, body []byte) {
	r2 := r.Clone(r.Context())
	r2.Body = io.NopCloser(bytes.NewReader(body))
	r2.ContentLength = int64(len(body))
	h.ui.ServeHTTP(w, r2)
}

func writeUIJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
