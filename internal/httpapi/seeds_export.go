package httpapi

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/seedengine/seedengine"
)

// Seeds out: the seeds list's filters, every matching seed, streamed in
// the shapes feed readers, spreadsheets and crawlers read (docs/seeds.md
// "Export").

// exportSeedPage is how many seeds one read of an export takes: the most
// a FindSeeds page holds.
const exportSeedPage = 100

type seedExportInput struct {
	Format         string  `query:"format" enum:"jsonl,csv,opml,urls" default:"jsonl" doc:"jsonl: one seed per line as the API shows it; csv: a header row and the columns of docs/seeds.md, RFC 4180; opml: OPML 2.0, the feeds (rss, atom, json_feed) grouped by country and the news sitemaps in a group of their own; urls: one entry URL per line."`
	Country        string  `query:"country" maxLength:"8" doc:"Only seeds of this country: ISO 3166-1 alpha-2 or intl, any case." example:"sg"`
	Category       string  `query:"category" maxLength:"40" doc:"Only seeds of this category." example:"news"`
	Status         string  `query:"status" enum:"draft,active,suspended,rejected,archived" doc:"Only seeds in this status."`
	SourceType     string  `query:"source_type" enum:"government,organization,ngo,media,company,education,other" doc:"Only seeds of this source type."`
	FetchType      string  `query:"fetch_type" enum:"rss,atom,json_feed,news_sitemap,sitemap,html,api" doc:"Only seeds read this way."`
	Authority      string  `query:"authority" enum:"gov,mil,edu,ngo,org,media,com,other" doc:"Only seeds of domains of this authority."`
	MinConf        float64 `query:"min_confidence" minimum:"0" maximum:"1" doc:"Only seeds whose confidence is at least this."`
	Health         string  `query:"health" enum:"unknown,healthy,stale,failing,blocked,moved,gone" doc:"Only seeds in this health state (unknown: never checked)."`
	Q              string  `query:"q" maxLength:"200" doc:"Only seeds whose domain or source name contains this text, in any case."`
	BatchID        string  `query:"batch_id" maxLength:"128" pattern:"^[A-Za-z0-9_.:-]+$" doc:"Only seeds a contract batch recorded a contract for."`
	Gzip           bool    `query:"gzip" default:"false" doc:"Compress the stream with gzip (also when the request accepts gzip)."`
	AcceptEncoding string  `header:"Accept-Encoding"`
}

type seedExportOutput struct {
	ContentType        string `header:"Content-Type"`
	ContentEncoding    string `header:"Content-Encoding"`
	ContentDisposition string `header:"Content-Disposition"`
	Vary               string `header:"Vary"`
	Body               func(huma.Context)
}

// seedExportTypes are each format's media type and file name.
var seedExportTypes = map[string][2]string{
	"jsonl": {"application/x-ndjson", "seeds.jsonl"},
	"csv":   {"text/csv; charset=utf-8; header=present", "seeds.csv"},
	"opml":  {"text/x-opml; charset=utf-8", "seeds.opml"},
	"urls":  {"text/plain; charset=utf-8", "seeds.txt"},
}

// seedCSVHeader are the CSV columns, in order.
var seedCSVHeader = []string{"seed_id", "domain_id", "country", "category", "content_type", "source_name", "source_type",
	"domain", "status", "fetch_type", "entry_url", "schedule", "confidence", "health", "harvest_pages", "created_at", "updated_at"}

func (s *Server) handleSeedExport(ctx context.Context, in *seedExportInput) (*seedExportOutput, error) {
	if s.deps.Seeds == nil {
		return nil, unavailable("seeds")
	}
	f := seedengine.SeedFilter{
		Country:       in.Country,
		Category:      in.Category,
		Status:        seedengine.SeedStatus(in.Status),
		SourceType:    seedengine.SourceType(in.SourceType),
		FetchType:     seedengine.FetchType(in.FetchType),
		Authority:     seedengine.Authority(in.Authority),
		MinConfidence: in.MinConf,
		Health:        seedengine.SeedHealthState(in.Health),
		Q:             strings.TrimSpace(in.Q),
		BatchID:       in.BatchID,
		Limit:         exportSeedPage,
	}
	// The first read comes before the status, so a bad filter answers 422
	// and a store that is down 503, not an empty 200.
	probe := f
	probe.Limit = 1
	if _, _, err := s.deps.Seeds.FindSeeds(ctx, probe); err != nil {
		return nil, inQuery(err)
	}
	t := seedExportTypes[in.Format]
	out := &seedExportOutput{ContentType: t[0], ContentDisposition: `attachment; filename="` + t[1] + `"`, Vary: "Accept-Encoding"}
	zip := in.Gzip || acceptsGzip(in.AcceptEncoding)
	if zip {
		out.ContentEncoding = "gzip"
	}
	out.Body = s.streamed(ctx, "export seeds", zip, func(w *bufio.Writer) error {
		if in.Format == "opml" {
			return s.exportOPML(ctx, w, f)
		}
		return s.exportSeedLines(ctx, w, f, in.Format)
	})
	return out, nil
}

// eachSeed calls fn with every seed f matches, in seed_id order, reading
// a page at a time.
func (s *Server) eachSeed(ctx context.Context, f seedengine.SeedFilter, fn func(*seedengine.Seed) error) error {
	f.Limit, f.Offset, f.Sort = exportSeedPage, 0, seedengine.SortSeedID
	for {
		page, _, err := s.deps.Seeds.FindSeeds(ctx, f)
		if err != nil {
			return err
		}
		for _, sd := range page {
			if err := fn(sd); err != nil {
				return err
			}
		}
		if len(page) < f.Limit {
			return nil
		}
		f.After = page[len(page)-1].SeedID
	}
}

// exportSeedLines writes the line formats: jsonl, csv and urls.
func (s *Server) exportSeedLines(ctx context.Context, w *bufio.Writer, f seedengine.SeedFilter, format string) error {
	switch format {
	case "csv":
		cw := csv.NewWriter(w)
		if err := cw.Write(seedCSVHeader); err != nil {
			return err
		}
		err := s.eachSeed(ctx, f, func(sd *seedengine.Seed) error {
			health := string(seedengine.HealthUnknown)
			if sd.Health != nil {
				health = string(sd.Health.State)
			}
			row := []string{sd.SeedID, sd.DomainID, sd.Country, sd.Category, sd.ContentType, sd.Source.Name,
				string(sd.Source.SourceType), sd.Source.Domain, string(sd.Status), string(sd.Fetch.Type), sd.Fetch.EntryURL,
				sd.Fetch.Schedule, strconv.FormatFloat(sd.Confidence, 'f', -1, 64), health,
				strconv.FormatBool(sd.Harvest.Pages), sd.CreatedAt.UTC().Format(time.RFC3339), sd.UpdatedAt.UTC().Format(time.RFC3339)}
			for i := range row {
				row[i] = inertCell(row[i])
			}
			return cw.Write(row)
		})
		cw.Flush()
		if err != nil {
			return err
		}
		return cw.Error()
	case "urls":
		return s.eachSeed(ctx, f, func(sd *seedengine.Seed) error {
			if sd.Fetch.EntryURL == "" {
				return nil
			}
			_, err := w.WriteString(sd.Fetch.EntryURL + "\n")
			return err
		})
	default:
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return s.eachSeed(ctx, f, func(sd *seedengine.Seed) error { return enc.Encode(reviewed(sd)) })
	}
}

// inertCell keeps a CSV cell from being taken for a formula by a
// spreadsheet: a cell that starts with =, +, -, @, a tab or a carriage
// return gets a leading apostrophe (OWASP's advice on CSV injection).
// Source names come from the sites themselves, so every cell goes
// through it; no id, URL, number or time of the export starts so.
func inertCell(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}

// opmlOutline is one outline of the export: a group or a feed.
type opmlOutline struct {
	XMLName  xml.Name `xml:"outline"`
	Text     string   `xml:"text,attr"`
	Title    string   `xml:"title,attr,omitempty"`
	Type     string   `xml:"type,attr,omitempty"`
	XMLURL   string   `xml:"xmlUrl,attr,omitempty"`
	HTMLURL  string   `xml:"htmlUrl,attr,omitempty"`
	URL      string   `xml:"url,attr,omitempty"`
	Category string   `xml:"category,attr,omitempty"`
}

// exportOPML writes OPML 2.0: a group per country holding its feed seeds
// (rss, atom, json_feed) as outline type="rss", then a "News sitemaps"
// group of the news sitemap seeds, each country a group within it. Seeds
// read otherwise (sitemap, html, api) are not feeds and are left out. The
// countries are read one after another, so nothing but a page of seeds is
// held.
func (s *Server) exportOPML(ctx context.Context, w *bufio.Writer, f seedengine.SeedFilter) error {
	if _, err := w.WriteString(xml.Header + `<opml version="2.0">` + "\n<head>\n<title>seedengine seeds</title>\n<dateCreated>" +
		time.Now().UTC().Format(time.RFC1123Z) + "</dateCreated>\n<docs>https://opml.org/spec2.opml</docs>\n</head>\n<body>\n"); err != nil {
		return err
	}
	countries := seedengine.Countries()
	if f.Country != "" {
		countries = []string{seedengine.NormalizeCountry(f.Country)}
	}
	// byCountry writes a group per country of the seeds keep takes.
	byCountry := func(indent string, ft seedengine.FetchType, keep func(seedengine.FetchType) bool) error {
		for _, c := range countries {
			cf := f
			cf.Country = c
			if ft != "" {
				cf.FetchType = ft
			}
			open := false
			err := s.eachSeed(ctx, cf, func(sd *seedengine.Seed) error {
				if !keep(sd.Fetch.Type) {
					return nil
				}
				if !open {
					if _, err := w.WriteString(indent + `<outline text="` + c + `" title="` + c + `">` + "\n"); err != nil {
						return err
					}
					open = true
				}
				return writeOPMLSeed(w, indent+"  ", sd)
			})
			if err != nil {
				return err
			}
			if open {
				if _, err := w.WriteString(indent + "</outline>\n"); err != nil {
					return err
				}
			}
		}
		return nil
	}
	isFeed := func(t seedengine.FetchType) bool {
		return t == seedengine.FetchRSS || t == seedengine.FetchAtom || t == seedengine.FetchJSONFeed
	}
	if err := byCountry("", f.FetchType, isFeed); err != nil {
		return err
	}
	if f.FetchType == "" || f.FetchType == seedengine.FetchNewsSitemap {
		if _, err := w.WriteString(`<outline text="News sitemaps" title="News sitemaps">` + "\n"); err != nil {
			return err
		}
		newsSitemap := func(t seedengine.FetchType) bool { return t == seedengine.FetchNewsSitemap }
		if err := byCountry("  ", seedengine.FetchNewsSitemap, newsSitemap); err != nil {
			return err
		}
		if _, err := w.WriteString("</outline>\n"); err != nil {
			return err
		}
	}
	_, err := w.WriteString("</body>\n</opml>\n")
	return err
}

// writeOPMLSeed writes one seed as an outline: type rss for a feed
// (xmlUrl its entry), link for a news sitemap (url its entry); htmlUrl
// the site, category "/{country}/{category}/{authority}", and
// ",/content_type/{type}" for a content type other than news, which an
// import reads back.
func writeOPMLSeed(w *bufio.Writer, indent string, sd *seedengine.Seed) error {
	authority, _, _, _ := seedengine.ParseDomainID(sd.DomainID)
	name := sd.Source.Name
	if name == "" {
		name = sd.Source.Domain
	}
	o := opmlOutline{Text: name, Title: name, Type: "rss", XMLURL: sd.Fetch.EntryURL,
		HTMLURL: "https://" + sd.Source.Domain + "/", Category: "/" + sd.Country + "/" + sd.Category + "/" + string(authority)}
	if sd.Fetch.Type == seedengine.FetchNewsSitemap {
		o.Type, o.XMLURL, o.URL = "link", "", sd.Fetch.EntryURL
		o.Category += "/news_sitemap"
	}
	if sd.ContentType != seedengine.ContentTypeNews {
		o.Category += ",/content_type/" + sd.ContentType
	}
	b, err := xml.Marshal(o)
	if err != nil {
		return err
	}
	_, err = w.WriteString(indent + string(b) + "\n")
	return err
}

// registerSeedExport documents the export's one answer in its four media
// types.
func (s *Server) registerSeedExport(api huma.API, op huma.Operation) {
	text := &huma.Schema{Type: huma.TypeString}
	op.Responses = map[string]*huma.Response{"200": {
		Description: "Every seed the filters match, in the format asked, gzip-compressed when asked.",
		Content: map[string]*huma.MediaType{
			"application/x-ndjson": {Schema: api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[seedengine.Seed](), true, "")},
			"text/csv":             {Schema: text},
			"text/x-opml":          {Schema: text},
			"text/plain":           {Schema: text},
		},
	}}
	huma.Register(api, op, s.handleSeedExport)
}
