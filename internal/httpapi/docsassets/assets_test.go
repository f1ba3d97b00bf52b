package docsassets

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// readSums reads SHA256SUMS, in the format of sha256sum: hex digest, two
// spaces, file name.
func readSums(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("SHA256SUMS")
	require.NoError(t, err)
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		require.True(t, ok, "SHA256SUMS line %q", sc.Text())
		sums[name] = sum
	}
	require.NoError(t, sc.Err())
	return sums
}

// TestFilesMatchSums checks that the embedded files are those recorded in
// SHA256SUMS, which TestFilesMatchNPMTarball ties to the npm tarball, and
// that README.md names the version and integrity the code records.
func TestFilesMatchSums(t *testing.T) {
	t.Parallel()
	sums := readSums(t)
	require.Len(t, sums, len(assets))
	for name, a := range assets {
		sum := sha256.Sum256(a.Body)
		require.Equal(t, sums[name], hex.EncodeToString(sum[:]), name)
	}
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	require.Contains(t, string(readme), Package+"@"+Version)
	require.Contains(t, string(readme), Integrity)
}

// TestFilesMatchNPMTarball downloads the package with npm and checks the
// tarball against Integrity and the committed files against the tarball's.
// It needs npm and the registry, so it runs only when
// SEEDENGINE_VERIFY_DOCSASSETS is set.
func TestFilesMatchNPMTarball(t *testing.T) {
	if os.Getenv("SEEDENGINE_VERIFY_DOCSASSETS") == "" {
		t.Skip("set SEEDENGINE_VERIFY_DOCSASSETS=1 to check the files against the npm registry")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	cmd := exec.CommandContext(ctx, "npm", "pack", Package+"@"+Version, "--json", "--ignore-scripts", "--pack-destination", dir)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "npm pack: %s", stderr.String())
	var packed []struct{ Filename, Integrity string }
	require.NoError(t, json.Unmarshal(out, &packed))
	require.Len(t, packed, 1)
	require.Equal(t, Integrity, packed[0].Integrity, "npm reports another integrity")

	tgz, err := os.ReadFile(filepath.Join(dir, packed[0].Filename))
	require.NoError(t, err)
	digest := sha512.Sum512(tgz)
	require.Equal(t, Integrity, "sha512-"+base64.StdEncoding.EncodeToString(digest[:]), "the tarball does not match Integrity")

	published := untar(t, tgz)
	sums := readSums(t)
	for name, a := range assets {
		want, ok := published["package/"+name]
		require.True(t, ok, "%s is not in the tarball", name)
		require.True(t, bytes.Equal(want, a.Body), "%s differs from the tarball's", name)
		sum := sha256.Sum256(want)
		require.Equal(t, hex.EncodeToString(sum[:]), sums[name], name)
	}
}

func untar(t *testing.T, tgz []byte) map[string][]byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	require.NoError(t, err)
	files := map[string][]byte{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		require.NoError(t, err)
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		require.NoError(t, err)
		files[h.Name] = b
	}
}
