package seedengine

import (
	"strconv"
	"strings"
)

// MaxChunk is the highest chunk number: nine digits, so every number fits
// the 32-bit columns that index it.
const MaxChunk = 999_999_999

const (
	chunkNamePrefix = "raw_"
	chunkNameDigits = 4
)

// ChunkName returns the base name of raw chunk n without extension,
// "raw_0001" (DESIGN §5). Chunks are numbered from 1 to MaxChunk with at
// least four digits. EINVALID (field chunk) for a number out of range.
func ChunkName(n int) (string, error) {
	if n < 1 || n > MaxChunk {
		return "", FieldErrorf("chunk", "chunk number must be between 1 and %d", MaxChunk)
	}
	s := strconv.Itoa(n)
	if len(s) < chunkNameDigits {
		s = strings.Repeat("0", chunkNameDigits-len(s)) + s
	}
	return chunkNamePrefix + s, nil
}

// ParseChunkName is the inverse of ChunkName. It accepts only the canonical
// form, so one chunk number has exactly one name: "raw_00001" is rejected
// because ChunkName(1) is "raw_0001", and so are an extension and other
// case. EINVALID (field chunk) otherwise.
func ParseChunkName(name string) (int, error) {
	digits, ok := strings.CutPrefix(name, chunkNamePrefix)
	bad := !ok || len(digits) < chunkNameDigits || len(digits) > len(strconv.Itoa(MaxChunk)) ||
		(len(digits) > chunkNameDigits && digits[0] == '0')
	for i := 0; !bad && i < len(digits); i++ {
		bad = digits[i] < '0' || digits[i] > '9'
	}
	n := 0
	if !bad {
		n, _ = strconv.Atoi(digits) // nine digits at most: no overflow
	}
	if bad || n < 1 {
		return 0, FieldErrorf("chunk", "chunk must be a chunk name like raw_0001")
	}
	return n, nil
}
