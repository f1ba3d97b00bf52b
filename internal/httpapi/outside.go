package httpapi

import (
	"mime"
	"net/http"
	"strings"
)

// Bytes from outside never run in the service's origin. An archived page,
// a stored feed, a dataset chunk or an export holds what publishers and
// clients wrote; were a browser to render one as a document of this
// origin, its script would call the API with the operator's rights (on a
// service without keys, with every right). So every response the server
// writes carries two headers, whatever the route (the console and /docs,
// which are our own pages, replace the policy with their own):
//
//   - X-Content-Type-Options: nosniff, so a browser takes the type as sent
//     and never guesses HTML in a JSON or text body;
//   - Content-Security-Policy: sandbox; default-src 'none', so a document
//     rendered from the response is in an origin of its own, runs no script
//     and loads nothing, not even an image or a style.
//
// And a response of an API route whose type a browser could render as an
// active document (HTML, XHTML, SVG, any XML, PDF, or a type it does not
// know) is an attachment: the browser saves it instead of opening it.
// Only types that cannot script are shown inline (inertType); bytes of
// no known type (application/octet-stream) are an attachment too.
const (
	sandboxPolicy = "sandbox; default-src 'none'; base-uri 'none'; form-action 'none'"
	nosniff       = "nosniff"
)

// protect sets the two headers every response carries.
func protect(h http.Header) {
	h["X-Content-Type-Options"] = []string{nosniff}
	h["Content-Security-Policy"] = []string{sandboxPolicy}
}

// attachUnlessInert makes a response whose Content-Type could script an
// attachment, unless its route already said how it is disposed.
func attachUnlessInert(h http.Header) {
	if h.Get("Content-Disposition") != "" {
		return
	}
	if !inertType(h.Get("Content-Type")) {
		h.Set("Content-Disposition", "attachment")
	}
}

// inertType reports whether a browser shows a body of media type ct as
// text, data or an image and never as a document that runs script. An
// empty or unreadable type is not inert: a browser would guess.
func inertType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	switch mt {
	case "text/plain", "text/csv", "application/json", "application/x-ndjson", "application/jsonl",
		"image/png", "image/jpeg", "image/gif", "image/webp", "image/avif":
		return true
	}
	// application/problem+json, application/merge-patch+json, …
	return strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")
}
