package seedengine

import (
	"errors"
	"fmt"
)

// Error codes are stable, machine-readable strings. One place (httpapi) maps
// them to HTTP statuses; clients may switch on them.
const (
	EINVALID        = "invalid"         // bad input; 400/422
	ENOTFOUND       = "not_found"       // unknown resource; 404
	ECONFLICT       = "conflict"        // state conflict or duplicate; 409
	EUNAUTHORIZED   = "unauthorized"    // no or bad credentials; 401
	EFORBIDDEN      = "forbidden"       // credentials lack the scope; 403
	ETOOLARGE       = "too_large"       // request body over the limit; 413
	ERATELIMITED    = "rate_limited"    // too many requests; 429
	EUNAVAILABLE    = "unavailable"     // a dependency is down or not ready; 503
	ENOTIMPLEMENTED = "not_implemented" // capability not built yet; 501
	EMISDIRECTED    = "misdirected"     // the request names a host the service does not answer for; 421
	EINTERNAL       = "internal"        // anything else; 500, details hidden
)

// Error is an application error with a stable code and a message that is
// safe to show to a client. Field names the offending input, when there is
// one.
type Error struct {
	Code    string
	Message string
	Field   string
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("seedengine error: code=%s field=%s message=%s", e.Code, e.Field, e.Message)
	}
	return fmt.Sprintf("seedengine error: code=%s message=%s", e.Code, e.Message)
}

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code string, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldErrorf returns an EINVALID *Error that names the offending field.
func FieldErrorf(field string, format string, args ...any) *Error {
	return &Error{Code: EINVALID, Field: field, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL
// for any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the client-safe message of the first *Error in err's
// chain, or a generic message for any other error so internals never leak.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Internal error."
}

// ErrorField returns the field named by the first *Error in err's chain.
func ErrorField(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}
