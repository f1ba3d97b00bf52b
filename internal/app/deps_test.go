package app_test

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/seedengine/seedengine"

// The dependency rule of docs/architecture.md, read from the packages'
// imports (test files aside): the root imports nothing of the project,
// sqlstore and layout only the root, the services neither the database,
// the object store nor the queue, the API neither, and the queue no
// service.
func TestDependencyRule(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	imports := map[string][]string{} // package → project packages it imports
	require.NoError(t, filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" || rel == filepath.Join("internal", "httpapi", "openapitest") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files
		}
		name := module
		if rel != "." {
			name += "/" + filepath.ToSlash(rel)
		}
		for _, imp := range pkg.Imports {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				imports[name] = append(imports[name], imp)
			}
		}
		return nil
	}))
	require.Contains(t, imports, module+"/internal/jobs", "the walk found the packages")

	forbid := func(pkg string, banned ...string) {
		t.Helper()
		for _, imp := range imports[module+pkg] {
			for _, b := range banned {
				require.False(t, imp == module+b || strings.HasPrefix(imp, module+b+"/"), "%s imports %s", pkg, imp)
			}
		}
	}
	require.Empty(t, imports[module], "the root package imports nothing of the project")
	for _, imp := range imports[module+"/internal/sqlstore"] {
		require.Equal(t, module, imp, "sqlstore imports only the root package")
	}
	services := []string{"/internal/research", "/internal/liveness", "/internal/contract", "/internal/orchestrate", "/internal/pages",
		"/internal/seedcheck", "/internal/harvest", "/internal/metasync", "/internal/dataset"}
	for _, s := range services {
		forbid(s, "/internal/sqlstore", "/internal/blobstore", "/internal/jobs", "/internal/httpapi", "/internal/app")
	}
	forbid("/internal/httpapi", "/internal/sqlstore", "/internal/blobstore", "/internal/jobs", "/internal/app")
	for _, imp := range imports[module+"/internal/layout"] {
		require.Equal(t, module, imp, "layout imports only the root package")
	}
	forbid("/internal/jobs", append(services, "/internal/httpapi", "/internal/app")...)
}
