package seedengine_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

// term is a required term of words, notTerm an excluded one.
func term(words ...string) seedengine.SearchTerm { return seedengine.SearchTerm{Words: words} }
func notTerm(words ...string) seedengine.SearchTerm {
	return seedengine.SearchTerm{Words: words, Not: true}
}

// anyOf is a search of alternatives, allOf an alternative's terms.
func anyOf(alternatives ...[]seedengine.SearchTerm) seedengine.Search {
	return seedengine.Search{Any: alternatives}
}
func allOf(terms ...seedengine.SearchTerm) []seedengine.SearchTerm { return terms }

// ParseSearch reads the one documented syntax: words (AND), "phrases",
// a OR b (AND binds tighter), -word and -"phrase"; words lower-cased and
// split at punctuation (a word with punctuation inside is a phrase of its
// parts).
func TestParseSearch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		q    string
		want seedengine.Search
	}{
		{"coffee", anyOf(allOf(term("coffee")))},
		{"  coffee  ", anyOf(allOf(term("coffee")))},
		{"Coffee PRICES", anyOf(allOf(term("coffee"), term("prices")))},
		{"coffee\tprices\nrise", anyOf(allOf(term("coffee"), term("prices"), term("rise")))},
		{"Café ÜBER", anyOf(allOf(term("café"), term("über")))},
		{"coffee, prices!", anyOf(allOf(term("coffee"), term("prices")))},
		{"state-owned", anyOf(allOf(term("state", "owned")))},
		{"U.S.", anyOf(allOf(term("u", "s")))},
		{"3.14", anyOf(allOf(term("3", "14")))},
		{"(coffee)", anyOf(allOf(term("coffee")))},
		{`"coffee prices"`, anyOf(allOf(term("coffee", "prices")))},
		{`"Coffee, Prices!"`, anyOf(allOf(term("coffee", "prices")))},
		{`"coffee prices" rise`, anyOf(allOf(term("coffee", "prices"), term("rise")))},
		{`"unclosed phrase`, anyOf(allOf(term("unclosed", "phrase")))},
		{`a "" b`, anyOf(allOf(term("a"), term("b")))},
		{`"a OR b"`, anyOf(allOf(term("a", "or", "b")))},
		{"tea OR coffee", anyOf(allOf(term("tea")), allOf(term("coffee")))},
		{"a b OR c", anyOf(allOf(term("a"), term("b")), allOf(term("c")))},
		{"a OR b c", anyOf(allOf(term("a")), allOf(term("b"), term("c")))},
		{"a OR b OR c", anyOf(allOf(term("a")), allOf(term("b")), allOf(term("c")))},
		{`"a b" OR "c d"`, anyOf(allOf(term("a", "b")), allOf(term("c", "d")))},
		{"a OR OR b", anyOf(allOf(term("a")), allOf(term("b")))},
		{"OR a OR", anyOf(allOf(term("a")))},
		// Only upper-case OR is the operator; "or" is a word.
		{"cats or dogs", anyOf(allOf(term("cats"), term("or"), term("dogs")))},
		{"cats Or dogs", anyOf(allOf(term("cats"), term("or"), term("dogs")))},
		{"coffee -tea", anyOf(allOf(term("coffee"), notTerm("tea")))},
		{"-tea coffee", anyOf(allOf(notTerm("tea"), term("coffee")))},
		{`coffee -"tea prices"`, anyOf(allOf(term("coffee"), notTerm("tea", "prices")))},
		{`"coffee prices" -harbour`, anyOf(allOf(term("coffee", "prices"), notTerm("harbour")))},
		{"coffee -state-owned", anyOf(allOf(term("coffee"), notTerm("state", "owned")))},
		{"-OR coffee", anyOf(allOf(notTerm("or"), term("coffee")))},
		{"a - b", anyOf(allOf(term("a"), term("b")))},
		{"a OR b -c", anyOf(allOf(term("a")), allOf(term("b"), notTerm("c")))},
		{"a -b OR c", anyOf(allOf(term("a"), notTerm("b")), allOf(term("c")))},
		{strings.Repeat("a", 500), anyOf(allOf(term(strings.Repeat("a", 500))))},
	}
	for _, tt := range tests {
		got, err := seedengine.ParseSearch(tt.q)
		require.NoError(t, err, "%q", tt.q)
		require.Equal(t, tt.want, got, "%q", tt.q)
	}
}

// A query with nothing to look for is refused as an invalid "q".
func TestParseSearchRefused(t *testing.T) {
	t.Parallel()
	for _, q := range []string{
		"",
		"   ",
		"\t\n",
		"?!,.",
		`""`,
		`" "`,
		"-",
		"OR",
		"OR OR",
		"-coffee",
		`-"coffee prices"`,
		"-coffee -tea",
		"a OR -b",
		"-a OR b",
		"a OR -b OR c",
		strings.Repeat("a", 501),
		strings.Repeat("é", 251), // 502 bytes, 251 runes
		"coffee " + strings.Repeat(" ", 494),
	} {
		s, err := seedengine.ParseSearch(q)
		require.Error(t, err, "%q parsed as %+v", q, s)
		require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err), "%q: %v", q, err)
		require.Equal(t, "q", seedengine.ErrorField(err), "%q: %v", q, err)
		require.Empty(t, s.Any, "%q", q)
	}
}
