package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/validation"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/outage"
)

// Limits on what a problem carries, so a 10,000-item request with every
// item wrong cannot produce a response as large as itself.
const (
	maxProblemErrors  = 100
	maxProblemMessage = 256
	maxProblemLoc     = 128
)

// problemTypePrefix makes the problem type a stable URI per error code.
// RFC 9457 only needs it to identify the problem type; a URN avoids
// promising a documentation URL that may not exist.
const problemTypePrefix = "urn:seedengine:problem:"

// Problem is an RFC 9457 problem details body, the shape of every error
// response. Code is the stable seedengine error code clients switch on;
// Errors names each offending input.
type Problem struct {
	Type      string       `json:"type" doc:"URI identifying the problem type; one per code." example:"urn:seedengine:problem:invalid"`
	Title     string       `json:"title" doc:"HTTP status text." example:"Unprocessable Entity"`
	Status    int          `json:"status" doc:"HTTP status code." example:"422"`
	Detail    string       `json:"detail,omitempty" doc:"What went wrong in this occurrence; never internal details." example:"validation failed"`
	Instance  string       `json:"instance,omitempty" doc:"The route that answered, as the route table writes it (/api/v1/seeds/{seedId}, never the values sent in its place); absent when no route matched." example:"/api/v1/queues/research"`
	Code      string       `json:"code" enum:"invalid,not_found,conflict,unauthorized,forbidden,too_large,misdirected,rate_limited,unavailable,not_implemented,internal" doc:"Stable machine-readable error code."`
	RequestID string       `json:"request_id,omitempty" doc:"Request id, also in the X-Request-ID header; quote it when reporting a problem."`
	Errors    []FieldError `json:"errors,omitempty" doc:"One entry per offending input, at most 100."`
}

// FieldError names one offending input of a request. Values are never
// echoed back, so a huge or secret input cannot leak into a response.
type FieldError struct {
	Location string `json:"location,omitempty" doc:"Where the input is, e.g. body.urls[3] or path.country." example:"body.urls[3]"`
	Message  string `json:"message" doc:"What is wrong with it."`
}

// Error implements error so huma can return a Problem from its own
// validation and handler paths.
func (p *Problem) Error() string { return p.Detail }

// GetStatus implements huma.StatusError.
func (p *Problem) GetStatus() int { return p.Status }

// ContentType implements huma.ContentTypeFilter, so huma sends problems
// as application/problem+json where it negotiated application/json.
func (p *Problem) ContentType(ct string) string {
	if ct == "application/json" {
		return "application/problem+json"
	}
	return ct
}

// HTTPStatus is the one mapping from seedengine error codes to HTTP
// statuses. EINVALID maps to 422 (a well-formed request with a bad field);
// malformed JSON keeps huma's 400 with the same code. Unknown codes are
// internal errors.
func HTTPStatus(code string) int {
	switch code {
	case seedengine.EINVALID:
		return http.StatusUnprocessableEntity
	case seedengine.ENOTFOUND:
		return http.StatusNotFound
	case seedengine.ECONFLICT:
		return http.StatusConflict
	case seedengine.EUNAUTHORIZED:
		return http.StatusUnauthorized
	case seedengine.EFORBIDDEN:
		return http.StatusForbidden
	case seedengine.ETOOLARGE:
		return http.StatusRequestEntityTooLarge
	case seedengine.ERATELIMITED:
		return http.StatusTooManyRequests
	case seedengine.EUNAVAILABLE:
		return http.StatusServiceUnavailable
	case seedengine.ENOTIMPLEMENTED:
		return http.StatusNotImplemented
	case seedengine.EMISDIRECTED:
		return http.StatusMisdirectedRequest
	}
	return http.StatusInternalServerError
}

// codeForStatus gives a code to errors that arrive as a bare status, as
// huma's validation and content negotiation errors do. Every client error
// without a more specific code is invalid input.
func codeForStatus(status int) string {
	switch status {
	case http.StatusNotFound:
		return seedengine.ENOTFOUND
	case http.StatusConflict:
		return seedengine.ECONFLICT
	case http.StatusUnauthorized:
		return seedengine.EUNAUTHORIZED
	case http.StatusForbidden:
		return seedengine.EFORBIDDEN
	case http.StatusRequestEntityTooLarge:
		return seedengine.ETOOLARGE
	case http.StatusTooManyRequests:
		return seedengine.ERATELIMITED
	case http.StatusServiceUnavailable:
		return seedengine.EUNAVAILABLE
	case http.StatusNotImplemented:
		return seedengine.ENOTIMPLEMENTED
	}
	if status >= 400 && status < 500 {
		return seedengine.EINVALID
	}
	return seedengine.EINTERNAL
}

const internalDetail = "Internal error."

// newProblem fills the fields every problem shares. st may be nil when
// huma builds an error outside a request (its schema example).
func newProblem(st *reqState, status int, code, detail string) *Problem {
	p := &Problem{
		Type:   problemTypePrefix + code,
		Title:  http.StatusText(status),
		Status: status,
		Detail: seedengine.Truncate(detail, maxProblemMessage),
		Code:   code,
	}
	if st != nil {
		p.Instance = st.instance()
		p.RequestID = st.id
	}
	return p
}

// instance is a problem's instance: the route's path as the route table
// writes it, so the values of its path parameters, which are the
// client's, are never echoed back; none when no route matched (the path
// is all the client's).
func (st *reqState) instance() string {
	if st.route != nil {
		return st.route.Path
	}
	return ""
}

// locatedError tells where a field named by a seedengine error came from,
// so the problem can say "path.country" rather than guess "body.country".
type locatedError struct {
	loc string
	err error
}

func (e *locatedError) Error() string { return e.err.Error() }
func (e *locatedError) Unwrap() error { return e.err }

// inPath marks the fields of err as path parameters, for handlers that
// validate them with the root package (seedengine.ValidateCountry, …).
func inPath(err error) error {
	if err == nil {
		return nil
	}
	return &locatedError{loc: "path", err: err}
}

// problemFromError turns an error returned by a service or handler into a
// problem. Internal errors are logged with the request id and replaced by a
// generic message, because their text may hold SQL, paths or addresses.
func problemFromError(st *reqState, err error) *Problem {
	if clientGone(err) {
		return clientClosedProblem(st, err)
	}
	var se *strictError
	if errors.As(err, &se) {
		return se.problem(st)
	}
	var be *bodyReadError
	if errors.As(err, &be) && isTimeout(be.err) {
		return newProblem(st, http.StatusRequestTimeout, seedengine.EINVALID, "request body not received in time")
	}
	code := seedengine.ErrorCode(err)
	status := HTTPStatus(code)
	if status == http.StatusInternalServerError {
		if dep, ok := outage.Classify(err); ok {
			// An outage, not a bug: the client should retry.
			st.logError("dependency unavailable", err)
			if dep == outage.Network {
				return newProblem(st, http.StatusServiceUnavailable, seedengine.EUNAVAILABLE, "a dependency of this server is not available right now; try again later")
			}
			return newProblem(st, http.StatusServiceUnavailable, seedengine.EUNAVAILABLE, "the "+dep+" is not available right now; try again later")
		}
		code = seedengine.EINTERNAL
		st.logError("internal error", err)
		return newProblem(st, status, code, internalDetail)
	}
	if status == http.StatusServiceUnavailable {
		st.logError("dependency unavailable", err)
	}
	p := newProblem(st, status, code, seedengine.ErrorMessage(err))
	if field := seedengine.ErrorField(err); field != "" {
		loc := "body"
		var le *locatedError
		if errors.As(err, &le) {
			loc = le.loc
		}
		p.Errors = []FieldError{{
			Location: seedengine.Truncate(loc+"."+field, maxProblemLoc),
			Message:  p.Detail,
		}}
	}
	return p
}

// StatusClientClosedRequest is what a request whose client went away
// before its answer is recorded with (nginx's 499): not a server error,
// so it stays out of the 5xx counts alerts watch. The client never sees
// it.
const StatusClientClosedRequest = 499

// clientGone reports whether err is the request's context ending because
// the client went away.
func clientGone(err error) bool { return errors.Is(err, context.Canceled) }

// clientClosedProblem records a request abandoned by its client: logged
// at INFO, answered (to nobody) with 499.
func clientClosedProblem(st *reqState, err error) *Problem {
	if st != nil && st.srv != nil {
		st.srv.logger.LogAttrs(context.Background(), slog.LevelInfo, "client closed request",
			slog.String("event", "http_client_closed"),
			slog.String("request_id", st.id),
			slog.String("route", st.routeLabel()),
			slog.String("error", errString(err)),
		)
	}
	p := newProblem(st, StatusClientClosedRequest, seedengine.EINVALID, "the client closed the request")
	p.Title = "Client Closed Request"
	return p
}

// bodyReadError is an error reading the request body itself, as opposed
// to one of the handler's own dependencies.
type bodyReadError struct{ err error }

func (e *bodyReadError) Error() string { return "read request body: " + e.err.Error() }
func (e *bodyReadError) Unwrap() error { return e.err }

// isTimeout reports whether err is a network timeout: a request body
// that did not arrive by its read deadline.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// humaProblem builds the problem for every error huma creates: validation
// failures, unreadable bodies, negotiation failures and errors returned by
// handlers (which huma hands over as a 500 wrapping the handler's error).
func humaProblem(st *reqState, status int, msg string, errs []error) *Problem {
	for _, err := range errs {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return newProblem(st, http.StatusRequestEntityTooLarge, seedengine.ETOOLARGE,
				"request body is larger than "+strconv.FormatInt(mbe.Limit, 10)+" bytes")
		}
		// A short body, as huma reports it; a handler's error (a 500)
		// ending in io.ErrUnexpectedEOF is a store's cut connection.
		if status < 500 && errors.Is(err, io.ErrUnexpectedEOF) {
			return newProblem(st, http.StatusBadRequest, seedengine.EINVALID, "request body ended early")
		}
	}
	if len(errs) == 1 && errs[0] != nil {
		var se *seedengine.Error
		if status == http.StatusInternalServerError || errors.As(errs[0], &se) {
			return problemFromError(st, errs[0])
		}
	}
	code := codeForStatus(status)
	if status >= 500 {
		st.logError("internal error: "+msg, errors.Join(errs...))
		return newProblem(st, status, code, internalDetail)
	}
	p := newProblem(st, status, code, msg)
	n := 0
	for _, err := range errs {
		if err == nil {
			continue
		}
		n++
		if len(p.Errors) >= maxProblemErrors {
			continue
		}
		var fe FieldError
		var d huma.ErrorDetailer
		if errors.As(err, &d) {
			detail := d.ErrorDetail()
			fe = FieldError{Location: seedengine.Truncate(missingFieldLocation(detail), maxProblemLoc), Message: seedengine.Truncate(humaMessage(detail.Message), maxProblemMessage)}
		} else {
			fe = FieldError{Message: seedengine.Truncate(humaMessage(err.Error()), maxProblemMessage)}
		}
		p.Errors = append(p.Errors, fe)
	}
	if n > maxProblemErrors {
		p.Detail = seedengine.Truncate(msg, maxProblemMessage) + " (" + strconv.Itoa(n) + " errors, first " + strconv.Itoa(maxProblemErrors) + " listed)"
	}
	return p
}

// humaValueMessages are huma's messages that end in ": " and the error of
// the parser that refused the value, which quotes the value
// (`parse "javascript:…": …`): only the part before it is kept, so the
// message names the rule, never the value sent. (A huma release that
// words them otherwise fails TestHumaMessageDropsTheValue and
// internal/app's TestErrorsNeverEchoInput.)
var humaValueMessages = func() []string {
	var out []string
	for _, m := range []string{
		validation.MsgExpectedRFC5322Email, validation.MsgExpectedRFC3986URI, validation.MsgExpectedRFC4122UUID,
		validation.MsgExpectedRegexp, validation.MsgExpectedDuration,
		"invalid value: %v", // a parameter of a type that parses itself
	} {
		if prefix, ok := strings.CutSuffix(m, "%v"); ok && strings.HasSuffix(prefix, ": ") {
			out = append(out, prefix)
		}
	}
	return out
}()

// humaMessage is a message of huma's without the value it may quote.
func humaMessage(msg string) string {
	for _, prefix := range humaValueMessages {
		if strings.HasPrefix(msg, prefix) {
			return strings.TrimSuffix(prefix, ": ")
		}
	}
	return msg
}

// missingFieldLocation points a missing required property at the property
// itself (body.scope), where huma reports its parent (body), so every
// entry of errors[] names the field to fix.
func missingFieldLocation(d *huma.ErrorDetail) string {
	if name, ok := strings.CutPrefix(d.Message, "expected required property "); ok {
		if name, ok = strings.CutSuffix(name, " to be present"); ok && name != "" {
			if d.Location == "" {
				return name
			}
			return d.Location + "." + name
		}
	}
	return d.Location
}

var configureHuma sync.Once

// useProblemsForHuma replaces huma's error constructors and makes its
// validator take member names as spelt. They are package variables in
// huma, so this is process-wide; the replacement depends only on the
// request it is given, never on a particular Server, so every API in the
// process gets the same problem shape.
func useProblemsForHuma() {
	configureHuma.Do(func() {
		// By default huma's validator matches "Scope" to scope, as
		// encoding/json does; strictJSON refuses such a body first, and
		// the validator then agrees with it rather than with the decoder.
		huma.ValidateStrictCasing = true
		huma.NewError = func(status int, msg string, errs ...error) huma.StatusError {
			return humaProblem(nil, status, msg, errs)
		}
		huma.NewErrorWithContext = func(hctx huma.Context, status int, msg string, errs ...error) huma.StatusError {
			var st *reqState
			if hctx != nil {
				st = stateFrom(hctx.Context())
			}
			return humaProblem(st, status, msg, errs)
		}
	})
}

// writeProblem writes a problem outside huma (middleware, plain handlers).
func writeProblem(w http.ResponseWriter, p *Problem) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as huma writes its problems
	if err := enc.Encode(p); err != nil {
		// A Problem holds only strings and ints; this cannot fail.
		buf.Reset()
		buf.WriteString(`{"type":"urn:seedengine:problem:internal","title":"Internal Server Error","status":500,"code":"internal"}` + "\n")
	}
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	h.Del("Content-Length")
	if p.Status == http.StatusUnauthorized && h.Get("WWW-Authenticate") == "" {
		h.Set("WWW-Authenticate", `Bearer realm="seedengine"`)
	}
	w.WriteHeader(p.Status)
	_, _ = w.Write(buf.Bytes())
}

// logError records an error whose text must not reach the client, with
// what is needed to find the request again.
func (st *reqState) logError(msg string, err error) {
	if st == nil || st.srv == nil {
		return
	}
	st.srv.logger.LogAttrs(context.Background(), slog.LevelError, msg,
		slog.String("event", "http_error"),
		slog.String("request_id", st.id),
		slog.String("route", st.routeLabel()),
		slog.String("error", errString(err)),
	)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
