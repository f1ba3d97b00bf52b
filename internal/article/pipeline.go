package article

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/pages"
)

// Pages is what extraction reads pages by; sqlstore.PageService is one.
type Pages interface {
	FindPage(ctx context.Context, itemID int64) (*seedengine.Page, error)
	pages.OriginalFinder
}

// Articles is where extraction records articles; sqlstore.ArticleService
// is one.
type Articles interface {
	HasArticle(ctx context.Context, itemID int64) (bool, error)
	RecordArticle(ctx context.Context, a *seedengine.Article, copies seedengine.CopyKey) (bool, error)
}

// Extractor makes a stored page's article: the article_extract job's
// work.
type Extractor struct {
	pages    Pages
	articles Articles
	ranges   seedengine.ObjectRangeReader
	log      *slog.Logger
	now      func() time.Time
}

// NewExtractor returns an Extractor reading pages' records through
// ranges.
func NewExtractor(p Pages, a Articles, ranges seedengine.ObjectRangeReader, log *slog.Logger) *Extractor {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Extractor{pages: p, articles: a, ranges: ranges, log: log, now: time.Now}
}

// ExtractArticle reads item itemID's stored page back from its WARC
// record and records its article, once: a second run finds it recorded
// and does nothing. A page that is not an article is recorded as such,
// with its reason (not HTML, no text, too short, a video page), as is a
// record that cannot be read for good. An item with no stored page has
// nothing to extract. Other errors (the object store, the database) are
// returned, for the job to try again.
func (e *Extractor) ExtractArticle(ctx context.Context, itemID int64) error {
	done, err := e.articles.HasArticle(ctx, itemID)
	if err != nil || done {
		return err
	}
	p, err := e.pages.FindPage(ctx, itemID)
	if seedengine.ErrorCode(err) == seedengine.ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	if p.State != seedengine.PageStored {
		return nil
	}
	a := &seedengine.Article{ItemID: itemID, SeedID: p.SeedID, Country: p.Partition.Country, Category: p.Partition.Category,
		Date: p.Partition.Date}
	pageURL := p.URL
	if p.FinalURL != "" {
		pageURL = p.FinalURL
	}
	sp, err := pages.ReadStored(ctx, e.ranges, e.pages, p)
	switch {
	case errors.Is(err, pages.ErrUnreadable) || seedengine.ErrorCode(err) == seedengine.ETOOLARGE:
		// For good: a damaged record, one too large. A WARC file or a
		// revisit's original not found is retried instead: a store
		// misconfigured for a while must not mark every page unreadable.
		e.log.Error("a stored page cannot be read back", "event", "article_unreadable", "item_id", itemID, "err", err)
		a.URL, a.NotArticle = pageURL, seedengine.NotArticleUnreadable
	case err != nil:
		return fmt.Errorf("read item %d's page: %w", itemID, err)
	default:
		fields, err := Extract(bytes.NewReader(sp.Body), sp.ContentType, pageURL)
		if err != nil && !errors.Is(err, ErrNotHTML) {
			// A page URL that is no absolute URL resolves nothing.
			fields, err = Extract(bytes.NewReader(sp.Body), sp.ContentType, "")
		}
		switch {
		case errors.Is(err, ErrNotHTML):
			a.URL, a.NotArticle = pageURL, seedengine.NotArticleHTML
		case err != nil:
			return fmt.Errorf("extract item %d's article: %w", itemID, err)
		default:
			a.ArticleFields = *fields
			if a.URL == "" {
				a.URL = pageURL
			}
		}
	}
	if a.Methods == nil {
		a.Methods = map[string]string{}
	}
	a.ExtractedAt = e.now().UTC().Truncate(time.Microsecond)
	var copies seedengine.CopyKey
	if a.NotArticle == "" {
		copies = CopyKeyOf(a.Text)
	}
	recorded, err := e.articles.RecordArticle(ctx, a, copies)
	if err != nil || !recorded {
		return err
	}
	e.log.Debug("article extracted", "event", "article_extracted", "item_id", itemID, "article_id", a.ID,
		"words", a.WordCount, "not_article", a.NotArticle, "duplicate_of", a.DuplicateOf)
	return nil
}
