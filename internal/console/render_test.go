package console

import (
	"bytes"
	"html/template"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

// Only http(s) URLs to public host names become links; whatever could
// lead a person's browser into their own network, or nowhere, is text.
func TestLinkable(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		url  string
		want bool
	}{
		{"https://www.mom.gov.sg/newsroom", true},
		{"http://news.example.com:8080/feed.xml?x=1&y=2", true},
		{"https://WWW.Example.COM./", true},
		{"https://xn--fiqs8s.example/", true},
		{"https://my_site.blogspot.com/", true},

		{"javascript:alert(1)", false},
		{"data:text/html,hi", false},
		{"ftp://files.example.com/", false},
		{"mailto:press@mom.gov.sg", false},
		{"//example.com/", false},
		{"/console/", false},
		{"", false},
		{"not a url", false},
		{"https://user:pass@example.com/", false},
		{"https://%zz", false},

		// IP addresses in any form, private or not.
		{"http://169.254.169.254/latest/meta-data/", false},
		{"http://10.0.0.1/", false},
		{"http://127.0.0.1:8080/", false},
		{"http://127.1/", false},
		{"http://2130706433/", false},
		{"http://0x7f000001/", false},
		{"http://0177.0.0.1/", false},
		{"http://[::1]/", false},
		{"http://[fd00::1]/", false},
		{"http://[::ffff:169.254.169.254]/", false},
		{"http://8.8.8.8/", false},

		// Names that resolve inside a network, if at all.
		{"http://localhost/", false},
		{"http://localhost:3000/", false},
		{"http://intranet/", false},
		{"http://metadata.google.internal/computeMetadata/v1/", false},
		{"http://printer.local/", false},
		{"http://app.localhost/", false},
		{"http://router.home.arpa/", false},
		{"http://files.corp/", false},
		{"http://nas.lan/", false},
		{"http://1.0.0.10.in-addr.arpa/", false},
		{"http://example.test/", false},
		{"http://a..b.com/", false},
		{"http://bücher.example/", false},
	} {
		require.Equal(t, tt.want, linkable(tt.url), tt.url)
		if !tt.want {
			require.Equal(t, template.URL("#"), funcs["external"].(func(string) template.URL)(tt.url), tt.url)
		}
	}
}

// extlink makes a link of what linkable allows, text of the rest, and
// wbr breaks URLs at their seams, escaping what is around them.
func TestExtlinkAndWbr(t *testing.T) {
	t.Parallel()
	require.Equal(t, template.HTML(`https://www.<wbr>mom.<wbr>gov.<wbr>sg/<wbr>news?<wbr>a=<wbr>1&amp;<wbr>b=<wbr>2<wbr>#top`),
		wbr("https://www.mom.gov.sg/news?a=1&b=2#top"))
	require.Equal(t, template.HTML(`&lt;b&gt;.<wbr>x`), wbr("<b>.x"))
	require.Equal(t, template.HTML(`<a href="https://www.mom.gov.sg/a?b=1&amp;c=&lt;x&gt;" rel="noopener noreferrer nofollow" target="_blank">`+
		`https://www.<wbr>mom.<wbr>gov.<wbr>sg/<wbr>a?<wbr>b=<wbr>1&amp;<wbr>c=<wbr>&lt;x&gt;</a>`),
		extlink("https://www.mom.gov.sg/a?b=1&c=<x>"))
	require.Equal(t, template.HTML(`<a href="https://www.mom.gov.sg/" rel="noopener noreferrer nofollow" target="_blank">mom.<wbr>gov.<wbr>sg</a>`),
		extlink("https://www.mom.gov.sg/", "mom.gov.sg"))
	require.Equal(t, template.HTML(`<span class="nolink" title="not a link: not a public http(s) address">http://169.<wbr>254.<wbr>169.<wbr>254/<wbr>latest/<wbr></span>`),
		extlink("http://169.254.169.254/latest/"))
	require.Equal(t, template.HTML(`<span class="nolink" title="not a link: not a public http(s) address">javascript:alert(1)</span>`),
		extlink("javascript:alert(1)"))

	// In a template, the link goes in as it is and text around it is escaped.
	tm := template.Must(template.New("t").Funcs(funcs).Parse(`<p>{{extlink .}}</p>`))
	var b bytes.Buffer
	require.NoError(t, tm.Execute(&b, `http://metadata.google.internal/"><script>`))
	require.NotContains(t, b.String(), "<script>")
	require.NotContains(t, b.String(), "<a ")
}

// Batches made together share their ids' first digits (UUIDv7's time):
// the short id is the last eight, and differs.
func TestBatchID(t *testing.T) {
	t.Parallel()
	a, b := "01a21cb7-4f2e-7c11-9d3a-1f0e2b3c4d5e", "01a21cb7-4f2e-7c11-b8e0-77aa01bc9f10"
	require.Equal(t, "2b3c4d5e", batchID(a))
	require.Equal(t, "01bc9f10", batchID(b))
	require.Equal(t, "abc", batchID("abc"))
}

// One word per authority, from its code or a domain_id, everywhere.
func TestAuthorityLabels(t *testing.T) {
	t.Parallel()
	label := funcs["authority"].(func(any) string)
	code := funcs["authorityCode"].(func(any) string)
	for a, want := range map[seedengine.Authority]string{
		seedengine.AuthorityGov: "government", seedengine.AuthorityMil: "military", seedengine.AuthorityEdu: "education",
		seedengine.AuthorityNGO: "NGO or international", seedengine.AuthorityOrg: "organisation", seedengine.AuthorityMedia: "media",
		seedengine.AuthorityCom: "company", seedengine.AuthorityOther: "other",
	} {
		require.Equal(t, want, a.Label())
		require.Equal(t, want, label(a))
		require.Equal(t, want, label(string(a)))
		require.Equal(t, want, label(string(a)+":sg:example.com.sg"))
		require.Equal(t, string(a), code(string(a)+":sg:example.com.sg"))
	}
	require.Equal(t, "unknown", label("unknown"))
	for _, a := range options.Authorities {
		require.True(t, seedengine.Authority(a).Valid(), a)
	}
}

// The API's validation messages in words, under the field they are about.
func TestProblemWords(t *testing.T) {
	t.Parallel()
	p := &problem{Status: 422, Detail: "validation failed"}
	for _, e := range [][2]string{
		{"body.category", "expected string to match pattern ^[a-z0-9_]{1,40}$"},
		{"body.country", "expected length >= 2"},
		{"body.country", `country is not an ISO 3166-1 alpha-2 code or "intl"`},
		{"body.date", "expected string to be RFC 3339 date"},
		{"body.urls", "expected array length >= 1"},
		{"body.urls[3]", "expected length <= 8192"},
		{"body.domains", "expected array length <= 10000"},
		{"body.country", "expected required property country to be present"},
		{"body.chunkSize", "expected number <= 1000"},
		{"body.authority", `expected value to be one of "gov, mil"`},
		{"body.fetch.entry_url", "expected string to be RFC 3986 uri"},
		{"body.fetch.schedule", "schedule is not a cron expression"},
	} {
		p.Errors = append(p.Errors, struct {
			Location string `json:"location"`
			Message  string `json:"message"`
		}{e[0], e[1]})
	}
	require.Equal(t, []fieldError{
		{"category", "Category", "Use lower-case letters, digits and _ (at most 40)."},
		{"country", "Country", "Use a two-letter country code such as sg, or intl."},
		{"country", "Country", "Use a two-letter country code such as sg, or intl."},
		{"date", "Date", "Write a date as YYYY-MM-DD, such as 2026-01-28."},
		{"urls", "URLs", "Give at least one URL."},
		{"urls", "URLs", "Give at most 8192 characters."},
		{"domains", "Domains", "Give at most 10000 domains."},
		{"country", "Country", "Fill this in."},
		{"chunk_size", "Chunk size", "Use a number of at most 1000."},
		{"authority", "Authority", "Choose one of: government (gov), military (mil)."},
		{"fetch.entry_url", "fetch.entry_url", "Write a whole URL, beginning with https:// or http://."},
		{"fetch.schedule", "fetch.schedule", "Schedule is not a cron expression."},
	}, p.Words())
}

// A textarea's items are its lines: a line with spaces is one item.
func TestLines(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"https://a.sg/", "not a url", "b.sg", "https://c.sg/x,y"},
		lines("https://a.sg/\r\n\n  not a url  \nb.sg\tgov\n\t\nhttps://c.sg/x,y"))
	require.Equal(t, []string{}, lines(" \n\n"))
}

// Only the form that was sent shows what was typed and its errors.
func TestWorkDataPerForm(t *testing.T) {
	t.Parallel()
	d := workData{Form: "research", Values: map[string]string{"category": "Bad"}, Errors: map[string]string{"category": "x"}, Problem: &problem{}}
	require.Equal(t, "Bad", d.V("research")["category"])
	require.Nil(t, d.V("contract"))
	require.Nil(t, d.E("contract"))
	require.True(t, d.Sent("research"))
	require.False(t, d.Sent("contract"))
	// A link that names a partition fills every form.
	link := workData{Values: map[string]string{"country": "sg"}}
	require.Equal(t, "sg", link.V("contract")["country"])
	require.Nil(t, link.E("contract"))
}

// River UI's page gets the way back after <body> and its stylesheet
// before </head>; anything else is left alone.
func TestInsertBackLink(t *testing.T) {
	t.Parallel()
	page := []byte(`<!doctype html><html><HEAD><title>River</title></HEAD><body class="x"><div id="root"></div></body></html>`)
	got := string(insertBackLink(page))
	require.Equal(t, `<!doctype html><html><HEAD><title>River</title>`+backLinkStyle+`</HEAD><body class="x">`+backLinkHTML+`<div id="root"></div></body></html>`, got)
	for _, odd := range []string{`{"json":true}`, `<html><body>no head</body></html>`, `<head></head>no body`} {
		require.Equal(t, odd, string(insertBackLink([]byte(odd))))
	}
}
