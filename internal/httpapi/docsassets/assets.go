// Package docsassets holds the viewer of the API documentation page,
// Stoplight Elements' web components build, as published on npm, so that
// GET /docs works with no network. README.md says where the files come
// from and how to update them.
package docsassets

import _ "embed" // the files below

// The npm package the files are taken from, byte for byte, and the
// integrity of its tarball as the registry records it.
const (
	Package   = "@stoplight/elements"
	Version   = "9.0.25"
	Integrity = "sha512-rDbNsgSCNo74lyV57cBzym+8F68/R2j7UPq4r3w5qK608vX8APNJhTq+2MkbTjsM3bUhFIoRdI225tlI85KpCA=="
)

// Names of the files the docs page loads.
const (
	Script     = "web-components.min.js"
	Stylesheet = "styles.min.css"
)

var (
	//go:embed web-components.min.js
	script []byte
	//go:embed styles.min.css
	stylesheet []byte
	// The bundle's first line points to this file for the licences of
	// the code bundled into it.
	//go:embed web-components.min.js.LICENSE.txt
	bundledLicences []byte
	//go:embed LICENSE
	licence []byte
)

// Asset is a file and the Content-Type it is served with.
type Asset struct {
	ContentType string
	Body        []byte
}

var assets = map[string]Asset{
	Script:                              {"text/javascript; charset=utf-8", script},
	Stylesheet:                          {"text/css; charset=utf-8", stylesheet},
	"web-components.min.js.LICENSE.txt": {"text/plain; charset=utf-8", bundledLicences},
	"LICENSE":                           {"text/plain; charset=utf-8", licence},
}

// Lookup returns the file called name. Its Body must not be modified.
func Lookup(name string) (Asset, bool) {
	a, ok := assets[name]
	return a, ok
}
