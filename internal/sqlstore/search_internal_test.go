package sqlstore

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

// fts5Query writes each term as a quoted phrase, the required ones joined
// by AND, then NOT each excluded one, each alternative in parentheses
// joined by OR: what websearch_to_tsquery makes of the same query.
func TestFTS5Query(t *testing.T) {
	t.Parallel()
	tests := []struct{ q, want string }{
		{"coffee", `("coffee")`},
		{"Coffee PRICES", `("coffee" AND "prices")`},
		{"Café ÜBER", `("café" AND "über")`},
		{"coffee, prices!", `("coffee" AND "prices")`},
		{"state-owned", `("state owned")`},
		{"U.S.", `("u s")`},
		{`"coffee prices"`, `("coffee prices")`},
		{`"coffee prices" rise`, `("coffee prices" AND "rise")`},
		{`"unclosed phrase`, `("unclosed phrase")`},
		// FTS5's own operators and syntax are words inside quotes.
		{`"a OR b"`, `("a or b")`},
		{"NEAR AND NOT", `("near" AND "and" AND "not")`},
		{"title:coffee", `("title coffee")`},
		{"coffee*", `("coffee")`},
		{"^coffee +tea", `("coffee" AND "tea")`},
		{"tea OR coffee", `("tea") OR ("coffee")`},
		{"a b OR c", `("a" AND "b") OR ("c")`},
		{"a OR b OR c", `("a") OR ("b") OR ("c")`},
		{`"a b" OR "c d"`, `("a b") OR ("c d")`},
		{"cats or dogs", `("cats" AND "or" AND "dogs")`},
		{"coffee -tea", `("coffee" NOT "tea")`},
		// Exclusions come after the required terms whatever their place.
		{"-tea coffee", `("coffee" NOT "tea")`},
		{"-tea coffee -harbour prices", `("coffee" AND "prices" NOT "tea" NOT "harbour")`},
		{`coffee -"tea prices"`, `("coffee" NOT "tea prices")`},
		{`"coffee prices" -harbour`, `("coffee prices" NOT "harbour")`},
		{"a OR b -c", `("a") OR ("b" NOT "c")`},
		{"a -b OR c", `("a" NOT "b") OR ("c")`},
	}
	for _, tt := range tests {
		s, err := seedengine.ParseSearch(tt.q)
		require.NoError(t, err, "%q", tt.q)
		require.Equal(t, tt.want, fts5Query(s), "%q", tt.q)
	}
}
