package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/seedengine/seedengine/client"
)

// Research: URLs found for a country and category become a research
// batch; its domains are normalised, de-duplicated and classified.
func Example_research() {
	ctx := context.Background()
	c, err := client.NewClientWithResponses(serverURL, client.WithToken(token))
	if err != nil {
		log.Fatal(err)
	}
	urls := []string{"https://www.mom.gov.sg/newsroom", "https://www.moh.gov.sg/", "https://WWW.MOM.gov.sg/newsroom#top"}
	queued, err := c.EnqueueResearchWithResponse(ctx, client.EnqueueResearchJSONRequestBody{Country: "sg", Category: "news", Urls: &urls})
	if err != nil {
		log.Fatal(err)
	}
	if queued.JSON202 == nil {
		log.Fatalf("queue research: %s %s", queued.Status(), queued.Body)
	}
	batch, err := c.WaitBatch(ctx, queued.JSON202.Id, 50*time.Millisecond)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(batch.Kind, batch.Status)

	gov := client.ListDomainsParamsAuthorityGov
	domains, err := c.ListDomainsWithResponse(ctx, &client.ListDomainsParams{Country: ptr("sg"), Authority: &gov})
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range *domains.JSON200.Items {
		fmt.Println(d.DomainId)
	}
	// Output:
	// research completed
	// gov:sg:moh.gov.sg
	// gov:sg:mom.gov.sg
}

// A contract batch examines domains (robots.txt, sitemaps, feeds) and
// records what it finds as draft seeds, each with its evidence.
func Example_contractBatch() {
	ctx := context.Background()
	c, err := client.NewClientWithResponses(serverURL, client.WithToken(token))
	if err != nil {
		log.Fatal(err)
	}
	ids := []string{"org:sg:example.org"}
	queued, err := c.EnqueueContractWithResponse(ctx, client.EnqueueContractJSONRequestBody{Country: "sg", Category: "news", DomainIds: &ids})
	if err != nil {
		log.Fatal(err)
	}
	if queued.JSON202 == nil {
		log.Fatalf("queue contract batch: %s %s", queued.Status(), queued.Body)
	}
	batch, err := c.WaitBatch(ctx, queued.JSON202.Id, 50*time.Millisecond)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(batch.Kind, batch.Status)

	seeds, err := c.ListSeedsWithResponse(ctx, &client.ListSeedsParams{BatchId: &batch.Id})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range *seeds.JSON200.Items {
		fmt.Println(s.SeedId, s.Status, s.Fetch.Type, s.Fetch.EntryUrl)
		fmt.Println(*s.Evidence.Method)
	}
	// Output:
	// contract completed
	// org:sg:example.org::news draft rss https://example.org/feed.xml
	// rss via link_alternate
}

// Review: a person promotes the drafts worth keeping (here: every draft of
// a country above a confidence) in one request; a dry run first says
// what it would do.
func Example_review() {
	ctx := context.Background()
	c, err := client.NewClientWithResponses(serverURL, client.WithToken(token))
	if err != nil {
		log.Fatal(err)
	}
	filter := &client.SeedBulkFilter{Country: ptr("sg"), Status: ptr(client.SeedBulkFilterStatusDraft), MinConfidence: ptr(0.8)}
	for _, dry := range []bool{true, false} {
		r, err := c.BulkSeedActionWithResponse(ctx, client.BulkSeedActionJSONRequestBody{
			Action: client.SeedBulkRequestActionPromote, Filter: filter, DryRun: &dry, Reason: ptr("fresh feed, checked"),
		})
		if err != nil {
			log.Fatal(err)
		}
		if r.JSON200 == nil {
			log.Fatalf("bulk promote: %s %s", r.Status(), r.Body)
		}
		fmt.Println("dry run:", dry, "promoted:", len(*r.JSON200.Changed))
	}
	seed, err := c.GetSeedWithResponse(ctx, "org:sg:example.org::news")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(seed.JSON200.SeedId, seed.JSON200.Status)
	// Output:
	// dry run: true promoted: 1
	// dry run: false promoted: 1
	// org:sg:example.org::news active
}

// Items: an active seed's new articles, each once. A check reads the
// seed's entry now (checks also run on their own schedule).
func Example_items() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.NewClientWithResponses(serverURL, client.WithToken(token))
	if err != nil {
		log.Fatal(err)
	}
	const seedID = "org:sg:example.org::news"
	if _, err := c.CheckSeedWithResponse(ctx, seedID); err != nil {
		log.Fatal(err)
	}
	for {
		items, err := c.ListItemsWithResponse(ctx, &client.ListItemsParams{SeedId: ptr(seedID)})
		if err != nil {
			log.Fatal(err)
		}
		if list := *items.JSON200.Items; len(list) == 3 {
			for _, it := range list {
				fmt.Println(*it.Title, it.Url)
			}
			break
		}
		select {
		case <-ctx.Done():
			log.Fatal(ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	// Unordered output:
	// Article 1 https://example.org/articles/1
	// Article 2 https://example.org/articles/2
	// Article 3 https://example.org/articles/3
}

// Import: a feed reader's OPML becomes draft seeds; each entry is read
// once, and one that cannot be a seed is a rejected row with its reason.
func Example_importOPML() {
	ctx := context.Background()
	c, err := client.NewClientWithResponses(serverURL, client.WithToken(token))
	if err != nil {
		log.Fatal(err)
	}
	opml := `<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0">
<head><title>Subscriptions</title></head>
<body>
<outline text="News">
  <outline text="Example News" type="rss" xmlUrl="https://news.example.com/feed.xml" htmlUrl="https://news.example.com/"/>
  <outline text="Example Blog" type="rss" xmlUrl="https://news.example.com/blog/gone.xml"/>
</outline>
</body>
</opml>`
	r, err := c.ImportSeedsWithBodyWithResponse(ctx, &client.ImportSeedsParams{Country: ptr("sg"), Category: ptr("news")},
		"text/x-opml", strings.NewReader(opml))
	if err != nil {
		log.Fatal(err)
	}
	if r.JSON202 == nil {
		log.Fatalf("import: %s %s", r.Status(), r.Body)
	}
	batch, err := c.WaitBatch(ctx, r.JSON202.Id, 50*time.Millisecond)
	if err != nil {
		log.Fatal(err)
	}
	// The batch's result lists the seeds created and the rows rejected.
	var result struct {
		Created []struct {
			Line   int    `json:"line"`
			SeedID string `json:"seed_id"`
		} `json:"created"`
		Rejected []struct {
			Line   int    `json:"line"`
			Reason string `json:"reason"`
		} `json:"rejected"`
	}
	b, _ := json.Marshal(batch.Result)
	if err := json.Unmarshal(b, &result); err != nil {
		log.Fatal(err)
	}
	fmt.Println(batch.Kind, batch.Status)
	for _, cr := range result.Created {
		fmt.Println("line", cr.Line, "created", cr.SeedID)
	}
	for _, rj := range result.Rejected {
		fmt.Println("line", rj.Line, "rejected:", rj.Reason)
	}
	// Output:
	// import completed_with_errors
	// line 6 created com:sg:example.com::news
	// line 7 rejected: http_404
}

func ptr[T any](v T) *T { return &v }
