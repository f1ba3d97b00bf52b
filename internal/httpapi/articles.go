package httpapi

import (
	"context"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/layout"
)

// Articles: each stored page read as an article (internal/article),
// followed by cursor, searched, exported as NDJSON, and stored as files
// per partition (JSON Lines, and Parquet once the day is over).

// articleFilterInput is the filter of the article routes (huma reads the
// parameters of named fields only: each route's input repeats them).
type articleFilterInput struct {
	Country, Category, Date, SeedID, Language, Query string
	NotArticles                                      bool
	Since                                            int64
}

var languageCode = regexp.MustCompile(`^[a-z]{2,3}$`)

// filter validates the filters, naming the parameter of a bad one.
func (in *articleFilterInput) filter() (seedengine.ArticleFilter, error) {
	items, err := (&itemFilterInput{Country: in.Country, Category: in.Category, Date: in.Date, SeedID: in.SeedID}).filter()
	if err != nil {
		return seedengine.ArticleFilter{}, err
	}
	f := seedengine.ArticleFilter{Country: items.Country, Category: items.Category, Date: items.Date, SeedID: items.SeedID,
		Language: in.Language, Query: in.Query, NotArticles: in.NotArticles, Since: in.Since}
	if f.Language != "" && !languageCode.MatchString(f.Language) {
		return f, &locatedError{loc: "query", err: seedengine.FieldErrorf("language", "language must be an ISO 639 code in lower case, like en")}
	}
	if f.Query != "" {
		if _, err := seedengine.ParseSearch(f.Query); err != nil {
			return f, &locatedError{loc: "query", err: err}
		}
	}
	return f, nil
}

type articleListInput struct {
	Country     string `query:"country" maxLength:"8" doc:"Only this country (any case)." example:"sg"`
	Category    string `query:"category" maxLength:"40" doc:"Only this category." example:"news"`
	Date        string `query:"date" maxLength:"10" doc:"Only articles of items first seen on this UTC day, YYYY-MM-DD."`
	SeedID      string `query:"seed_id" maxLength:"400" doc:"Only this seed's articles."`
	Language    string `query:"language" maxLength:"3" doc:"Only articles in this language (ISO 639-1, as the article's language field)." example:"en"`
	Query       string `query:"q" maxLength:"500" doc:"Full-text search over title and text: words (all must be there), \"a phrase\", a OR b, -word to exclude. No stemming; case and accents ignored. See docs/articles.md." example:"election results"`
	NotArticles bool   `query:"not_articles" default:"false" doc:"Include the pages that are not articles (their not_article field says why)."`
	Since       int64  `query:"since" minimum:"0" default:"0" doc:"Only articles with an id above this: the cursor. Start at 0, then pass next_since."`
	Limit       int    `query:"limit" default:"50" minimum:"1" maximum:"200" doc:"Page size."`
}

func (in *articleListInput) filter() (seedengine.ArticleFilter, error) {
	return (&articleFilterInput{in.Country, in.Category, in.Date, in.SeedID, in.Language, in.Query, in.NotArticles, in.Since}).filter()
}

type articleList struct {
	Articles  []seedengine.Article `json:"articles"`
	Limit     int                  `json:"limit"`
	Since     int64                `json:"since"`
	NextSince int64                `json:"next_since" doc:"The cursor of the next page: the last article's id, or since when the page is empty. Polling with it gets every article once, in id order, with no gaps."`
}

type articleListOutput struct{ Body articleList }

func (s *Server) handleArticleList(ctx context.Context, in *articleListInput) (*articleListOutput, error) {
	if s.deps.Articles == nil {
		return nil, unavailable("articles")
	}
	f, err := in.filter()
	if err != nil {
		return nil, err
	}
	f.Limit = in.Limit
	articles, err := s.deps.Articles.FindArticles(ctx, f)
	if err != nil {
		return nil, err
	}
	out := articleList{Articles: articles, Limit: in.Limit, Since: in.Since, NextSince: in.Since}
	if len(articles) > 0 {
		out.NextSince = articles[len(articles)-1].ID
	}
	return &articleListOutput{Body: out}, nil
}

type articleExportInput struct {
	Country        string `query:"country" maxLength:"8" doc:"Only this country (any case)." example:"sg"`
	Category       string `query:"category" maxLength:"40" doc:"Only this category." example:"news"`
	Date           string `query:"date" maxLength:"10" doc:"Only articles of items first seen on this UTC day, YYYY-MM-DD."`
	SeedID         string `query:"seed_id" maxLength:"400" doc:"Only this seed's articles."`
	Language       string `query:"language" maxLength:"3" doc:"Only articles in this language." example:"en"`
	Query          string `query:"q" maxLength:"500" doc:"Full-text search over title and text, as GET /api/v1/articles."`
	NotArticles    bool   `query:"not_articles" default:"false" doc:"Include the pages that are not articles."`
	Since          int64  `query:"since" minimum:"0" default:"0" doc:"Only articles with an id above this."`
	Gzip           bool   `query:"gzip" default:"false" doc:"Compress the stream with gzip (also when the request accepts gzip)."`
	AcceptEncoding string `header:"Accept-Encoding"`
}

func (s *Server) handleArticleExport(ctx context.Context, in *articleExportInput) (*itemExportOutput, error) {
	if s.deps.Articles == nil {
		return nil, unavailable("articles")
	}
	f, err := (&articleFilterInput{in.Country, in.Category, in.Date, in.SeedID, in.Language, in.Query, in.NotArticles, in.Since}).filter()
	if err != nil {
		return nil, err
	}
	f.Limit = seedengine.MaxArticlesPage
	// The first page is read before the status is sent, so a store that
	// is down answers 503 rather than an empty 200.
	first, err := s.deps.Articles.FindArticles(ctx, f)
	if err != nil {
		return nil, err
	}
	out := &itemExportOutput{ContentType: "application/x-ndjson", Vary: "Accept-Encoding"}
	zip := in.Gzip || acceptsGzip(in.AcceptEncoding)
	if zip {
		out.ContentEncoding = "gzip"
	}
	out.Body = s.streamed(ctx, "stream articles", zip, ndjsonPages(first, f.Limit, func(last *seedengine.Article) ([]seedengine.Article, error) {
		f.Since = last.ID
		return s.deps.Articles.FindArticles(ctx, f)
	}))
	return out, nil
}

type itemArticleOutput struct{ Body *seedengine.Article }

func (s *Server) handleItemArticle(ctx context.Context, in *itemPageInput) (*itemArticleOutput, error) {
	if s.deps.Articles == nil {
		return nil, unavailable("articles")
	}
	a, err := s.deps.Articles.FindItemArticle(ctx, in.ItemID)
	if err != nil {
		return nil, err
	}
	return &itemArticleOutput{Body: a}, nil
}

type articleFileList struct {
	seedengine.Partition
	Items []seedengine.ArticleFile `json:"items" doc:"The partition's JSON Lines files in file order, then its Parquet file once one is written."`
}

type articleFileListOutput struct{ Body articleFileList }

func (s *Server) handleArticleFiles(ctx context.Context, in *itemPartitionInput) (*articleFileListOutput, error) {
	if s.deps.Articles == nil {
		return nil, unavailable("articles")
	}
	p, files, err := s.articleFiles(ctx, in.Country, in.Category, in.Date)
	if err != nil {
		return nil, err
	}
	return &articleFileListOutput{Body: articleFileList{Partition: p, Items: files}}, nil
}

// articleFiles lists a partition's article files, named by their keys.
func (s *Server) articleFiles(ctx context.Context, country, category, date string) (seedengine.Partition, []seedengine.ArticleFile, error) {
	p, files, err := partitionFiles(ctx, country, category, date, s.deps.Articles.FindArticleFiles)
	if err != nil {
		return p, nil, err
	}
	for i := range files {
		if files[i].Format == seedengine.ArticleFileParquet {
			files[i].Key, err = layout.ArticleParquetKey(p)
		} else {
			files[i].Key, err = layout.ArticleFileKey(p, files[i].File)
		}
		if err != nil {
			return p, nil, err
		}
		files[i].Name = path.Base(files[i].Key)
	}
	return p, files, nil
}

type articleFileInput struct {
	Country  string `path:"country" maxLength:"8" doc:"ISO 3166-1 alpha-2 code or intl, any case." example:"sg"`
	Category string `path:"category" maxLength:"40" doc:"Category slug." example:"news"`
	Date     string `path:"date" maxLength:"10" doc:"The UTC day the articles' items were first seen, YYYY-MM-DD." example:"2026-11-27"`
	File     string `path:"file" maxLength:"32" doc:"A file's name as listed (articles_0001.jsonl, articles.parquet); a JSON Lines file also without .jsonl or by its number." example:"articles_0001.jsonl"`
}

func (s *Server) handleArticleFileGet(ctx context.Context, in *articleFileInput) (*fileOutput, error) {
	if s.deps.Articles == nil || s.deps.Objects == nil {
		return nil, unavailable("articles")
	}
	p, files, err := s.articleFiles(ctx, in.Country, in.Category, in.Date)
	if err != nil {
		return nil, err
	}
	f, err := writtenFile(files, "article file", func(f *seedengine.ArticleFile) bool {
		return f.Written && (in.File == f.Name || f.Format == seedengine.ArticleFileJSONL &&
			(in.File == strings.TrimSuffix(f.Name, ".jsonl") || in.File == strconv.Itoa(f.File)))
	})
	if err != nil {
		return nil, err
	}
	sf := storedFile{key: f.Key, contentType: "application/x-ndjson", what: "article file"}
	if f.WrittenAt != nil {
		sf.written = *f.WrittenAt
	}
	if f.Format == seedengine.ArticleFileParquet {
		// Saved under a name that says which partition it holds.
		sf.contentType, sf.filename = parquetType, p.Country+"-"+p.Category+"-"+p.Date+"-"+f.Name
	}
	return s.sendFile(ctx, sf)
}

// parquetType is the media type of a Parquet file (IANA, 2024).
const parquetType = "application/vnd.apache.parquet"

// articleFileContent documents an article file: NDJSON articles or
// Parquet.
func articleFileContent(api huma.API) map[string]*huma.MediaType {
	content := ndjsonOf[seedengine.Article](api)
	content[parquetType] = &huma.MediaType{Schema: &huma.Schema{Type: huma.TypeString, Description: "The Parquet file: one row per article, the columns of docs/articles.md."}}
	return content
}
