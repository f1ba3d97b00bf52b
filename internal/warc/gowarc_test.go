package warc

import (
	"bytes"
	"errors"
	"testing"

	gowarc "github.com/nlnwa/gowarc/v3"
	"github.com/stretchr/testify/require"
)

// TestGowarcValidates reads a file we wrote with nlnwa/gowarc's reader in
// strict mode: every record must conform to WARC/1.1 (field syntax, the
// fields each record type may carry, URIs, dates, ids) and its block and
// payload digests must hold; the reader must find each record at the
// offset and length of its gzip member.
//
// Not parallel: gowarc's option constructors write a global of
// github.com/google/uuid (EnableRandPool), a data race with anything that
// makes a UUID meanwhile. This is why the package does not use gowarc
// outside tests.
func TestGowarcValidates(t *testing.T) {
	s := writeSample(t)
	ms := members(t, s.file)
	n := 0
	for rec, err := range readStrict(t, s.file) {
		require.NoError(t, err)
		require.Empty(t, rec.Validation)
		require.Equal(t, ms[n], member{rec.Offset, rec.Size}, "record %d", n)
		if rec.WarcRecord.Type() == gowarc.Response {
			require.NotEmpty(t, rec.WarcRecord.WarcHeader().Get(gowarc.WarcPayloadDigest))
		}
		require.NoError(t, rec.Close())
		n++
	}
	require.Equal(t, len(ms), n)

	// And it is strict enough to notice a changed byte.
	bad := corruptPayload(t, s.file, s.records[0].Offset, s.records[0].Length)
	var digestErr *gowarc.DigestError
	for rec, err := range readStrict(t, bad) {
		if err != nil {
			require.True(t, errors.As(err, &digestErr), "got %v", err)
			break
		}
		require.NoError(t, rec.Close())
	}
	require.NotNil(t, digestErr, "the changed byte was not noticed")
}

func readStrict(t *testing.T, file []byte) func(func(gowarc.Record, error) bool) {
	t.Helper()
	r, err := gowarc.NewWarcFileReaderFromStream(bytes.NewReader(file), 0,
		gowarc.WithStrictValidation(), gowarc.WithBufferMaxMemBytes(1<<24))
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	return r.Records()
}
