// Package seedengine holds the domain of the seedengine service: the types,
// identifiers and service interfaces shared by every adapter.
//
// seedengine discovers web data sources by country and category (research)
// and decides how to retrieve them (seeds). Adapters live under internal/
// (sqlstore, blobstore, jobs, httpapi, …) and never import each other; they
// meet in cmd/seedengine, which wires them through the interfaces declared
// here. This package depends on the standard library only.
package seedengine

// Name is the service name reported by the API root and the User-Agent.
const Name = "seedengine"

// Version is the engine version; cmd/seedengine overrides it at link time
// with -ldflags "-X github.com/seedengine/seedengine.Version=…".
var Version = "0.1.0-dev"

// Commit is the VCS commit the binary was built from, set at link time.
var Commit = ""
