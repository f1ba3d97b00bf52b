package article

import (
	"encoding/binary"
	"hash/fnv"
	"strings"

	"github.com/seedengine/seedengine"
)

// Syndicated copies: a wire story runs on twenty sites, each with its own
// page around the same text, a dateline, a "read more" line, the last
// paragraph cut. Two articles are copies when their texts share most of
// their ShingleWords-word shingles: when the Jaccard similarity of the
// two shingle sets, estimated by MinHash (Broder), is at least
// CopySimilarity. Candidates are found by locality-sensitive hashing: the
// signature's MinHashes values in Bands bands of BandRows; two texts
// whose signatures agree on a whole band are compared (a pair with
// similarity 0.7 shares a band with probability 0.71, at 0.8 0.95, at
// 0.9 0.9995; at 0.3 0.007).

// ShingleWords is how many words a shingle holds.
const ShingleWords = 3

// The signature's shape and the copy threshold.
const (
	MinHashes      = 60
	BandRows       = 6
	Bands          = MinHashes / BandRows
	CopySimilarity = 0.7
)

// Signature is a text's MinHash signature: for each of MinHashes hash
// functions, the least hash of its shingles.
type Signature [MinHashes]uint32

// minhashSeeds seed the hash functions (splitmix64 from a fixed start,
// so every process and version computes the same signature).
var minhashSeeds = func() [MinHashes]uint64 {
	var out [MinHashes]uint64
	x := uint64(0x5eed5eed5eed5eed)
	for i := range out {
		x += 0x9e3779b97f4a7c15
		out[i] = mix64(x)
	}
	return out
}()

// mix64 is splitmix64's finalizer: every bit of x moves every bit out.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// MinHash is the signature of text's overlapping ShingleWords-word
// shingles; ok is false for a text without a word. Words are
// seedengine.SearchWords' (letters and digits, lower case), so a copy
// re-typeset or re-punctuated has the same signature; a text of fewer
// words than a shingle is one shingle.
func MinHash(text string) (sig Signature, ok bool) {
	words := seedengine.SearchWords(text)
	if len(words) == 0 {
		return sig, false
	}
	for i := range sig {
		sig[i] = ^uint32(0)
	}
	h := fnv.New64a()
	for i := range max(len(words)-ShingleWords+1, 1) {
		h.Reset()
		_, _ = h.Write([]byte(strings.Join(words[i:min(i+ShingleWords, len(words))], " ")))
		base := h.Sum64()
		for k, seed := range minhashSeeds {
			if v := uint32(mix64(base^seed) >> 32); v < sig[k] {
				sig[k] = v
			}
		}
	}
	return sig, true
}

// Similarity estimates the Jaccard similarity of the two texts' shingle
// sets: the share of hash functions on which their signatures agree.
func (s *Signature) Similarity(o *Signature) float64 {
	n := 0
	for i := range s {
		if s[i] == o[i] {
			n++
		}
	}
	return float64(n) / MinHashes
}

// BandKeys are the keys of the signature's bands: band b's BandRows
// values hashed with b, so that two signatures share a key only when
// they agree on the whole of one band.
func (s *Signature) BandKeys() [Bands]int64 {
	var out [Bands]int64
	var buf [1 + 4*BandRows]byte
	for b := range Bands {
		buf[0] = byte(b)
		for r := range BandRows {
			binary.LittleEndian.PutUint32(buf[1+4*r:], s[b*BandRows+r])
		}
		h := fnv.New64a()
		_, _ = h.Write(buf[:])
		out[b] = int64(mix64(h.Sum64()))
	}
	return out
}

// Bytes is the signature as stored: MinHashes little-endian uint32s.
func (s *Signature) Bytes() []byte {
	out := make([]byte, 4*MinHashes)
	for i, v := range s {
		binary.LittleEndian.PutUint32(out[4*i:], v)
	}
	return out
}

// SignatureOf reads a signature stored by Bytes; ok is false for bytes
// of another length.
func SignatureOf(b []byte) (sig Signature, ok bool) {
	if len(b) != 4*MinHashes {
		return sig, false
	}
	for i := range sig {
		sig[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return sig, true
}

// SameText reports whether two stored signatures are copies of one text.
func SameText(a, b []byte) bool {
	x, ok1 := SignatureOf(a)
	y, ok2 := SignatureOf(b)
	return ok1 && ok2 && x.Similarity(&y) >= CopySimilarity
}

// CopyKeyOf is text's key for finding its copies (none for a text
// without a word).
func CopyKeyOf(text string) seedengine.CopyKey {
	sig, ok := MinHash(text)
	if !ok {
		return seedengine.CopyKey{}
	}
	bands := sig.BandKeys()
	return seedengine.CopyKey{Signature: sig.Bytes(), Bands: bands[:], Same: SameText}
}
