package article

import (
	"unicode/utf8"

	"github.com/RadhiFadlillah/whatlanggo"
)

// detectLanguage guesses the ISO 639-1 language of a text from its
// trigrams (whatlanggo, which go-trafilatura uses too); "" when the guess
// is not reliable. Only the first 2,000 bytes are read: enough for a
// guess, and the cost stays flat however long the article.
func detectLanguage(text string) string {
	if len(text) > 2000 {
		n := 2000
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		text = text[:n]
	}
	info := whatlanggo.Detect(text)
	if !info.IsReliable() {
		return ""
	}
	return info.Lang.Iso6391()
}
