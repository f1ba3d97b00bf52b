package httpapi

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

func TestHTTPStatusCoversEveryCode(t *testing.T) {
	t.Parallel()
	for code, status := range map[string]int{
		seedengine.EINVALID:        http.StatusUnprocessableEntity,
		seedengine.ENOTFOUND:       http.StatusNotFound,
		seedengine.ECONFLICT:       http.StatusConflict,
		seedengine.EUNAUTHORIZED:   http.StatusUnauthorized,
		seedengine.EFORBIDDEN:      http.StatusForbidden,
		seedengine.ETOOLARGE:       http.StatusRequestEntityTooLarge,
		seedengine.ERATELIMITED:    http.StatusTooManyRequests,
		seedengine.EUNAVAILABLE:    http.StatusServiceUnavailable,
		seedengine.ENOTIMPLEMENTED: http.StatusNotImplemented,
		seedengine.EINTERNAL:       http.StatusInternalServerError,
		"something new":            http.StatusInternalServerError,
	} {
		require.Equal(t, status, HTTPStatus(code), code)
		if code != "something new" {
			require.Equal(t, code, codeForStatus(status), "codeForStatus is the inverse for %s", code)
		}
	}
}

// Handlers that validate path parameters with the root package get the
// location right; the partition routes will rely on it.
func TestProblemFromErrorLocatesFields(t *testing.T) {
	t.Parallel()
	st := &reqState{id: "r1", path: "/api/v1/datasets/qq/news/2026-01-28",
		route: &route{Route: Route{Path: "/api/v1/datasets/{country}/{category}/{date}"}}}
	p := problemFromError(st, inPath(seedengine.ValidateCountry("qq")))
	require.Equal(t, http.StatusUnprocessableEntity, p.Status)
	require.Equal(t, seedengine.EINVALID, p.Code)
	require.Equal(t, []FieldError{{Location: "path.country", Message: p.Detail}}, p.Errors)
	require.Equal(t, "r1", p.RequestID)
	// Neither the instance nor the message echoes the value sent.
	require.Equal(t, "/api/v1/datasets/{country}/{category}/{date}", p.Instance)
	require.NotContains(t, p.Detail, "qq")

	p = problemFromError(st, seedengine.FieldErrorf("urls", "too many"))
	require.Equal(t, "body.urls", p.Errors[0].Location)

	p = problemFromError(st, errors.New("pq: password authentication failed for user admin"))
	require.Equal(t, "Internal error.", p.Detail)
	require.Equal(t, seedengine.EINTERNAL, p.Code)
	require.Empty(t, p.Errors)
}

// huma's format messages end in the parser's error, which quotes the
// value sent: only the rule is kept.
func TestHumaMessageDropsTheValue(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]string{
		`expected string to be RFC 3986 uri: parse "java\x01script:": net/url: invalid control character in URL`: "expected string to be RFC 3986 uri",
		`expected string to be RFC 4122 uuid: invalid UUID "zz"`:                                                 "expected string to be RFC 4122 uuid",
		`invalid value: secret`:              "invalid value",
		`expected length <= 8`:               `expected length <= 8`,
		`expected value to be one of "a, b"`: `expected value to be one of "a, b"`,
	} {
		require.Equal(t, want, humaMessage(msg), msg)
	}
}
