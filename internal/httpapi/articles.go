package httpapi

import (
	"context"
	"reflect"
	"regexp"

	"github.com/danielgtaylor/huma/v2"

	"github.com/seedengine/seedengine"
)

// Articles: each stored page read as an article (internal/article),
// followed by cursor, searched, and exported as NDJSON.

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

// registerArticleExport documents the streamed answer: articles as NDJSON.
func (s *Server) registerArticleExport(api huma.API, op huma.Operation) {
	op.Responses = map[string]*huma.Response{"200": {
		Description: "The articles, one JSON object per line in id order (NDJSON), gzip-compressed when asked.",
		Content: map[string]*huma.MediaType{"application/x-ndjson": {
			Schema: api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[seedengine.Article](), true, ""),
		}},
	}}
	huma.Register(api, op, s.handleArticleExport)
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
