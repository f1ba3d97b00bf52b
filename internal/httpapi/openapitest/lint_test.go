package openapitest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// lintBin is the directory holding the redocly and spectral programs:
// $SEEDENGINE_OPENAPI_LINT_BIN (.ci/run sets it to where it installed
// package.json's pinned versions), else the programs on PATH.
func lintBin(t *testing.T, name string) string {
	t.Helper()
	if dir := os.Getenv("SEEDENGINE_OPENAPI_LINT_BIN"); dir != "" {
		return filepath.Join(dir, name)
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s not found: set SEEDENGINE_OPENAPI_LINT_BIN (.ci/run does)", name)
	}
	t.Skipf("%s not found; .ci/run installs it (or: npm ci here and SEEDENGINE_OPENAPI_LINT_BIN=$PWD/node_modules/.bin)", name)
	return ""
}

// lintEnv keeps the linters from phoning home.
func lintEnv() []string {
	return append(os.Environ(),
		"REDOCLY_TELEMETRY=off",
		"REDOCLY_SUPPRESS_UPDATE_NOTICE=true",
		"SCARF_ANALYTICS=false",
		"NO_UPDATE_NOTIFIER=1",
	)
}

func snapshotFiles() []string {
	var files []string
	for f := range Snapshots {
		files = append(files, f)
	}
	slices.Sort(files)
	return files
}

// TestRedoclyLint runs Redocly's recommended rules (redocly.yaml) on both
// snapshots. Warnings fail too; the exceptions, with their reasons, are
// in .redocly.lint-ignore.yaml.
func TestRedoclyLint(t *testing.T) {
	t.Parallel()
	redocly := lintBin(t, "redocly")
	for _, file := range snapshotFiles() {
		cmd := exec.Command(redocly, "lint", "--config", "redocly.yaml", "--format=json", file)
		cmd.Env = lintEnv()
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		var res struct {
			Totals struct {
				Errors, Warnings, Ignored int
			}
			Problems []struct {
				RuleID   string `json:"ruleId"`
				Message  string
				Location []struct{ Pointer string }
			}
		}
		require.NoError(t, json.Unmarshal(out, &res), "redocly %s: %v\n%s%s", file, err, out, stderr.String())
		for _, p := range res.Problems {
			where := ""
			if len(p.Location) > 0 {
				where = p.Location[0].Pointer
			}
			t.Errorf("redocly %s: %s at %s: %s", file, p.RuleID, where, p.Message)
		}
		require.Zero(t, res.Totals.Errors+res.Totals.Warnings, "redocly %s", file)
		t.Logf("redocly %s: clean, %d ignored (.redocly.lint-ignore.yaml)", file, res.Totals.Ignored)
	}
}

// TestSpectralLint runs Spectral's oas ruleset (.spectral.yaml) on both
// snapshots; any result, hints included, fails.
func TestSpectralLint(t *testing.T) {
	t.Parallel()
	spectral := lintBin(t, "spectral")
	for _, file := range snapshotFiles() {
		cmd := exec.Command(spectral, "lint", "--ruleset", ".spectral.yaml", "--format", "json", "--fail-severity", "hint", "--quiet", file)
		cmd.Env = lintEnv()
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		var results []struct {
			Code     string
			Message  string
			Path     []any
			Severity int
		}
		require.NoError(t, json.Unmarshal(out, &results), "spectral %s: %v\n%s%s", file, err, out, stderr.String())
		for _, r := range results {
			t.Errorf("spectral %s: %s at %v: %s", file, r.Code, r.Path, r.Message)
		}
		require.NoError(t, err, "spectral %s: %s", file, stderr.String())
	}
}
