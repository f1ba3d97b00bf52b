package sqlstore_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/article"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/harvest"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// articleWorld is a store with what articles hang on: seeds, their items
// (an article references its item) and the items' pages.
type articleWorld struct {
	db       *sqlstore.DB
	seeds    *sqlstore.SeedService
	items    *sqlstore.ItemService
	pages    *sqlstore.PageService
	articles *sqlstore.ArticleService
	nextURL  int // items' URLs are unique across seeds
	stored   int // WARC files stored
}

func newArticleWorld(db *sqlstore.DB) *articleWorld {
	return &articleWorld{db: db, seeds: sqlstore.NewSeedService(db), items: sqlstore.NewItemService(db),
		pages: sqlstore.NewPageService(db), articles: sqlstore.NewArticleService(db)}
}

// newItems records n new items of a new seed of domainID in category
// (whose pages are queued when pages is set), first seen at at, and
// returns them in ID order.
func (w *articleWorld) newItems(t *testing.T, domainID, category string, pages bool, at time.Time, n int) []seedengine.Item {
	t.Helper()
	sd := newSeed(domainID)
	sd.Category = category
	sd.Harvest.Pages = pages
	require.NoError(t, w.seeds.CreateSeed(t.Context(), sd, "test"))
	return w.moreItems(t, sd, at, n)
}

// moreItems records n new items of seed sd first seen at at.
func (w *articleWorld) moreItems(t *testing.T, sd *seedengine.Seed, at time.Time, n int) []seedengine.Item {
	t.Helper()
	c, err := recordRead(t, w.seeds, sd, at, harvestItems(sd, at, w.nextURL, n), false, nil)
	require.NoError(t, err)
	require.Equal(t, n, c.Harvested)
	w.nextURL += n
	var out []seedengine.Item
	var since int64
	for {
		page, err := w.items.FindItems(t.Context(), seedengine.ItemFilter{SeedID: sd.SeedID, Since: since, Limit: 100})
		require.NoError(t, err)
		if len(page) == 0 {
			break
		}
		for _, it := range page {
			if it.Source.CheckID == c.ID {
				out = append(out, it)
			}
		}
		since = page[len(page)-1].ID
	}
	require.Len(t, out, n)
	return out
}

// storePages fetches the queued pages of items into a spool and stores
// the spool as a WARC file: the pages become stored.
func (w *articleWorld) storePages(t *testing.T, items []seedengine.Item) {
	t.Helper()
	ctx := t.Context()
	w.stored++
	spool := fmt.Sprintf("spool-%d", w.stored)
	at := time.Date(2026, 11, 1, 18, 0, 0, 0, time.UTC)
	for i, it := range items {
		p, err := w.pages.FindPage(ctx, it.ID)
		require.NoError(t, err)
		p.Spool, p.SpoolOffset, p.SpoolLength, p.Status, p.FetchedAt = spool, int64(100*i), 100, 200, &at
		ok, err := w.pages.MarkPageFetched(ctx, p)
		require.NoError(t, err)
		require.True(t, ok)
	}
	part := items[0].Partition()
	name := fmt.Sprintf("seedengine-test-%d.warc.gz", w.stored)
	key, err := layout.WARCFileKey(part, name)
	require.NoError(t, err)
	n, err := w.pages.StoreWARCFile(ctx, seedengine.WARCFile{Partition: part, Name: name, Key: key,
		Records: len(items), Bytes: int64(100 * len(items)), StoredAt: at}, spool, nil)
	require.NoError(t, err)
	require.Equal(t, len(items), n)
}

// newArticle is item it's article, titled title, of text.
func newArticle(it seedengine.Item, title, text string) *seedengine.Article {
	p := it.Partition()
	return &seedengine.Article{ItemID: it.ID, SeedID: it.SeedID, Country: p.Country, Category: p.Category, Date: p.Date,
		ArticleFields: seedengine.ArticleFields{URL: it.URL, Title: title, Text: text, WordCount: len(strings.Fields(text)),
			Language: "en", Methods: map[string]string{"title": "json_ld", "text": "generic"}},
		ExtractedAt: it.FirstSeenAt.Add(2 * time.Hour).UTC()}
}

// notArticle is item it's page read as no article, for reason.
func notArticle(it seedengine.Item, reason, title, text string) *seedengine.Article {
	a := newArticle(it, title, text)
	a.NotArticle = reason
	return a
}

// keyOf is a signature's copy key, as internal/article makes it.
func keyOf(sig article.Signature) seedengine.CopyKey {
	bands := sig.BandKeys()
	return seedengine.CopyKey{Signature: sig.Bytes(), Bands: bands[:], Same: article.SameText}
}

// record records a with its copy key as the article_extract job does.
func (w *articleWorld) record(t *testing.T, a *seedengine.Article, key seedengine.CopyKey) bool {
	t.Helper()
	ok, err := w.articles.RecordArticle(t.Context(), a, key)
	require.NoError(t, err)
	return ok
}

// recordText records a with its text's copy key (none for a page that is
// not an article).
func (w *articleWorld) recordText(t *testing.T, a *seedengine.Article) {
	t.Helper()
	var key seedengine.CopyKey
	if a.NotArticle == "" {
		key = article.CopyKeyOf(a.Text)
	}
	require.True(t, w.record(t, a, key), "item %d", a.ItemID)
}

// requireSameArticle compares articles as they are kept and served: JSON.
func requireSameArticle(t *testing.T, want, got *seedengine.Article) {
	t.Helper()
	wj, err := json.Marshal(want)
	require.NoError(t, err)
	gj, err := json.Marshal(got)
	require.NoError(t, err)
	require.JSONEq(t, string(wj), string(gj))
}

func articleIDs(as []seedengine.Article) []int64 {
	out := []int64{}
	for _, a := range as {
		out = append(out, a.ID)
	}
	return out
}

// An item's article is recorded once, ids in record order; the stats count
// articles, pages that are not, copies, and stored pages still waiting for
// theirs.
func TestArticleRecordOnce(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		w := newArticleWorld(db)
		day := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
		items := w.newItems(t, "media:sg:straitstimes.com", "news", true, day, 5)
		// Four of the five pages are stored; the fifth still waits for its
		// fetch.
		w.storePages(t, items[:4])

		st, err := w.articles.ArticleStats(ctx)
		require.NoError(t, err)
		require.Equal(t, seedengine.ArticleStats{Pending: 4}, st)
		_, err = w.articles.FindItemArticle(ctx, items[0].ID)
		require.Equal(t, seedengine.ENOTFOUND, seedengine.ErrorCode(err), "%v", err)
		has, err := w.articles.HasArticle(ctx, items[0].ID)
		require.NoError(t, err)
		require.False(t, has)

		published := time.Date(2026, 11, 1, 16, 30, 0, 0, time.FixedZone("SGT", 8*3600))
		text := "Coffee prices rose sharply on Monday as the importer raised its rates for the third time this year."
		a := newArticle(items[0], "Coffee prices rise", text)
		a.Authors, a.PublishedAt, a.SiteName, a.Section = []string{"Jane Tan"}, &published, "The Straits Times", "Business"
		require.True(t, w.record(t, a, article.CopyKeyOf(text)))
		require.Positive(t, a.ID)
		require.Zero(t, a.DuplicateOf)
		got, err := w.articles.FindItemArticle(ctx, items[0].ID)
		require.NoError(t, err)
		requireSameArticle(t, a, got)
		require.Equal(t, a.ID, got.ID)
		require.True(t, got.PublishedAt.Equal(published))
		has, err = w.articles.HasArticle(ctx, items[0].ID)
		require.NoError(t, err)
		require.True(t, has)

		// The job run again: nothing changes, not even with another text.
		again := newArticle(items[0], "Another title", "Another text altogether, which would not be a copy.")
		require.False(t, w.record(t, again, article.CopyKeyOf(again.Text)))
		require.Zero(t, again.ID, "a second record gets no id")
		got, err = w.articles.FindItemArticle(ctx, items[0].ID)
		require.NoError(t, err)
		requireSameArticle(t, a, got)
		all, err := w.articles.FindArticles(ctx, seedengine.ArticleFilter{NotArticles: true, Limit: 10})
		require.NoError(t, err)
		require.Equal(t, []int64{a.ID}, articleIDs(all))
		st, err = w.articles.ArticleStats(ctx)
		require.NoError(t, err)
		require.Equal(t, seedengine.ArticleStats{Articles: 1, Pending: 3}, st)

		// A page that is not an article, a copy of the first, another story.
		no := notArticle(items[1], seedengine.NotArticleHTML, "", "")
		require.True(t, w.record(t, no, seedengine.CopyKey{}))
		copyOf := newArticle(items[2], "Coffee prices rise again", text)
		require.True(t, w.record(t, copyOf, article.CopyKeyOf(text)))
		require.Equal(t, a.ID, copyOf.DuplicateOf)
		other := newArticle(items[3], "Harbour report", "Shipping volumes at the harbour fell as storms closed the strait for two days.")
		require.True(t, w.record(t, other, article.CopyKeyOf(other.Text)))
		require.Zero(t, other.DuplicateOf)
		ids := []int64{a.ID, no.ID, copyOf.ID, other.ID}
		for i := 1; i < len(ids); i++ {
			require.Greater(t, ids[i], ids[i-1], "ids ascend in record order: %v", ids)
		}
		for i, want := range []*seedengine.Article{a, no, copyOf, other} {
			got, err := w.articles.FindItemArticle(ctx, items[i].ID)
			require.NoError(t, err)
			requireSameArticle(t, want, got)
		}
		_, err = w.articles.FindItemArticle(ctx, items[4].ID)
		require.Equal(t, seedengine.ENOTFOUND, seedengine.ErrorCode(err), "%v", err)
		_, err = w.articles.FindItemArticle(ctx, 1<<40)
		require.Equal(t, seedengine.ENOTFOUND, seedengine.ErrorCode(err), "no such item: %v", err)

		st, err = w.articles.ArticleStats(ctx)
		require.NoError(t, err)
		require.Equal(t, seedengine.ArticleStats{Articles: 3, NotArticles: 1, Duplicates: 1, Pending: 0}, st)

		// The fifth page is stored: it waits for its article.
		w.storePages(t, items[4:])
		st, err = w.articles.ArticleStats(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, st.Pending)
	})
}

// A copy (signatures agreeing on at least CopySimilarity of their
// values) is a duplicate of the first article of its group, found through
// a shared band; a page that is not an article is neither a copy nor an
// original.
func TestArticleCopies(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		w := newArticleWorld(db)
		day := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
		items := w.newItems(t, "media:sg:straitstimes.com", "news", false, day, 9)

		h, ok := article.MinHash("The central bank held its benchmark rate steady on Tuesday, citing easing inflation and a firm currency.")
		require.True(t, ok)
		// change returns sig with the values at positions changed: bands
		// are BandRows values each, from the first.
		mask := uint32(0)
		change := func(sig article.Signature, from, to int) article.Signature {
			mask += 0x5eed5eed // each its own changes: no two changed alike
			for i := from; i < to; i++ {
				sig[i] ^= mask
			}
			return sig
		}
		rows := article.BandRows
		hB := change(h, 0, 5)        // 55 of 60 values of A's: a copy; bands 1… shared
		hC := change(h, 0, 3*rows)   // 42 of 60 (0.70): a copy, just
		hD := change(h, 0, 3*rows+1) // 41 of 60: no copy, though it shares bands 4…
		hE := change(hB, 6, 20)      // B's but 14 more: 46 of 60 of B's, 41 of A's
		sim := func(x, y article.Signature) float64 { return x.Similarity(&y) }
		require.GreaterOrEqual(t, sim(h, hB), article.CopySimilarity)
		require.GreaterOrEqual(t, sim(h, hC), article.CopySimilarity)
		require.Less(t, sim(h, hD), article.CopySimilarity)
		require.GreaterOrEqual(t, sim(hB, hE), article.CopySimilarity)
		require.Less(t, sim(h, hE), article.CopySimilarity)
		shares := func(x, y article.Signature) bool {
			bx, by := x.BandKeys(), y.BandKeys()
			for i := range bx {
				if bx[i] == by[i] {
					return true
				}
			}
			return false
		}
		require.True(t, shares(h, hD), "D is a candidate of A's")
		require.True(t, shares(hB, hE))

		rec := func(i int, sig article.Signature) *seedengine.Article {
			a := newArticle(items[i], fmt.Sprintf("Story %d", i), fmt.Sprintf("The text of story %d.", i))
			require.True(t, w.record(t, a, keyOf(sig)))
			return a
		}
		A := rec(0, h)
		require.Zero(t, A.DuplicateOf)
		B := rec(1, hB)
		require.Equal(t, A.ID, B.DuplicateOf, "55 of 60")
		C := rec(2, hC)
		require.Equal(t, A.ID, C.DuplicateOf, "42 of 60")
		D := rec(3, hD)
		require.Zero(t, D.DuplicateOf, "41 of 60, sharing bands")
		E := rec(4, hE)
		require.Equal(t, A.ID, E.DuplicateOf, "near B only, a copy of A: the group's first")

		// A page that is not an article with A's hash is no copy; one
		// recorded first with a fresh hash is no original of the article
		// that comes after it.
		g := change(h, 0, article.MinHashes)
		N := notArticle(items[5], "too_short", "Story 5", "Short.")
		require.True(t, w.record(t, N, keyOf(h)))
		require.Zero(t, N.DuplicateOf)
		M := notArticle(items[6], "not_article_type", "Story 6", "A gallery.")
		require.True(t, w.record(t, M, keyOf(g)))
		G := rec(7, g)
		require.Zero(t, G.DuplicateOf, "the page that is not an article is no original")
		G2 := rec(8, change(g, article.MinHashes-1, article.MinHashes))
		require.Equal(t, G.ID, G2.DuplicateOf)

		want := map[int64]int64{A.ID: 0, B.ID: A.ID, C.ID: A.ID, D.ID: 0, E.ID: A.ID, N.ID: 0, M.ID: 0, G.ID: 0, G2.ID: G.ID}
		for i, it := range items {
			got, err := w.articles.FindItemArticle(ctx, it.ID)
			require.NoError(t, err)
			require.Equal(t, want[got.ID], got.DuplicateOf, "item %d (article %d)", i, got.ID)
		}
		listed, err := w.articles.FindArticles(ctx, seedengine.ArticleFilter{NotArticles: true, Limit: 100})
		require.NoError(t, err)
		require.Len(t, listed, 9)
		for _, a := range listed {
			require.Equal(t, want[a.ID], a.DuplicateOf, "article %d", a.ID)
		}
		st, err := w.articles.ArticleStats(ctx)
		require.NoError(t, err)
		require.Equal(t, seedengine.ArticleStats{Articles: 7, NotArticles: 2, Duplicates: 4}, st)
	})
}

// searchCase is a query and the articles (by name) it finds: want on both
// engines, or sqlite and postgres where they differ (why says how).
type searchCase struct {
	q                string
	want             []string
	sqlite, postgres []string
	why              string
}

// The one search syntax gives the same answers on both engines; where an
// engine's tokenizer or query parser makes it answer otherwise, the case
// says what each engine does and why.
func TestArticleSearch(t *testing.T) {
	t.Parallel()
	const lorem = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " // 8 words, 57 bytes
	fixture := []struct{ name, title, text string }{
		{"cafe", "Café opens in Singapore", "A new café opened downtown on Monday. The owner said coffee prices would stay low."},
		{"coffee", "Coffee prices rise", "Coffee prices rose sharply as the state-owned importer raised its rates. Tea prices were flat."},
		{"harbour", "Harbour report", "Shipping volumes at the harbour fell. Analysts blamed the weather, not prices."},
		{"tea", "Tea ceremony", "The tea ceremony drew crowds; visitors drank tea and ate cake at the cafe."},
		{"zeppelin", "Zeppelin sighting", "Residents reported an airship over the bay on Sunday evening."},
		{"firms", "State owned firms", "Firms that are state owned face new rules, officials said."},
		{"vote", "ÉLECTION DAY", "Voters in the U.S. and abroad wrote to officials at www.example.gov; turnout rose 3.14 percent."},
		{"market", "Weekly market", "Update on shipping and tea exports."},
		{"pets", "Cats and dogs", "Cats or dogs: which pet suits a small flat?"},
		{"rescue", "Cats rescued", "Firefighters rescued two cats from a tree."},
		{"cities", "København and Zürich", "The mayors of São Paulo and Kraków met; a naïve plan, critics wrote."},
		// A long read: a phrase past its 16,383rd word, its last word past
		// its first 200,000 bytes.
		{"long", "Long read", strings.Repeat(lorem, 2500) + "A wombat burrow lies here. " + strings.Repeat(lorem, 1100) +
			"The last word is quokka."},
	}
	cases := []searchCase{
		{q: "coffee", want: []string{"cafe", "coffee"}},
		{q: "zeppelin", want: []string{"zeppelin"}, why: "a word only in a title"},
		{q: "harbour prices", want: []string{"harbour"}, why: "both words, apart"},
		{q: "shipping tea", want: []string{"market"}},
		{q: `"coffee prices"`, want: []string{"cafe", "coffee"}},
		{q: `"prices coffee"`, want: []string{}, why: "a phrase is in order"},
		{q: `"tea ceremony"`, want: []string{"tea"}},
		{q: `"ceremony tea"`, want: []string{}},
		{q: `"ceremony drew"`, want: []string{"tea"}},
		{q: `"ceremony crowds"`, want: []string{}, why: "a phrase is adjacent words"},
		{q: `"coffee prices`, want: []string{"cafe", "coffee"}, why: "an unclosed quote runs to the end"},
		{q: "tea OR harbour", want: []string{"coffee", "harbour", "tea", "market"}},
		{q: "zeppelin OR airship", want: []string{"zeppelin"}},
		{q: "coffee prices OR harbour", want: []string{"cafe", "coffee", "harbour"}},
		{q: "harbour OR coffee prices", want: []string{"cafe", "coffee", "harbour"}},
		{q: "tea -ceremony", want: []string{"coffee", "market"}},
		{q: "prices -coffee", want: []string{"harbour"}},
		{q: `"coffee prices" -tea`, want: []string{"cafe"}},
		{q: `tea -"tea ceremony"`, want: []string{"coffee", "market"}},
		{q: "coffee OR tea -ceremony", want: []string{"cafe", "coffee", "market"}},
		{q: "COFFEE Prices", want: []string{"cafe", "coffee"}},
		{q: `"Coffee PRICES"`, want: []string{"cafe", "coffee"}},
		{q: "Voters, abroad!", want: []string{"vote"}},
		{q: "élection", want: []string{"vote"}, why: "non-ASCII case folded"},
		{q: "ÉLECTION", want: []string{"vote"}},
		{q: "owned", want: []string{"coffee", "firms"}, why: "a hyphenated word's part"},
		{q: `"state owned"`, want: []string{"coffee", "firms"}},
		{q: "www.example.gov", want: []string{"vote"}},
		{q: "U.S.", want: []string{"vote"}},
		{q: "3.14", want: []string{"vote"}},
		{q: `"weekly market"`, want: []string{"market"}},
		{q: "cats dogs", want: []string{"pets"}},
		// Accents are taken off on both engines (FTS5's remove_diacritics 2;
		// sqlstore's foldAccents before PostgreSQL indexes).
		{q: "café", want: []string{"cafe", "tea"}},
		{q: "cafe", want: []string{"cafe", "tea"}},
		{q: "CAFÉ", want: []string{"cafe", "tea"}},
		{q: "election", want: []string{"vote"}},
		{q: "sao paulo", want: []string{"cities"}},
		{q: `"São Paulo"`, want: []string{"cities"}},
		{q: "zurich krakow naive", want: []string{"cities"}},
		{q: "Zürich", want: []string{"cities"}},
		{q: "København", want: []string{"cities"}},
		{q: "kobenhavn", want: []string{}, why: "ø is a letter of its own, not an o with an accent"},

		// What the engines' own tokenizers and parsers would answer
		// otherwise: the query is parsed once, and PostgreSQL indexes the
		// text split into the same words.
		{q: "Sa\u0303o", want: []string{"cities"}, why: "a query in decomposed form (NFD) is composed first"},
		{q: "state-owned", want: []string{"coffee", "firms"}, why: "a hyphenated word is its parts"},
		{q: `"the state"`, want: []string{"coffee"}, why: "the state-owned: the, state, owned, side by side"},
		{q: "u s", want: []string{"vote"}, why: "U.S. is u s"},
		{q: "example", want: []string{"vote"}, why: "a host name is its parts"},
		{q: "14", want: []string{"vote"}, why: "a decimal is its parts"},
		{q: "cats or dogs", want: []string{"pets"}, why: "or in lower case is a word"},
		{q: "OR harbour", want: []string{"harbour"}, why: "a leading OR is dropped"},
		{q: "harbour OR", want: []string{"harbour"}, why: "a trailing OR, as a leading one"},
		{q: "zeppelin OR OR harbour", want: []string{"harbour", "zeppelin"}},
		{q: `ceremony"drank tea"`, want: []string{}, why: "a quote inside a word: the phrase \"ceremony drank\" and tea"},

		// Where the engines still differ.
		{q: `"market update"`, sqlite: []string{}, postgres: []string{"market"},
			why: "PostgreSQL's title || text vector puts the title's last word next to the text's first; FTS5 columns are apart"},
		{q: "quokka", sqlite: []string{"long"}, postgres: []string{},
			why: "PostgreSQL indexes the first 200,000 bytes of the text; FTS5 all of it"},
		{q: "wombat burrow", want: []string{"long"}},
		{q: `"wombat burrow"`, sqlite: []string{"long"}, postgres: []string{},
			why: "a tsvector keeps positions up to 16,383: later words all sit at 16,383, so no phrase matches there"},
	}

	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		w := newArticleWorld(db)
		day := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
		items := w.newItems(t, "media:sg:straitstimes.com", "news", false, day, len(fixture)+1)
		ids := map[string]int64{}
		for i, f := range fixture {
			a := newArticle(items[i], f.title, f.text)
			w.recordText(t, a)
			ids[f.name] = a.ID
		}
		// A page that is not an article, which would match "coffee".
		table := notArticle(items[len(fixture)], "too_short", "Coffee prices table", "Coffee prices.")
		w.recordText(t, table)
		ids["table"] = table.ID

		find := func(f seedengine.ArticleFilter) []int64 {
			t.Helper()
			got, err := w.articles.FindArticles(ctx, f)
			require.NoError(t, err, "%q", f.Query)
			return articleIDs(got)
		}
		idsOf := func(names []string) []int64 {
			out := []int64{}
			for _, n := range names {
				id, ok := ids[n]
				require.True(t, ok, "no article %q", n)
				out = append(out, id)
			}
			slices.Sort(out) // in ID order, as FindArticles lists them
			return out
		}
		engine := db.Engine()
		for _, c := range cases {
			want := c.want
			if want == nil {
				want = c.sqlite
				if engine == sqlstore.EnginePostgres {
					want = c.postgres
				}
			}
			require.NotNil(t, want, "case %q has no answer", c.q)
			assert.Equal(t, idsOf(want), find(seedengine.ArticleFilter{Query: c.q, Limit: 200}), "%s: q=%q %s", engine, c.q, c.why)
		}

		// With the pages that are not articles, searched as well.
		withNot := find(seedengine.ArticleFilter{Query: "coffee", NotArticles: true, Limit: 200})
		assert.Equal(t, idsOf([]string{"cafe", "coffee", "table"}), withNot, "q=coffee with not-articles")

		// A query is searched within the other filters and the cursor.
		assert.Equal(t, idsOf([]string{"coffee"}), find(seedengine.ArticleFilter{Query: "coffee", Since: ids["cafe"], Limit: 200}))
		assert.Equal(t, idsOf([]string{"cafe"}), find(seedengine.ArticleFilter{Query: "coffee", Limit: 1}))
		assert.Empty(t, find(seedengine.ArticleFilter{Query: "coffee", Country: "jp", Limit: 200}))

		// A query with nothing to look for is refused on both engines.
		for _, q := range []string{"?!", "-coffee", "coffee OR -tea", strings.Repeat("coffee ", 72)} {
			_, err := w.articles.FindArticles(ctx, seedengine.ArticleFilter{Query: q, Limit: 10})
			assert.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err), "q=%q: %v", q, err)
			assert.Equal(t, "q", seedengine.ErrorField(err), "q=%q: %v", q, err)
		}
	})
}

// FindArticles filters by partition, seed and language, hides pages that
// are not articles unless asked, pages by its cursor and bounds its limit.
func TestArticleFilters(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		w := newArticleWorld(db)
		day1 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
		day2 := day1.Add(24 * time.Hour)
		sg1 := w.newItems(t, "media:sg:straitstimes.com", "news", false, day1, 4)
		sg2 := w.moreItems(t, mustSeed(t, w, "media:sg:straitstimes.com"), day2, 2)
		jp := w.newItems(t, "gov:jp:mofa.go.jp", "policy", false, day1, 3)

		var all, articles []int64
		rec := func(a *seedengine.Article, lang string) int64 {
			a.Language = lang
			w.recordText(t, a)
			all = append(all, a.ID)
			if a.NotArticle == "" {
				articles = append(articles, a.ID)
			}
			return a.ID
		}
		// Interleaved so each filter picks ids out of the middle.
		s0 := rec(newArticle(sg1[0], "One", "The first story of the day in Singapore."), "en")
		j0 := rec(newArticle(jp[0], "外交", "外務省は本日、新しい方針を発表しました。"), "ja")
		s1 := rec(notArticle(sg1[1], "no_text", "Gallery", ""), "")
		t0 := rec(newArticle(sg2[0], "Two", "The first story of the next day in Singapore."), "en")
		j1 := rec(newArticle(jp[1], "Policy", "The ministry announced a new policy in English."), "en")
		s2 := rec(newArticle(sg1[2], "Three", "Una historia en español sobre Singapur."), "es")
		j2 := rec(notArticle(jp[2], "not_article_type", "Index", "A list of links."), "")
		t1 := rec(newArticle(sg2[1], "Four", "Another story of the next day."), "en")
		s3 := rec(newArticle(sg1[3], "Five", "The last story of the first day."), "en")

		find := func(f seedengine.ArticleFilter) []int64 {
			t.Helper()
			if f.Limit == 0 {
				f.Limit = 200
			}
			got, err := w.articles.FindArticles(ctx, f)
			require.NoError(t, err, "%+v", f)
			return articleIDs(got)
		}
		sgSeed, jpSeed := sg1[0].SeedID, jp[0].SeedID
		for _, c := range []struct {
			f    seedengine.ArticleFilter
			want []int64
		}{
			{seedengine.ArticleFilter{}, articles},
			{seedengine.ArticleFilter{NotArticles: true}, all},
			{seedengine.ArticleFilter{Country: "sg"}, []int64{s0, t0, s2, t1, s3}},
			{seedengine.ArticleFilter{Country: "sg", NotArticles: true}, []int64{s0, s1, t0, s2, t1, s3}},
			{seedengine.ArticleFilter{Country: "jp"}, []int64{j0, j1}},
			{seedengine.ArticleFilter{Country: "fr"}, []int64{}},
			{seedengine.ArticleFilter{Category: "policy", NotArticles: true}, []int64{j0, j1, j2}},
			{seedengine.ArticleFilter{Category: "news"}, []int64{s0, t0, s2, t1, s3}},
			{seedengine.ArticleFilter{Date: "2026-11-01"}, []int64{s0, j0, j1, s2, s3}},
			{seedengine.ArticleFilter{Date: "2026-11-02"}, []int64{t0, t1}},
			{seedengine.ArticleFilter{Country: "sg", Category: "news", Date: "2026-11-01"}, []int64{s0, s2, s3}},
			{seedengine.ArticleFilter{Country: "jp", Date: "2026-11-02"}, []int64{}},
			{seedengine.ArticleFilter{SeedID: sgSeed}, []int64{s0, t0, s2, t1, s3}},
			{seedengine.ArticleFilter{SeedID: jpSeed, NotArticles: true}, []int64{j0, j1, j2}},
			{seedengine.ArticleFilter{Language: "en"}, []int64{s0, t0, j1, t1, s3}},
			{seedengine.ArticleFilter{Language: "ja"}, []int64{j0}},
			{seedengine.ArticleFilter{Language: "es", Country: "sg"}, []int64{s2}},
			{seedengine.ArticleFilter{Language: "en", Country: "jp", SeedID: jpSeed}, []int64{j1}},
			{seedengine.ArticleFilter{Since: j1}, []int64{s2, t1, s3}},
			{seedengine.ArticleFilter{Since: s3}, []int64{}},
			{seedengine.ArticleFilter{Limit: 3}, articles[:3]},
		} {
			assert.Equal(t, c.want, find(c.f), "%+v", c.f)
		}

		// The cursor pages through every article once, in order.
		for _, notArticles := range []bool{false, true} {
			var paged []int64
			var since int64
			for pages := 0; ; pages++ {
				require.Less(t, pages, 20, "the cursor does not end")
				got := find(seedengine.ArticleFilter{Since: since, Limit: 2, NotArticles: notArticles})
				if len(got) == 0 {
					break
				}
				require.LessOrEqual(t, len(got), 2)
				paged = append(paged, got...)
				since = got[len(got)-1]
			}
			if notArticles {
				require.Equal(t, all, paged)
			} else {
				require.Equal(t, articles, paged)
			}
		}

		for _, limit := range []int{0, -1, seedengine.MaxArticlesPage + 1} {
			_, err := w.articles.FindArticles(ctx, seedengine.ArticleFilter{Limit: limit})
			require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err), "limit %d: %v", limit, err)
			require.Equal(t, "limit", seedengine.ErrorField(err), "limit %d", limit)
		}
		got, err := w.articles.FindArticles(ctx, seedengine.ArticleFilter{Limit: seedengine.MaxArticlesPage})
		require.NoError(t, err)
		require.Len(t, got, len(articles))
		require.Equal(t, "外交", got[1].Title, "the record comes back whole")
		require.Equal(t, jpSeed, got[1].SeedID)
		require.Equal(t, seedengine.Partition{Country: "jp", Category: "policy", Date: "2026-11-01"}, got[1].Partition())
	})
}

// mustSeed finds the seed of domainID's news.
func mustSeed(t *testing.T, w *articleWorld, domainID string) *seedengine.Seed {
	t.Helper()
	sd, err := w.seeds.FindSeedByID(t.Context(), seedengine.SeedID(domainID, seedengine.ContentTypeNews))
	require.NoError(t, err)
	return sd
}

// readArticleFiles reads the article files under the mem store's
// articles/ root: each key's lines as articles.
func readArticleFiles(t *testing.T, blobs *blobstore.Store) map[string][]seedengine.Article {
	t.Helper()
	ctx := t.Context()
	out := map[string][]seedengine.Article{}
	require.NoError(t, blobs.List(ctx, "articles/", func(o seedengine.Object) error {
		rc, _, err := blobs.NewReader(ctx, o.Key)
		if err != nil {
			return err
		}
		defer func() { _ = rc.Close() }()
		sc := bufio.NewScanner(rc)
		sc.Buffer(make([]byte, 0, 1<<20), 1<<20)
		out[o.Key] = []seedengine.Article{}
		for sc.Scan() {
			var a seedengine.Article
			if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
				return fmt.Errorf("%s: %w", o.Key, err)
			}
			out[o.Key] = append(out[o.Key], a)
		}
		return sc.Err()
	}))
	return out
}

func newArticleFlusher(t *testing.T, w *articleWorld) (*harvest.Flusher, *blobstore.Store) {
	t.Helper()
	blobs, err := blobstore.Open(t.Context(), "mem://")
	require.NoError(t, err)
	t.Cleanup(func() { _ = blobs.Close() })
	return harvest.NewFlusher(w.articles.Files(), blobs, harvest.FlushConfig{Key: layout.ArticleFileKey, What: "article"}), blobs
}

// The flusher writes each partition's articles (and pages that are not
// articles) once, each line an article with its id; a flush with nothing
// new writes nothing.
func TestArticleFiles(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		w := newArticleWorld(db)
		day1 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
		sg := w.newItems(t, "media:sg:straitstimes.com", "news", false, day1, 3)
		jp := w.newItems(t, "gov:jp:mofa.go.jp", "policy", false, day1.Add(24*time.Hour), 2)
		recorded := map[int64]*seedengine.Article{}
		for i, it := range append(append([]seedengine.Item{}, sg...), jp...) {
			a := newArticle(it, fmt.Sprintf("Story %d", i), fmt.Sprintf("The text of story %d, with \"quotes\" & <tags>.", i))
			if i == 1 {
				a = notArticle(it, seedengine.NotArticleHTML, "", "")
			}
			w.recordText(t, a)
			recorded[a.ID] = a
		}
		flusher, blobs := newArticleFlusher(t, w)
		n, err := flusher.Flush(ctx, true)
		require.NoError(t, err)
		require.Equal(t, 2, n)

		files := readArticleFiles(t, blobs)
		sgKey := "articles/country=sg/category=news/date=2026-11-01/articles_0001.jsonl"
		jpKey := "articles/country=jp/category=policy/date=2026-11-02/articles_0001.jsonl"
		require.ElementsMatch(t, []string{sgKey, jpKey}, keysOf(files))
		require.Len(t, files[sgKey], 3)
		require.Len(t, files[jpKey], 2)
		seen := map[int64]bool{}
		for key, as := range files {
			for i, a := range as {
				require.False(t, seen[a.ID], "article %d twice", a.ID)
				seen[a.ID] = true
				want, ok := recorded[a.ID]
				require.True(t, ok, "%s: unknown article %d", key, a.ID)
				requireSameArticle(t, want, &a)
				if i > 0 {
					require.Greater(t, a.ID, as[i-1].ID, "%s in id order", key)
				}
				require.Equal(t, key, mustKey(t, a.Partition(), 1))
			}
		}
		require.Len(t, seen, len(recorded))

		st, err := w.articles.ArticleStats(ctx)
		require.NoError(t, err)
		require.Equal(t, 2, st.Files)
		var size int64
		require.NoError(t, blobs.List(ctx, "articles/", func(o seedengine.Object) error { size += o.Size; return nil }))
		require.Equal(t, size, st.Bytes)

		n, err = flusher.Flush(ctx, true)
		require.NoError(t, err)
		require.Zero(t, n, "nothing new")
		require.Equal(t, files, readArticleFiles(t, blobs))

		// A late article gets a file of its own.
		late := w.moreItems(t, mustSeed(t, w, "media:sg:straitstimes.com"), day1, 1)[0]
		a := newArticle(late, "Late", "A story read later.")
		w.recordText(t, a)
		n, err = flusher.Flush(ctx, true)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		files = readArticleFiles(t, blobs)
		lateKey := "articles/country=sg/category=news/date=2026-11-01/articles_0002.jsonl"
		require.Len(t, files, 3)
		require.Len(t, files[lateKey], 1)
		requireSameArticle(t, a, &files[lateKey][0])
	})
}

func keysOf[V any](m map[string]V) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	return out
}

func mustKey(t *testing.T, p seedengine.Partition, n int) string {
	t.Helper()
	key, err := layout.ArticleFileKey(p, n)
	require.NoError(t, err)
	return key
}

// A past day's partition is due for Parquet once all its articles are in
// written files and the Parquet file does not hold them all: written, it
// is not; a late article makes it due again once filed. Today's never is.
func TestArticleParquetDue(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		w := newArticleWorld(db)
		day1 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
		day3 := day1.Add(48 * time.Hour)
		past := w.newItems(t, "media:sg:straitstimes.com", "news", false, day1, 3)
		today := w.newItems(t, "media:sg:todayonline.com", "news", false, day3, 1)
		const todayDate = "2026-11-03"
		P := past[0].Partition()
		T := today[0].Partition()
		require.Equal(t, "2026-11-01", P.Date)
		require.Equal(t, todayDate, T.Date)

		due := func(today string) []seedengine.Partition {
			t.Helper()
			got, err := w.articles.ParquetDue(ctx, today, 100)
			require.NoError(t, err)
			return got
		}
		require.Empty(t, due(todayDate), "no articles")

		w.recordText(t, newArticle(past[0], "One", "The first story."))
		w.recordText(t, notArticle(past[1], "too_short", "Two", "Short."))
		w.recordText(t, newArticle(today[0], "Today", "A story of today."))
		require.Empty(t, due(todayDate), "not filed yet")

		// A file fixed but not written yet holds the partition back.
		files := w.articles.Files()
		f, err := files.AllocateFile(ctx, P, 1000)
		require.NoError(t, err)
		require.NotNil(t, f)
		require.Equal(t, 2, f.Items)
		require.Empty(t, due(todayDate), "its file is not written")

		flusher, _ := newArticleFlusher(t, w)
		n, err := flusher.Flush(ctx, true)
		require.NoError(t, err)
		require.Equal(t, 2, n, "the cut-short file and today's")
		require.Equal(t, []seedengine.Partition{P}, due(todayDate), "today's is not due")
		require.Equal(t, []seedengine.Partition{P, T}, due("2026-11-04"), "the next day it is")
		require.Empty(t, due("2026-11-01"))

		var inP []int64
		require.NoError(t, w.articles.ArticlesOfPartition(ctx, P, func(a *seedengine.Article) error {
			inP = append(inP, a.ID)
			return nil
		}))
		require.Len(t, inP, 2)

		require.NoError(t, w.articles.MarkParquetWritten(ctx, P, int64(len(inP)), 4096))
		require.Empty(t, due(todayDate), "written")
		st, err := w.articles.ArticleStats(ctx)
		require.NoError(t, err)
		require.Equal(t, 2, st.Files, "the Parquet file is not an article file")

		// A late article of the past day: due again once it is filed.
		w.recordText(t, newArticle(past[2], "Late", "A story read late."))
		require.Empty(t, due(todayDate), "the late article is in no file yet")
		n, err = flusher.Flush(ctx, true)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.Equal(t, []seedengine.Partition{P}, due(todayDate))
		inP = inP[:0]
		require.NoError(t, w.articles.ArticlesOfPartition(ctx, P, func(a *seedengine.Article) error {
			inP = append(inP, a.ID)
			return nil
		}))
		require.Len(t, inP, 3)
		require.NoError(t, w.articles.MarkParquetWritten(ctx, P, 3, 5000))
		require.Empty(t, due(todayDate))
	})
}

// QueueMissing passes the stored pages without an article, in item order,
// in batches of 1,000, each in its own transaction; a failing batch stops
// it.
func TestArticleQueueMissing(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		w := newArticleWorld(db)
		day := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
		const total = 1003
		items := w.newItems(t, "media:sg:straitstimes.com", "news", true, day, total+2)
		w.storePages(t, items[:total])
		// Three have their article; the last two pages are not stored.
		for _, i := range []int{0, 500, 1001} {
			w.recordText(t, newArticle(items[i], "Done", "An article already."))
		}
		var want []int64
		for i, it := range items[:total] {
			if i != 0 && i != 500 && i != 1001 {
				want = append(want, it.ID)
			}
		}
		require.Len(t, want, 1000)
		st, err := w.articles.ArticleStats(ctx)
		require.NoError(t, err)
		require.Equal(t, 1000, st.Pending)

		var batches [][]int64
		queue := func(_ context.Context, tx *sql.Tx, ids []int64) error {
			require.NotNil(t, tx)
			batches = append(batches, append([]int64(nil), ids...))
			return nil
		}
		n, err := w.articles.QueueMissing(ctx, 100_000, queue)
		require.NoError(t, err)
		require.Equal(t, 1000, n)
		require.Len(t, batches, 1)
		require.Equal(t, want, batches[0])

		// One more stored page without an article: two batches.
		w.storePages(t, items[total:total+1])
		want = append(want, items[total].ID)
		batches = nil
		n, err = w.articles.QueueMissing(ctx, 100_000, queue)
		require.NoError(t, err)
		require.Equal(t, 1001, n)
		require.Len(t, batches, 2)
		require.Len(t, batches[0], 1000)
		require.Equal(t, want, append(batches[0], batches[1]...))

		// The limit stops it after the batch that reaches it.
		batches = nil
		n, err = w.articles.QueueMissing(ctx, 1000, queue)
		require.NoError(t, err)
		require.Equal(t, 1000, n)
		require.Len(t, batches, 1)

		// A failing queue stops it with the error.
		batches = nil
		n, err = w.articles.QueueMissing(ctx, 100_000, func(context.Context, *sql.Tx, []int64) error {
			return fmt.Errorf("queue down")
		})
		require.ErrorContains(t, err, "queue down")
		require.Zero(t, n)

		// Once the stored pages have their articles there is nothing to
		// queue.
		byID := map[int64]seedengine.Item{}
		for _, it := range items {
			byID[it.ID] = it
		}
		for _, id := range want[:2] {
			w.recordText(t, newArticle(byID[id], "Now done", "An article at last."))
		}
		batches = nil
		n, err = w.articles.QueueMissing(ctx, 100_000, queue)
		require.NoError(t, err)
		require.Equal(t, 999, n)
		require.Equal(t, [][]int64{want[2:]}, batches)
		st, err = w.articles.ArticleStats(ctx)
		require.NoError(t, err)
		require.Equal(t, 999, st.Pending)
	})
}
