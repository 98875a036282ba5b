package parse

import (
	"fmt"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/record"
)

// benchPage builds an article page of about 50 KB the way news sites lay
// them out: head metadata and scripts, a navigation bar, the article with
// headings, paragraphs, a list, a table and a figure, an aside of related
// links, comments and a footer.
func benchPage() string {
	subjects := []string{"The harbour authority", "A group of volunteers", "The new ferry line", "Local fishermen", "The weather service", "City planners", "The night market", "Engineers on the bridge"}
	verbs := []string{"reported", "argued", "measured", "announced", "questioned", "described", "confirmed", "estimated"}
	objects := []string{"a rise in visitors over the summer", "that the old pier needs repairs before winter", "how tides shape the shoreline every decade", "a plan to light the promenade with solar lamps", "the cost of dredging the northern channel", "why the gulls returned to the lighthouse", "a quieter season for the coastal trains", "new rules for boats anchoring near the beach"}
	sentence := func(i int) string {
		return fmt.Sprintf("%s %s %s, according to notes from meeting %d.", subjects[i%len(subjects)], verbs[(i/3)%len(verbs)], objects[(i/7)%len(objects)], i)
	}
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Coastal town weighs its future | Harbour Herald</title>
<meta property="og:title" content="Coastal town weighs its future"><meta property="og:site_name" content="Harbour Herald">
<meta property="article:published_time" content="2024-05-02T06:00:00Z"><meta name="author" content="Mara Lind">
<script type="application/ld+json">{"@type":"NewsArticle","headline":"Coastal town weighs its future","author":{"name":"Mara Lind"},"datePublished":"2024-05-02T06:00:00Z"}</script>
<script>var analytics = {queue: []}; function track(e){ analytics.queue.push(e); }</script>
<style>body{font-family:serif} .ad{margin:1em}</style></head><body>
<header><a href="/">Harbour Herald</a><nav><ul>`)
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, `<li><a href="/section/%d">Section %d</a></li>`, i, i)
	}
	b.WriteString(`</ul></nav></header><main><article><h1>Coastal town weighs its future</h1><p class="byline">By Mara Lind</p>`)
	s := 0
	for sec := 0; sec < 18; sec++ {
		fmt.Fprintf(&b, "<h2>Part %d of the debate</h2>\n", sec+1)
		for p := 0; p < 4; p++ {
			b.WriteString("<p>")
			for k := 0; k < 5; k++ {
				if k == 2 {
					fmt.Fprintf(&b, `<a href="/story/%d">%s</a> `, s, sentence(s))
				} else {
					b.WriteString(sentence(s) + " ")
				}
				s++
			}
			b.WriteString("</p>\n")
		}
		if sec%4 == 1 {
			b.WriteString(`<div class="ad">Advertisement: harbour cruises every afternoon, book now.</div>`)
		}
		if sec == 5 {
			b.WriteString("<ul><li>Repair the pier</li><li>Light the promenade</li><li>Dredge the channel</li></ul>")
			b.WriteString("<table><tr><th>Year</th><th>Visitors</th></tr><tr><td>2022</td><td>41,000</td></tr><tr><td>2023</td><td>47,500</td></tr></table>")
			b.WriteString(`<figure><img src="/pier.jpg" alt="The pier"><figcaption>The old pier at low tide.</figcaption></figure>`)
		}
	}
	b.WriteString(`</article><aside><h3>Most read</h3><ul>`)
	for i := 0; i < 15; i++ {
		fmt.Fprintf(&b, `<li><a href="/most/%d">Most read story number %d</a></li>`, i, i)
	}
	b.WriteString(`</ul></aside><section class="comments"><h3>Comments</h3>`)
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, `<div class="comment"><span class="user">reader%d</span><p>Comment %d: I walk there every morning.</p></div>`, i, i)
	}
	b.WriteString(`</section></main><footer><p>© 2024 Harbour Herald</p><a href="/privacy">Privacy</a></footer></body></html>`)
	return b.String()
}

func TestBenchPageParses(t *testing.T) {
	page := benchPage()
	if len(page) < 40<<10 || len(page) > 70<<10 {
		t.Fatalf("bench page is %d bytes, want about 50 KB", len(page))
	}
	rec := fetched("https://herald.example/2024/future", "text/html", page)
	Run(rec, generic(), Options{})
	if rec.Error != nil || rec.Parse.Adapter != "article" {
		t.Fatalf("error %+v parse %+v", rec.Error, rec.Parse)
	}
	text := rec.TextValue()
	if !strings.Contains(text, "notes from meeting 359.") || strings.Contains(text, "Most read story") || strings.Contains(text, "Section 12") {
		t.Errorf("bench page extraction is off: %d chars", len(text))
	}
}

// BenchmarkParseArticle measures a whole parse of a 50 KB article page
// (extraction, metadata, normalisation, chunking); pages/s is reported.
func BenchmarkParseArticle(b *testing.B) {
	page := benchPage()
	adapters := generic()
	b.SetBytes(int64(len(page)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		body := page
		rec := &record.Record{URL: "https://herald.example/2024/future", Fetch: &record.FetchInfo{ContentType: "text/html"}, Body: &body}
		Run(rec, adapters, Options{})
		if rec.Error != nil {
			b.Fatal(rec.Error)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
}
