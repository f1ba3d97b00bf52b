package simweb

import (
	"fmt"
	"hash/fnv"
	"html"
	"math/rand/v2"
	"strings"
	"time"
)

// Article pages as newsrooms write them (ArticleCases.Text): a headline,
// a byline, a dateline with the publisher's time zone, JSON-LD and
// OpenGraph about the story, navigation, a related-stories rail and a
// footer around paragraphs of text no other story shares; every
// SyndicateEvery-th story is a wire story that runs on every publisher
// with the same text (its own headline and chrome around it), and every
// VideoEvery-th is a video page, a player and a caption, which is no
// article.

// words is the vocabulary of the generated text: common English words,
// so that the text reads as English to a language guess.
var words = strings.Fields(`the council said on monday that the new budget would raise spending on schools hospitals and roads
after months of talks with unions and business groups across the country officials expect the plan to pass
before the end of the year although critics warn that costs could rise if interest rates stay high
residents in the northern district told reporters they had waited years for the bridge to be repaired
police said the investigation was continuing and asked witnesses to come forward with any information
the minister of health announced a programme to train more nurses and doctors in rural areas
farmers reported a strong harvest this season thanks to steady rain and lower prices for fuel
the central bank kept its main rate unchanged while inflation eased for a third straight month
exports of electronics grew faster than expected as demand from overseas buyers recovered
the festival drew thousands of visitors to the old town where music and food stalls lined the streets
scientists at the national university published a study on coastal erosion and rising sea levels
the team won the final in extra time after a late goal from its young captain
voters will choose a new mayor in a contest that polls suggest remains close
the company plans to open a factory next spring creating hundreds of jobs in the region
teachers welcomed the decision but said more support was needed for students with special needs
heavy traffic was expected over the holiday weekend as families travel to visit relatives
the museum reopened its main hall after a long renovation funded by private donors
officials confirmed that water supplies had returned to normal in most neighbourhoods
the court adjourned the hearing until next week to allow lawyers to review new evidence
analysts said the merger would reshape the market for mobile phone services`)

// storyText is n paragraphs of sentences drawn by seed.
func storyText(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	out := make([]string, n)
	for k := range out {
		var b strings.Builder
		for s := range 3 + r.IntN(3) {
			if s > 0 {
				b.WriteByte(' ')
			}
			m := 8 + r.IntN(12)
			for w := range m {
				word := words[r.IntN(len(words))]
				if w == 0 {
					word = strings.ToUpper(word[:1]) + word[1:]
				} else {
					b.WriteByte(' ')
				}
				b.WriteString(word)
			}
			b.WriteByte('.')
		}
		out[k] = b.String()
	}
	return out
}

func hashSeed(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		_, _ = h.Write([]byte(p))
		_, _ = h.Write([]byte{0})
	}
	return h.Sum64()
}

// Syndicated reports whether article i is a wire story, and which.
func (a ArticleCases) Syndicated(i int) (story int, ok bool) {
	if a.SyndicateEvery > 0 && i%a.SyndicateEvery == 4 {
		return i / a.SyndicateEvery, true
	}
	return 0, false
}

// Video reports whether article i is a video page.
func (a ArticleCases) Video(i int) bool {
	return a.VideoEvery > 0 && i%a.VideoEvery == 6
}

// StoryParagraphs are the paragraphs of article i's text, as a reader
// sees them (nil for a video page).
func (p *Publisher) StoryParagraphs(i int) []string {
	if p.Articles.Video(i) {
		return nil
	}
	if story, ok := p.Articles.Syndicated(i); ok {
		return storyText(hashSeed("wire", fmt.Sprint(story)), 7)
	}
	return storyText(hashSeed(p.Host, fmt.Sprint(i)), 5+int(hashSeed(p.Host, "n", fmt.Sprint(i))%6))
}

// Author is the byline of article i ("" for a video page).
func (p *Publisher) Author(i int) string {
	if p.Articles.Video(i) {
		return ""
	}
	if _, ok := p.Articles.Syndicated(i); ok {
		return "Wire Staff"
	}
	first := []string{"Aisha", "Ben", "Chen", "Divya", "Elena", "Farid", "Grace", "Hiro"}
	last := []string{"Tan", "Okafor", "Lim", "Novak", "Rahman", "Silva", "Weber", "Ng"}
	h := hashSeed(p.Host, "author", fmt.Sprint(i))
	return first[h%8] + " " + last[(h>>8)%8]
}

// Headline is article i's title.
func (p *Publisher) Headline(i int) string {
	r := rand.New(rand.NewPCG(hashSeed(p.Host, "title", fmt.Sprint(i)), 1))
	var b strings.Builder
	for w := range 6 + r.IntN(4) {
		if w > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	t := b.String()
	if p.Articles.Video(i) {
		t = "Watch: " + t
	}
	return strings.ToUpper(t[:1]) + t[1:]
}

// newsroomPage is article i's page with Articles.Text.
func (p *Publisher) newsroomPage(i int) string {
	esc := html.EscapeString
	loc := time.FixedZone("+08:00", 8*3600)
	at := p.PublishedAt(i).In(loc).Format(time.RFC3339)
	title, author := p.Headline(i), p.Author(i)
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>%s | %s</title>`+"\n", esc(title), esc(p.Host))
	fmt.Fprintf(&b, `<link rel="canonical" href="%s">`+"\n", p.ArticleURL(i))
	kind := "article"
	if p.Articles.Video(i) {
		kind = "video.other"
	}
	fmt.Fprintf(&b, `<meta property="og:type" content="%s"><meta property="og:title" content="%s"><meta property="og:site_name" content="%s">`+"\n",
		kind, esc(title), esc(p.Host))
	if !p.Articles.Video(i) {
		fmt.Fprintf(&b, `<meta property="article:published_time" content="%s"><meta property="article:section" content="Nation">`+"\n", at)
		fmt.Fprintf(&b, `<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":%q,"datePublished":%q,"author":{"@type":"Person","name":%q}}</script>`+"\n",
			title, at, author)
	}
	b.WriteString(`</head><body><header class="site"><a href="/">` + esc(p.Host) + `</a><nav><ul><li><a href="/news/">News</a></li><li><a href="/business/">Business</a></li><li><a href="/sport/">Sport</a></li><li><a href="/opinion/">Opinion</a></li></ul></nav></header>` + "\n")
	b.WriteString(`<main><article>`)
	fmt.Fprintf(&b, `<h1>%s</h1>`, esc(title))
	if p.Articles.Video(i) {
		b.WriteString(`<div class="player"><video src="/media/clip.mp4" controls></video></div><p class="caption">A short clip from the scene.</p>`)
	} else {
		fmt.Fprintf(&b, `<p class="byline">By <span class="author">%s</span></p><p class="dateline"><time datetime="%s">%s</time></p>`+"\n",
			esc(author), at, p.PublishedAt(i).In(loc).Format("2 January 2006, 3:04 pm"))
		for _, para := range p.StoryParagraphs(i) {
			b.WriteString("<p>" + esc(para) + "</p>\n")
		}
	}
	b.WriteString(`</article><aside class="related"><h2>Related stories</h2><ul>`)
	for k := 1; k <= 4; k++ {
		if j := i - k; j >= 0 {
			fmt.Fprintf(&b, `<li><a href="%s">%s</a></li>`, p.ArticleURL(j), esc(p.Headline(j)))
		}
	}
	b.WriteString(`</ul></aside></main><footer><p>Copyright ` + esc(p.Host) + `. All rights reserved.</p><ul><li><a href="/about">About us</a></li><li><a href="/privacy">Privacy</a></li><li><a href="/contact">Contact</a></li></ul></footer></body></html>`)
	return b.String()
}
