package sqlstore

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/seedengine/seedengine"
)

// fts5Query writes a search (seedengine.ParseSearch) in SQLite FTS5's
// syntax: each term a quoted phrase, required ones joined by AND, then
// NOT each excluded one, the alternatives joined by OR (FTS5 binds NOT,
// then AND, then OR, as tsquery's !, & and | bind).
func fts5Query(s seedengine.Search) string {
	var b strings.Builder
	for i, alt := range s.Any {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteByte('(')
		n := 0
		for _, t := range alt {
			if !t.Not {
				if n > 0 {
					b.WriteString(" AND ")
				}
				n++
				b.WriteString(`"` + strings.Join(t.Words, " ") + `"`)
			}
		}
		for _, t := range alt {
			if t.Not {
				b.WriteString(` NOT "` + strings.Join(t.Words, " ") + `"`)
			}
		}
		b.WriteByte(')')
	}
	return b.String()
}

// tsQuery writes a search in PostgreSQL's tsquery syntax, for
// to_tsquery('simple', …): each word a quoted lexeme, accents taken off
// as the index has them, a phrase's words joined by <-> (next to each
// other), excluded terms under !, required ones joined by &, the
// alternatives by |. The words are letters and digits only
// (seedengine.SearchWords), so none needs escaping.
func tsQuery(s seedengine.Search) string {
	term := func(t seedengine.SearchTerm) string {
		ws := make([]string, len(t.Words))
		for i, w := range t.Words {
			ws[i] = "'" + foldAccents(w) + "'"
		}
		out := strings.Join(ws, " <-> ")
		if len(ws) > 1 {
			out = "(" + out + ")"
		}
		if t.Not {
			out = "!" + out
		}
		return out
	}
	alts := make([]string, len(s.Any))
	for i, alt := range s.Any {
		terms := make([]string, len(alt))
		for k, t := range alt {
			terms[k] = term(t)
		}
		alts[i] = "(" + strings.Join(terms, " & ") + ")"
	}
	return strings.Join(alts, " | ")
}

// articleSearchText is text as PostgreSQL indexes it: its search words
// (seedengine.SearchWords), accents taken off, one space between, so
// that its parser finds the words SQLite's tokenizer finds.
func articleSearchText(text string) string {
	return foldAccents(strings.Join(seedengine.SearchWords(text), " "))
}

// foldAccents takes the diacritics off s's letters ("São" is "Sao"), as
// SQLite's unicode61 tokenizer does with remove_diacritics 2: PostgreSQL
// indexes and searches the folded text, so that a search matches the same
// words on both engines (its unaccent extension would need installing).
func foldAccents(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return norm.NFC.String(b.String())
}
