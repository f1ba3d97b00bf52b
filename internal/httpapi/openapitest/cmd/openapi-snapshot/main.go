// Command openapi-snapshot writes the OpenAPI documents the API serves to
// the snapshot files of package openapitest (run by go generate there).
package main

import (
	"fmt"
	"os"

	"github.com/seedengine/seedengine/internal/httpapi/openapitest"
)

func main() {
	for file, path := range openapitest.Snapshots {
		doc, err := openapitest.Document(path)
		if err == nil {
			err = os.WriteFile(file, doc, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "openapi-snapshot:", err)
			os.Exit(1)
		}
	}
}
