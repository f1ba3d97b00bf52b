package console

import (
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeList is a cursor list over ids, oldest first, that counts its calls.
type fakeList struct {
	ids   []int64 // sorted
	calls int
}

func (f *fakeList) lister(limit int) cursorLister[int64] {
	return cursorLister[int64]{limit: limit, id: func(id int64) int64 { return id },
		list: func(since int64, n int) ([]int64, *problem) {
			f.calls++
			if n < 1 || n > limit {
				panic("a page of the wrong size")
			}
			i, _ := slices.BinarySearch(f.ids, since+1)
			return slices.Clone(f.ids[i:min(i+n, len(f.ids))]), nil
		}}
}

// newestBefore is what newest must give, by brute force.
func newestBefore(ids []int64, before int64, n int) ([]int64, bool) {
	var out []int64
	for i := len(ids) - 1; i >= 0 && len(out) <= n; i-- {
		if ids[i] < before {
			out = append(out, ids[i])
		}
	}
	more := len(out) > n
	if more {
		out = out[:n]
	}
	return out, more
}

// Paging backwards over a list that pages forwards gives what a
// newest-first list would, page after page, for dense ids, gaps, sparse
// filters and bursts; and it stays cheap.
func TestCursorListerNewest(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	sets := map[string][]int64{}
	var dense, gappy, sparse, bursty []int64
	for id := int64(1); id <= 5000; id++ {
		dense = append(dense, id)
		if rng.IntN(4) != 0 {
			gappy = append(gappy, id)
		}
	}
	for id := int64(1); id <= 1_000_000; id++ {
		if rng.IntN(5000) == 0 {
			sparse = append(sparse, id)
		}
	}
	// Bursts: runs of a thousand matches far apart.
	for _, start := range []int64{10, 200_000, 200_900, 900_000} {
		for id := start; id < start+1000; id++ {
			bursty = append(bursty, id)
		}
	}
	slices.Sort(bursty)
	bursty = slices.Compact(bursty)
	sets["dense"], sets["gappy"], sets["sparse"], sets["bursty"], sets["none"], sets["one"] = dense, gappy, sparse, bursty, nil, []int64{7}
	for name, ids := range sets {
		t.Run(name, func(t *testing.T) {
			f := &fakeList{ids: ids}
			l := f.lister(3 * (itemsPerPage + 1))
			var hint atomic.Int64
			before, p := l.top(&hint)
			require.Nil(t, p)
			if len(ids) > 0 {
				require.Equal(t, ids[len(ids)-1]+1, before, "the top is just above the highest id")
				require.Equal(t, ids[len(ids)-1], hint.Load())
			} else {
				require.Equal(t, int64(1), before)
			}
			f.calls = 0
			again, p := l.top(&hint)
			require.Nil(t, p)
			require.Equal(t, before, again)
			require.Equal(t, 1, f.calls, "with the hint, one request finds the top")

			var seen []int64
			pages, worst := 0, 0
			for {
				f.calls = 0
				got, more, p := l.newest(before, itemsPerPage)
				require.Nil(t, p)
				want, wantMore := newestBefore(ids, before, itemsPerPage)
				require.Equal(t, want, nilIfEmpty(got), "the page below %d", before)
				require.Equal(t, wantMore, more, "more below %d", before)
				worst = max(worst, f.calls)
				seen = append(seen, got...)
				pages++
				if !more {
					break
				}
				before = got[len(got)-1]

				// And the page above the oldest row of this one is the
				// page before it, as oldest gives it.
				up, newer, p := l.oldest(got[len(got)-1]-1, itemsPerPage)
				require.Nil(t, p)
				require.True(t, newer || len(seen) == len(got))
				require.Equal(t, got, up)
			}
			slices.Reverse(seen)
			require.True(t, slices.Equal(ids, seen), "every id once, in order")
			t.Logf("%s: %d ids, %d pages, at most %d requests a page", name, len(ids), pages, worst)
			require.LessOrEqual(t, worst, 45, "a page costs a few dozen requests at most")
			if name == "dense" {
				require.LessOrEqual(t, worst, 1, "dense ids: one request a page")
			}
		})
	}
}

func nilIfEmpty(s []int64) []int64 {
	if len(s) == 0 {
		return nil
	}
	return s
}

// byteSize puts sizes in words.
func TestByteSize(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 5 << 20: "5.0 MiB", 3 << 30: "3.0 GiB"} {
		require.Equal(t, want, byteSize(n), n)
	}
}

// archivedType keeps a stored page's media type and charset, nothing
// else, and shows only HTML, XHTML and text in the frame.
func TestArchivedType(t *testing.T) {
	t.Parallel()
	for ct, want := range map[string]struct {
		out    string
		inline bool
	}{
		"text/html":                          {"text/html", true},
		"TEXT/HTML; Charset=UTF-8; foo=bar":  {"text/html; charset=UTF-8", true},
		"application/xhtml+xml":              {"application/xhtml+xml", true},
		"text/plain; charset=iso-8859-1":     {"text/plain; charset=iso-8859-1", true},
		"application/pdf":                    {"application/pdf", false},
		"image/svg+xml":                      {"image/svg+xml", false},
		"":                                   {"application/octet-stream", false},
		"text/html\r\nSet-Cookie: a=b":       {"application/octet-stream", false},
		"application/octet-stream; name=a.b": {"application/octet-stream", false},
	} {
		out, inline := archivedType(ct)
		require.Equal(t, want.out, out, ct)
		require.Equal(t, want.inline, inline, ct)
	}
}

// sandboxed accepts the API's policy for outside bytes and nothing
// weaker.
func TestSandboxed(t *testing.T) {
	t.Parallel()
	require.True(t, sandboxed("sandbox; default-src 'none'; base-uri 'none'; form-action 'none'"))
	for _, p := range []string{
		"", "default-src 'none'", "sandbox allow-scripts; default-src 'none'", "sandbox; default-src 'self'",
		"sandbox; default-src 'none' https:", "sandbox; default-src 'none'; frame-ancestors *",
	} {
		require.False(t, sandboxed(p), p)
	}
}
