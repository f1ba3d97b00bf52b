package sqlstore

import (
	"strings"

	"github.com/seedengine/seedengine"
)

// fts5Query writes a search (seedengine.ParseSearch) in SQLite FTS5's
// syntax: each term a quoted phrase, required ones joined by AND, then
// NOT each excluded one, the alternatives joined by OR (FTS5 binds NOT,
// then AND, then OR, as websearch_to_tsquery's & and | bind).
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
