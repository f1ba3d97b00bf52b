package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/seedengine/seedengine/internal/article"
)

const extractSummary = `Print the article of one HTML page as one JSON object.

FILE is an HTML page, or - for standard input. The page is decoded from the
charset it declares (UTF-8 when it declares none). The article's body is in
"text", with a blank line between paragraphs; the other fields have the names
the API uses, and "methods" says where each came from (json_ld, microdata,
opengraph, meta, generic, url, text). A page that is not an article has
"not_article" set to why. Input that is not HTML exits with status 2.`

func runExtract(_ context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var pageURL string
	_, rest, err := parseCommand("extract", extractSummary, 0, args, getenv, stdout, func(fs *flag.FlagSet) {
		fs.StringVar(&pageURL, "url", "", "the URL the page was fetched from: links resolve against it")
	})
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usageError{errors.New("extract: exactly one FILE (or - for standard input) is required")}
	}
	in := io.Reader(os.Stdin)
	if rest[0] != "-" {
		f, err := os.Open(rest[0])
		if err != nil {
			return usageError{fmt.Errorf("extract: %w", err)}
		}
		defer f.Close()
		in = f
	}
	a, err := article.Extract(in, "", pageURL)
	if errors.Is(err, article.ErrNotHTML) {
		return usageError{fmt.Errorf("extract: %s: %w", rest[0], err)}
	}
	if err != nil {
		return usageError{fmt.Errorf("extract: %w", err)}
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(a)
}
