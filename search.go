package seedengine

import (
	"strings"
	"unicode"
)

// Full-text search (GET /api/v1/articles?q=) takes one syntax on both
// engines, web search's (PostgreSQL's websearch_to_tsquery, which
// PostgreSQL runs as given; sqlstore writes it as an FTS5 query for
// SQLite):
//
//	word word     both words (AND)
//	"a phrase"    the words next to each other, in order
//	a OR b        either side (AND binds tighter: a b OR c is (a b) OR c)
//	-word         not the word; -"a phrase" not the phrase
//
// Case and punctuation are ignored; there is no stemming (both engines
// index words as written: FTS5's unicode61, PostgreSQL's simple).

// maxSearchLen bounds a query's length.
const maxSearchLen = 500

// Search is a parsed query: alternatives, each of terms all of which
// must hold.
type Search struct {
	Any [][]SearchTerm
}

// SearchTerm is a word or phrase, required or excluded.
type SearchTerm struct {
	Words []string
	Not   bool
}

// ParseSearch parses q, EINVALID on field "q" when it finds nothing to
// look for: empty, only exclusions on a side of OR, or too long.
func ParseSearch(q string) (Search, error) {
	if len(q) > maxSearchLen {
		return Search{}, FieldErrorf("q", "q must be at most %d bytes", maxSearchLen)
	}
	var s Search
	var cur []SearchTerm
	end := func() error {
		pos := 0
		for _, t := range cur {
			if !t.Not {
				pos++
			}
		}
		if pos == 0 {
			if len(cur) > 0 {
				return FieldErrorf("q", "q must look for a word beside those it excludes (-word)")
			}
			return nil
		}
		s.Any = append(s.Any, cur)
		cur = nil
		return nil
	}
	r := []rune(q)
	for i := 0; i < len(r); {
		if unicode.IsSpace(r[i]) {
			i++
			continue
		}
		not := false
		if r[i] == '-' {
			not = true
			i++
		}
		var raw string
		if i < len(r) && r[i] == '"' {
			j := i + 1
			for j < len(r) && r[j] != '"' {
				j++
			}
			raw = string(r[i+1 : j])
			i = min(j+1, len(r))
		} else {
			j := i
			for j < len(r) && !unicode.IsSpace(r[j]) {
				j++
			}
			raw = string(r[i:j])
			i = j
			if raw == "OR" && !not {
				if err := end(); err != nil {
					return Search{}, err
				}
				continue
			}
		}
		words := strings.FieldsFunc(strings.ToLower(raw), func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) })
		if len(words) > 0 {
			cur = append(cur, SearchTerm{Words: words, Not: not})
		}
	}
	if err := end(); err != nil {
		return Search{}, err
	}
	if len(s.Any) == 0 {
		return Search{}, FieldErrorf("q", "q has no word to look for")
	}
	return s, nil
}
