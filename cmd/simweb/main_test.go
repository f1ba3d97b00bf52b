package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // report, then stop at once
	var out, errOut bytes.Buffer
	err := run(ctx, []string{
		"--sites", "200", "--seed", "1", "--mix", "dead=0.1,slow=0.05,blocked=0.05",
		"--ca-dir", dir, "--hosts-out", filepath.Join(dir, "hosts.tsv"), "--env-out", filepath.Join(dir, "simweb.env"),
	}, &out, &errOut)
	require.NoError(t, err)
	for _, want := range []string{"simweb: 200 sites, seed 1", "https  127.0.0.1:", "dns    127.0.0.1:", "nxdomain", "SEEDENGINE_CONNECT_TO=", "curl --cacert"} {
		require.Contains(t, out.String(), want)
	}
	hosts, err := os.ReadFile(filepath.Join(dir, "hosts.tsv"))
	require.NoError(t, err)
	require.Len(t, strings.Split(strings.TrimSpace(string(hosts)), "\n"), 200)
	env, err := os.ReadFile(filepath.Join(dir, "simweb.env"))
	require.NoError(t, err)
	require.Contains(t, string(env), "SEEDENGINE_EXTRA_CA_FILE="+filepath.Join(dir, "simweb-ca.pem"))
	require.FileExists(t, filepath.Join(dir, "simweb-ca.pem"))
}

func TestRunCatalogue(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	require.NoError(t, run(ctx, []string{"--sites", "0", "--catalogue", "--ca-dir", t.TempDir()}, &out, &errOut))
	require.Contains(t, out.String(), "catalogue: ")
	require.Contains(t, out.String(), "arc_xp_outboundfeeds")
	require.Contains(t, out.String(), "https://www.potomac-courier-example.com/arc/outboundfeeds/rss/?outputType=xml")
}

func TestRunRejectsBadFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--mix", "zombie=1"}, {"--http", "0.0.0.0:8080"}, {"extra"}, {"--sites", "-1"}} {
		var out, errOut bytes.Buffer
		require.Error(t, run(context.Background(), args, &out, &errOut), "%v", args)
	}
}
