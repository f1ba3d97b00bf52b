package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// complete runs "seedengine __complete words…" and returns its candidates.
func complete(t *testing.T, words ...string) []string {
	t.Helper()
	stdout, stderr, code := runCLI(t, nil, append([]string{"__complete"}, words...)...)
	require.Equal(t, 0, code, stderr)
	return strings.Fields(stdout)
}

// Completion offers the commands, subcommands, each command's own flags
// (read from its --help, so a flag added to a command is offered at once
// and one it lacks never is) and the values of the flags that take one of
// a few.
func TestCompletionCandidates(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"apikey", "completion", "extract", "help", "migrate", "serve", "upload", "version", "worker"}, complete(t, ""))
	require.Equal(t, []string{"serve"}, complete(t, "se"))
	require.Equal(t, []string{"create", "list", "revoke"}, complete(t, "apikey", ""))
	require.Equal(t, []string{"bash", "fish", "zsh"}, complete(t, "completion", ""))
	require.Equal(t, []string{"--metrics-addr"}, complete(t, "worker", "--metr"))
	require.Empty(t, complete(t, "serve", "--metr"), "serve has /metrics on --addr, no --metrics-addr")
	require.Equal(t, []string{"--output"}, complete(t, "apikey", "list", "--out"))
	require.Empty(t, complete(t, "apikey", "create", "--out"))
	require.Equal(t, []string{"--name"}, complete(t, "apikey", "create", "--na"))
	require.Equal(t, []string{"json", "table"}, complete(t, "apikey", "list", "--output", ""))
	require.Equal(t, []string{"admin"}, complete(t, "apikey", "create", "--scope", "a"))
	require.Contains(t, complete(t, "serve", "--"), "--liveness-workers")
	require.Empty(t, complete(t, "upload", "some/di"), "file names are the shell's")
}

// The scripts parse in their shells, and bash's completes through the
// program: "seedengine apikey l<TAB>" gives "list".
func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh", "fish"} {
		script, stderr, code := runCLI(t, nil, "completion", shell)
		require.Equal(t, 0, code, stderr)
		require.Contains(t, script, "seedengine __complete")
		path, err := exec.LookPath(shell)
		if err != nil {
			continue // only bash is on every machine that runs these tests
		}
		file := filepath.Join(t.TempDir(), "seedengine."+shell)
		require.NoError(t, os.WriteFile(file, []byte(script), 0o644))
		check := exec.Command(path, "-n", file)
		out, err := check.CombinedOutput()
		require.NoError(t, err, "%s -n: %s", shell, out)
	}
	_, _, code := runCLI(t, nil, "completion", "tcsh")
	require.Equal(t, 2, code)

	bash, err := exec.LookPath("bash")
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.Symlink(binary, filepath.Join(dir, "seedengine")))
	cmd := exec.Command(bash, "-c", `source <(seedengine completion bash)
COMP_WORDS=(seedengine apikey l); COMP_CWORD=2; _seedengine; printf '%s\n' "${COMPREPLY[@]}"`)
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	require.Equal(t, "list\n", string(out))
}

// apikey list --output json is an array of the keys, never their
// secrets; a bad --output is a usage error naming the flag.
func TestAPIKeyListJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stdout, stderr, code := runCLI(t, nil, "apikey", "list", "--data-dir", dir, "--output", "json")
	require.Equal(t, 0, code, stderr)
	require.JSONEq(t, "[]", stdout)

	key := createKey(t, dir, "ops", "admin")
	createKey(t, dir, "reader", "read")
	_, stderr, code = runCLI(t, nil, "apikey", "revoke", "--data-dir", dir, "reader")
	require.Equal(t, 0, code, stderr)
	stdout, stderr, code = runCLI(t, nil, "apikey", "list", "--data-dir", dir, "--output", "json")
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, stdout, key)
	var keys []map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &keys))
	require.Len(t, keys, 2)
	byName := map[string]map[string]any{}
	for _, k := range keys {
		byName[k["name"].(string)] = k
	}
	require.Equal(t, "admin", byName["ops"]["scope"])
	require.NotContains(t, byName["ops"], "revoked_at")
	require.Contains(t, byName["reader"], "revoked_at")
	require.True(t, strings.HasPrefix(key, byName["ops"]["prefix"].(string)))

	_, stderr, code = runCLI(t, nil, "apikey", "list", "--data-dir", dir, "--output", "yaml")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--output")
}
