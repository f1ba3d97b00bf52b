package seedengine

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Full-text search (GET /api/v1/articles?q=) takes one syntax on both
// engines, a web search's; ParseSearch reads it and sqlstore writes what
// it read in each engine's own language (an FTS5 query, a tsquery):
//
//	word word     both words (AND)
//	"a phrase"    the words next to each other, in order
//	a OR b        either side (AND binds tighter: a b OR c is (a b) OR c);
//	              OR in capitals, "or" is a word
//	-word         not the word; -"a phrase" not the phrase
//
// Case, accents and punctuation are ignored: words are SearchWords' (as
// SQLite's unicode61 tokenizer splits them; PostgreSQL indexes the text
// so split); there is no stemming.

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
	r := []rune(norm.NFC.String(q))
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
		words := SearchWords(raw)
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

// SearchWords splits text into the words search indexes and looks for:
// runs of letters and digits (a letter's accents with it), lower case,
// composed (NFC). "State-owned U.S. firms" is state, owned, u, s, firms,
// as SQLite's unicode61 tokenizer splits it; PostgreSQL indexes the
// words so split, so both engines find the same.
func SearchWords(text string) []string {
	return strings.FieldsFunc(norm.NFC.String(strings.ToLower(text)), func(c rune) bool {
		return !unicode.IsLetter(c) && !unicode.IsDigit(c) && !unicode.Is(unicode.Mn, c)
	})
}
