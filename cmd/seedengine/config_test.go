package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/fetch"
)

func envMap(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestParseConfigDefaults(t *testing.T) {
	t.Parallel()
	c, rest, err := parseConfig("serve", "", groupStore|groupServer|groupQueue, nil, envMap(nil), io.Discard, nil)
	require.NoError(t, err)
	require.Empty(t, rest)
	abs, _ := filepath.Abs("./data")
	require.Equal(t, "127.0.0.1:8080", c.Addr)
	require.Equal(t, abs, c.DataDir)
	require.Equal(t, "sqlite:"+filepath.Join(abs, "seedengine.db"), c.DatabaseURL)
	require.Equal(t, "file://"+filepath.Join(abs, "objects"), c.BlobURL)
	require.Equal(t, "text", c.LogFormat)
	require.Equal(t, 50, c.Workers)
	require.Zero(t, c.QueuePollInterval, "automatic")
}

func TestParseConfigPrecedence(t *testing.T) {
	t.Parallel()
	env := envMap(map[string]string{
		"SEEDENGINE_ADDR":       "127.0.0.1:9999",
		"SEEDENGINE_LOG_FORMAT": "json",
		"SEEDENGINE_WORKERS":    "7",
	})
	c, _, err := parseConfig("serve", "", groupStore|groupServer|groupQueue, []string{"--addr", "127.0.0.1:1234"}, env, io.Discard, nil)
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:1234", c.Addr, "a flag wins over its environment variable")
	require.Equal(t, "json", c.LogFormat, "the environment fills what the flags leave unset")
	require.Equal(t, 7, c.Workers)
}

func TestParseConfigSecretFromFileIsRedacted(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "db-url")
	require.NoError(t, os.WriteFile(path, []byte("postgres://app:s3cret@127.0.0.1:5432/seeds\n"), 0o600))
	c, _, err := parseConfig("migrate", "", groupStore, nil, envMap(map[string]string{"SEEDENGINE_DATABASE_URL_FILE": path}), io.Discard, nil)
	require.NoError(t, err)
	require.Equal(t, "postgres://app:s3cret@127.0.0.1:5432/seeds", c.DatabaseURL)
	logged := strings.Join(strings.Fields(strings.Trim(strings.ReplaceAll(fmtAttrs(c.logAttrs()), "\n", " "), " ")), " ")
	require.NotContains(t, logged, "s3cret")
	require.Contains(t, logged, "database_url=postgres://app:xxxxx@127.0.0.1:5432/seeds")
}

func TestParseConfigGitCredentialsAreRedacted(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"https://bob:pa55word@git.example.com/o/r.git", "https://ghp_TokenInURL@git.example.com/o/r.git"} {
		c, _, err := parseConfig("serve", "", groupStore|groupServer|groupQueue, []string{"--data-dir", t.TempDir(),
			"--metadata-git-url", url, "--metadata-git-token", "ghp_SuperSecretToken123"}, envMap(nil), io.Discard, nil)
		require.NoError(t, err)
		logged := fmtAttrs(c.logAttrs())
		for _, secret := range []string{"pa55word", "ghp_TokenInURL", "ghp_SuperSecretToken123"} {
			require.NotContains(t, logged, secret)
		}
		require.Contains(t, logged, "metadata_git_token=[redacted]")
		require.Contains(t, logged, "@git.example.com/o/r.git")
	}
}

func fmtAttrs(attrs []any) string {
	var b strings.Builder
	for i := 0; i+1 < len(attrs); i += 2 {
		b.WriteString(attrs[i].(string) + "=" + attrs[i+1].(string) + " ")
	}
	return b.String()
}

func TestIsLoopbackAddr(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "[::1]:80": true, "localhost:1": true, "127.1.2.3:0": true,
		":8080": false, "0.0.0.0:8080": false, "[::]:80": false, "10.0.0.1:80": false, "example.com:80": false,
	} {
		require.Equal(t, want, isLoopbackAddr(addr), addr)
	}
}

// TestConfigurationDocumentsEverySetting keeps the table of
// docs/configuration.md true to the flags.
func TestConfigurationDocumentsEverySetting(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../docs/configuration.md")
	require.NoError(t, err)
	for _, s := range settings {
		require.Contains(t, string(readme), "`--"+s.name+"`", "docs/configuration.md must document --%s", s.name)
		require.Contains(t, string(readme), envName(s.name), "docs/configuration.md must document %s", envName(s.name))
	}
}

func TestParseConfigFetchSettings(t *testing.T) {
	t.Parallel()
	env := envMap(map[string]string{
		"SEEDENGINE_CONNECT_TO":             ":443:127.0.0.1:8443, :80:127.0.0.1:8080",
		"SEEDENGINE_ALLOW_PRIVATE_NETWORKS": "127.0.0.0/8",
	})
	c, _, err := parseConfig("worker", "", groupStore|groupQueue|groupFetch,
		[]string{"--allow-private-networks", "10.1.2.3/8", "--per-host-delay", "0s", "--dns-server", "127.0.0.1:5353"}, env, io.Discard, nil)
	require.NoError(t, err)
	require.Equal(t, listFlag{":443:127.0.0.1:8443", ":80:127.0.0.1:8080"}, c.ConnectTo)
	require.Equal(t, listFlag{"10.1.2.3/8"}, c.AllowPrivateNetworks, "the flag wins over the variable")
	fc := c.fetchConfig(nil)
	require.Equal(t, "10.0.0.0/8", fc.AllowNetworks[0].String())
	require.Equal(t, fetch.NoPerHostDelay, fc.PerHostDelay, "0s turns the per-host delay off")
	require.Equal(t, "127.0.0.1:5353", fc.DNSServer)

	c, _, err = parseConfig("worker", "", groupStore|groupQueue|groupFetch, nil, envMap(nil), io.Discard, nil)
	require.NoError(t, err)
	require.Equal(t, fetch.DefaultPerHostDelay, c.fetchConfig(nil).PerHostDelay)
	require.Equal(t, fetch.DefaultConcurrency, c.FetchConcurrency)

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--connect-to", "nonsense"}, "--connect-to"},
		{[]string{"--allow-private-networks", "10.0.0.0"}, "--allow-private-networks"},
		{[]string{"--dns-server", "not a server"}, "--dns-server"},
		{[]string{"--user-agent-contact", "seedengine"}, "--user-agent-contact"},
		{[]string{"--fetch-concurrency", "0"}, "--fetch-concurrency"},
		{[]string{"--per-host-delay", "-1s"}, "--per-host-delay"},
		{[]string{"--extra-ca-file", "/no/such/file.pem"}, "--extra-ca-file"},
	} {
		_, _, err := parseConfig("worker", "", groupStore|groupQueue|groupFetch, tt.args, envMap(nil), io.Discard, nil)
		require.ErrorContains(t, err, tt.want, "%v", tt.args)
	}
}
