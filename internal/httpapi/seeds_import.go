package httpapi

import (
	"context"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/discover"
	"github.com/seedengine/seedengine/internal/seedimport"
)

// Seeds in: a feed list people already keep (a feed reader's OPML, a
// spreadsheet's CSV, a crawler's URL list) becomes an import batch, whose
// entries are each read once into a draft seed or a rejected row
// (internal/seedimport; docs/seeds.md "Import").

// importMediaTypes are the documents the import takes, each with the
// format it means when the format parameter is absent.
var importMediaTypes = []string{"text/x-opml", "application/xml", "text/xml", "text/csv", "text/plain"}

var importFormats = map[string]string{
	"text/x-opml": seedimport.FormatOPML, "application/xml": seedimport.FormatOPML, "text/xml": seedimport.FormatOPML,
	"text/csv": seedimport.FormatCSV, "text/plain": seedimport.FormatURLs,
}

type seedImportInput struct {
	Format       string `query:"format" enum:"opml,csv,urls" doc:"How to read the body; absent: from its Content-Type (text/x-opml, application/xml, text/xml: opml; text/csv: csv; text/plain: urls)."`
	Country      string `query:"country" maxLength:"8" doc:"Country of the entries that name none (OPML category \"/{country}/{category}\", a CSV country column): ISO 3166-1 alpha-2 or intl, any case. An entry with no country either is refused (422 naming its line)." example:"sg"`
	Category     string `query:"category" maxLength:"40" doc:"Category of the entries that name none, a lower-case slug." example:"news"`
	Columns      string `query:"columns" maxLength:"1000" doc:"CSV only: which header names each field, as field=header pairs separated by commas (url=Feed URL,title=Name). Fields: url (the feed or sitemap), site (the publisher's home page or domain: the seed's domain), title, country, category, content_type, fetch_type. Unmapped fields are found by their usual names (entry_url, feed_url, xmlUrl, url; site, htmlUrl, homepage, domain; title, name; …)."`
	ChunkSize    int    `query:"chunk_size" minimum:"1" maximum:"500" doc:"Entries per chunk job; 50 when absent. The entries of one seed stay in one chunk."`
	HarvestPages bool   `query:"harvest_pages" doc:"Turn page fetching on (harvest.pages) for every seed the import creates."`
	ContentType  string `header:"Content-Type"`
	RawBody      []byte `contentType:"text/x-opml"`
}

func (s *Server) handleSeedImport(ctx context.Context, in *seedImportInput) (*batchAcceptedOutput, error) {
	if s.deps.Batches == nil || s.deps.Seeds == nil {
		return nil, unavailable("batches")
	}
	format := in.Format
	if format == "" {
		format = importFormats[in.ContentType] // checkTextBody allowed only these
	}
	cols, err := seedimport.ParseColumns(in.Columns)
	if err != nil {
		return nil, inQuery(err)
	}
	if in.Columns != "" && format != seedimport.FormatCSV {
		return nil, inQuery(seedengine.FieldErrorf("columns", "columns is for CSV lists only"))
	}
	rows, err := seedimport.Parse(format, in.RawBody, cols)
	if err != nil {
		return nil, importError(err)
	}
	classifier := s.deps.Classifier
	if classifier == nil {
		classifier = discover.DefaultClassifier()
	}
	b, chunks, err := seedimport.Plan(classifier, seedimport.Request{
		Format: format, Rows: rows, Country: in.Country, Category: in.Category,
		ChunkSize: in.ChunkSize, HarvestPages: in.HarvestPages,
	}, time.Now())
	if err != nil {
		return nil, importError(err)
	}
	return s.acceptBatch(ctx, b, chunks)
}

// registerSeedImport registers the import and documents its body, a
// document in one of importMediaTypes: huma sees only the raw bytes.
func (s *Server) registerSeedImport(api huma.API, op huma.Operation) {
	huma.Register(api, op, s.handleSeedImport)
	text := &huma.Schema{Type: huma.TypeString}
	content := map[string]*huma.MediaType{}
	for _, mt := range importMediaTypes {
		content[mt] = &huma.MediaType{Schema: text}
	}
	api.OpenAPI().Paths[op.Path].Post.RequestBody = &huma.RequestBody{
		Description: "The feed list: OPML 1.0 or 2.0 (every outline with an xmlUrl; type=\"link\" outlines whose url is a sitemap), " +
			"CSV with a header row (RFC 4180), or one URL per line (# comments). UTF-8; at most 50,000 entries and 32 MiB. " +
			"A list that cannot be read answers 422 naming its line, and nothing of it is imported.",
		Required: true,
		Content:  content,
	}
}

// importError places an import's error: a line of the body (body.line[N])
// or a query parameter.
func importError(err error) error {
	if seedimport.IsBodyError(err) {
		return err
	}
	return inQuery(err)
}
