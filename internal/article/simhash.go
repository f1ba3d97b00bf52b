package article

import (
	"hash/fnv"
	"math/bits"
	"strings"
	"unicode"
)

// Syndicated copies: a wire story runs on twenty sites, each with its own
// page around the same text. Two articles are the same story when the
// SimHashes of their texts' word shingles are within DuplicateDistance
// bits of each other (Charikar's SimHash, as Manku, Jain and Das Sarma
// used it to find near-duplicate pages at Google: 64 bits, 3 bits apart).

// ShingleWords is how many words a shingle holds.
const ShingleWords = 3

// DuplicateDistance is the most bits two texts' SimHashes may differ by
// for the texts to be the same story.
const DuplicateDistance = 3

// SimHash is the 64-bit SimHash of text's overlapping ShingleWords-word
// shingles: each shingle's FNV-1a hash votes on every bit, and a bit is
// set when more shingles have it set than not. Words are runs of letters
// and digits, case and punctuation ignored, so a copy re-typeset or
// re-punctuated hashes the same. A text of fewer words than a shingle
// hashes its words as one shingle; an empty text is 0.
func SimHash(text string) uint64 {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	if len(words) == 0 {
		return 0
	}
	n := max(len(words)-ShingleWords+1, 1)
	var votes [64]int
	h := fnv.New64a()
	for i := range n {
		h.Reset()
		for j := i; j < min(i+ShingleWords, len(words)); j++ {
			_, _ = h.Write([]byte(words[j]))
			_, _ = h.Write([]byte{' '})
		}
		sum := h.Sum64()
		for b := range 64 {
			if sum&(1<<b) != 0 {
				votes[b]++
			} else {
				votes[b]--
			}
		}
	}
	var out uint64
	for b := range 64 {
		if votes[b] > 0 {
			out |= 1 << b
		}
	}
	return out
}

// Distance is the number of bits a and b differ in.
func Distance(a, b uint64) int { return bits.OnesCount64(a ^ b) }

// Bands splits a SimHash into four 16-bit bands: two hashes within
// DuplicateDistance (3) bits of each other differ in at most three
// bands, so they share at least one, and a lookup by band finds every
// candidate.
func Bands(h uint64) [4]uint16 {
	return [4]uint16{uint16(h >> 48), uint16(h >> 32), uint16(h >> 16), uint16(h)}
}
