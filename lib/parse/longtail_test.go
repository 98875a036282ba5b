package parse

import (
	nurl "net/url"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/record"
)

// longTailText runs extractor x (with the real extractors) on page.
func longTailText(t *testing.T, x extractor, page string) string {
	t.Helper()
	x.mt = testMainText
	u, _ := nurl.Parse("https://news.example/2024/story")
	paras, _, _ := x.mainText(mustParse(t, page), u)
	return strings.Join(paras, "\n\n")
}

// without returns the default extractor with one rule turned off.
func without(f func(*extractor)) extractor {
	x := defaultExtractor
	f(&x)
	return x
}

const storyParas = `
<p>The river authority opened the new flood gates on Monday morning, two years after the spring floods that closed the old town for a week and damaged more than four hundred houses along the embankment.</p>
<p>Engineers tested each of the six gates in turn while residents watched from the bridge. The gates can be closed in under twenty minutes, a quarter of the time the old wooden barriers took to put in place by hand.</p>
<p>The project cost less than planned because the steel was bought before prices rose, the authority said, and the money left over will pay for a warning system that sends a message to every phone in the valley.</p>
<p>Shop owners on the embankment said they would believe the gates work when they see a flood held back, but most welcomed the end of the building work that had closed the riverside road since last autumn.</p>
`

// TestDropLinkDense (B): a "Related:" line and a run of linked headlines
// inside the article body are dropped; a lone link naming the subject of a
// paragraph stays, and so do the rows of a table of links, label and all.
func TestDropLinkDense(t *testing.T) {
	page := `<html><head><title>Flood gates open</title></head><body><article><h1>Flood gates open</h1>` +
		storyParas[:strings.Index(storyParas, "<p>The project")] +
		`<p>Related: <a href="/2023/floods">Photos of the spring floods in the old town</a></p>` +
		strings.Join(strings.SplitAfter(storyParas, "</p>")[2:3], "") +
		`<p><a href="/gates-maker">Valley Steelworks gate model VS-6</a></p>
<p>The gates were made by a firm upriver, whose workers came to see them opened for the first time after months of welding in the yard.</p>
<table><tr><th><a href="/g1">Gate one</a></th><td><a href="/m1">Model VS-6</a></td></tr><tr><th><a href="/g2">Gate two</a></th><td><a href="/m2">Model VS-8</a></td></tr></table>
<p>Each gate weighs forty tonnes and hangs from a frame anchored in the river bed, so the whole set can stand against a flood twice the height of the last one.</p>
<p><a href="/a">Mayor promises new bridge by 2026</a></p>
<p><a href="/b">Bus timetable changes in the valley</a></p>
<p><a href="/c">Winter market returns to the square</a></p>` +
		strings.Join(strings.SplitAfter(storyParas, "</p>")[3:], "") +
		`</article></body></html>`
	junk := []string{"Photos of the spring floods", "Mayor promises new bridge", "Bus timetable changes", "Winter market returns"}
	before := longTailText(t, without(func(x *extractor) { x.linkDense = false }), page)
	for _, s := range junk {
		if !strings.Contains(before, s) {
			t.Fatalf("the page does not reproduce the problem: %q already dropped without the rule:\n%s", s, before)
		}
	}
	got := longTailText(t, defaultExtractor, page)
	for _, s := range junk {
		if strings.Contains(got, s) {
			t.Errorf("link line %q kept:\n%s", s, got)
		}
	}
	for _, s := range []string{"Valley Steelworks gate model VS-6", "Gate one Model VS-6", "Gate two Model VS-8", "opened the new flood gates", "believe the gates work"} {
		if !strings.Contains(got, s) {
			t.Errorf("text %q lost:\n%s", s, got)
		}
	}
}

// TestDropCards (D): a page whose story sits in a plain container that
// also holds related posts as sibling <article> cards with their own
// teaser text: the cards do not become body text.
func TestDropCards(t *testing.T) {
	card := func(i int, title string) string {
		return `<article class="c"><h3><a href="/p` + string(rune('0'+i)) + `">` + title + `</a></h3><p>` + title +
			` is the story everyone in the valley was talking about this week, with interviews, photographs and a look back at how it all began many years ago in the old town.</p></article>`
	}
	page := `<html><head><title>Flood gates open</title></head><body><div class="content"><h1>Flood gates open</h1>` + storyParas +
		card(1, "A baker wins the regional prize") + card(2, "The ferry returns after repairs") + card(3, "School choir sings in the cathedral") +
		`</div></body></html>`
	junk := []string{"A baker wins", "The ferry returns", "School choir sings"}
	before := longTailText(t, without(func(x *extractor) { x.cards = false }), page)
	n := 0
	for _, s := range junk {
		if strings.Contains(before, s) {
			n++
		}
	}
	if n == 0 {
		t.Fatalf("the page does not reproduce the problem: no card kept without the rule:\n%s", before)
	}
	got := longTailText(t, defaultExtractor, page)
	for _, s := range junk {
		if strings.Contains(got, s) {
			t.Errorf("card %q kept as body text:\n%s", s, got)
		}
	}
	if !strings.Contains(got, "opened the new flood gates") || !strings.Contains(got, "believe the gates work") {
		t.Errorf("story lost:\n%s", got)
	}
}

// leadPage has a standfirst, outside the story's container, that is also
// the page's meta description.
const leadPage = `<html><head><title>Flood gates open</title>
<meta name="description" content="After two years of building, the valley's new steel flood gates were tested in front of residents and closed in under twenty minutes.">
</head><body><header class="top"><h1>Flood gates open</h1>
<p class="standfirst">After two years of building, the valley's new steel flood gates were tested in front of residents and closed in under twenty minutes.</p>
<div class="byline">By Ana Ruiz</div></header>
<div class="story">` + storyParas + `</div></body></html>`

// TestRestoreLead (A): a lead that the extractors drop and that is the
// page's own description is put back first; without a matching
// description nothing is added.
func TestRestoreLead(t *testing.T) {
	const lead = "After two years of building, the valley's new steel flood gates"
	if got := longTailText(t, defaultExtractor, leadPage); strings.Contains(got, lead) {
		t.Fatalf("the page does not reproduce the problem: the lead is kept without the rule:\n%s", got)
	}
	x := defaultExtractor
	x.lead = true
	got := longTailText(t, x, leadPage)
	if !strings.HasPrefix(got, lead) || strings.Count(got, lead) != 1 || !strings.Contains(got, "believe the gates work") {
		t.Errorf("lead not restored first, once:\n%s", got)
	}
	// A description that says something else restores nothing.
	other := strings.Replace(leadPage, `content="After two years`, `content="News, weather and sport from the valley, every day of the year for readers everywhere. After two years`, 1)
	if got := longTailText(t, x, other); strings.Contains(got, lead) {
		t.Errorf("a block that is not the description was restored:\n%s", got)
	}
}

// TestDropBoilerLines (F): copyright, subscribe and share lines inside the
// article go; a section heading and the story stay.
func TestDropBoilerLines(t *testing.T) {
	page := `<html><head><title>Flood gates open</title></head><body><article><h1>Flood gates open</h1>` +
		strings.Join(strings.SplitAfter(storyParas, "</p>")[:2], "") +
		`<p>Subscribe to our newsletter for the latest updates from the valley.</p><h2>What the gates cost</h2>` +
		strings.Join(strings.SplitAfter(storyParas, "</p>")[2:], "") +
		`<p>Share this article on social media</p><p>© 2024 Valley Courier. All rights reserved.</p>
</article></body></html>`
	junk := []string{"Subscribe to our newsletter", "Share this article", "All rights reserved"}
	before := longTailText(t, without(func(x *extractor) { x.boiler = false }), page)
	for _, s := range junk {
		if !strings.Contains(before, s) {
			t.Fatalf("the page does not reproduce the problem: %q already dropped without the rules:\n%s", s, before)
		}
	}
	got := longTailText(t, defaultExtractor, page)
	for _, s := range junk {
		if strings.Contains(got, s) {
			t.Errorf("%q kept:\n%s", s, got)
		}
	}
	if !strings.Contains(got, "What the gates cost\n\nThe project cost less") || !strings.HasSuffix(got, "since last autumn.") {
		t.Errorf("section heading or story lost:\n%s", got)
	}
}

// poemPage is a page alternating a poem's Chinese lines with their
// romanisation as ruby annotations: trafilatura keeps the Chinese lines
// (one paragraph), readability interleaves them with the pinyin.
const poemPage = `<html lang="en"><head><title>Quiet Night Thought</title></head><body>
<nav><a href="/">Home</a> <a href="/poems">Poems</a></nav><article><h1>Quiet Night Thought</h1>
<p>An introduction to a famous poem, with the original text and its pinyin for learners of Chinese.</p>
<p><ruby>床前明月光，<rt>Chuáng qián míng yuè guāng,</rt></ruby><br><ruby>疑是地上霜。<rt>Yí shì dì shàng shuāng.</rt></ruby><br>
<ruby>举头望明月，<rt>Jǔ tóu wàng míng yuè,</rt></ruby><br><ruby>低头思故乡。<rt>Dī tóu sī gù xiāng.</rt></ruby></p>
<p>This short poem by Li Bai is one of the best known in Chinese. The poet sees moonlight before his bed and takes it for frost on the ground; raising his head he looks at the bright moon, lowering it he thinks of his home village.</p>
<p>The poem uses five characters per line, a form called wujue. Its vocabulary is plain, which explains much of its popularity over twelve centuries of readers and translators.</p>
</article></body></html>`

// TestKeepsCJKLines: every Chinese line of the poem stays in the text
// (before the fix the agreement filter dropped all four: their word
// 3-grams join clauses that readability had set apart with the pinyin).
func TestKeepsCJKLines(t *testing.T) {
	got := longTailText(t, defaultExtractor, poemPage)
	for _, s := range []string{"床前明月光", "疑是地上霜", "举头望明月", "低头思故乡", "one of the best known"} {
		if !strings.Contains(got, s) {
			t.Errorf("line %q lost:\n%s", s, got)
		}
	}
	// the rule is about CJK words: a Latin paragraph readability lacks still goes
	primary := []string{"床前明月光，\n疑是地上霜。\n举头望明月，\n低头思故乡。", "Read more stories from our poetry desk every week"}
	check := []string{"床前明月光，Chuáng qián míng yuè guāng,\n疑是地上霜。Yí shì dì shàng shuāng.\n举头望明月，Jǔ tóu wàng míng yuè,\n低头思故乡。Dī tóu sī gù xiāng."}
	if got := agreeFilter(primary, check, 0.5, 0.2); len(got) != 1 || got[0] != primary[0] {
		t.Errorf("agreeFilter = %q, want the poem only", got)
	}
	// nor does a Chinese paragraph whose clauses the check text lacks
	if got := agreeFilter([]string{primary[0], "今天天气很好，我们去公园散步，然后回家吃饭。"}, check, 0.5, 0.2); len(got) != 1 {
		t.Errorf("agreeFilter kept a Chinese paragraph not in the check text: %q", got)
	}
}

// benchTable is a 4×4 benchmark table whose cells wrap their text in <p>
// (as many editors write them): a row's label and values are one line.
const benchTable = `<html><head><title>Startup benchmark</title></head><body><nav><a href="/">Home</a></nav><article><h1>Startup benchmark</h1>
<p>We ran the three languages through the same start-up test on one laptop, five times each, and kept the median of the runs. The machine had eight cores and nothing else ran during the tests.</p>
<table><tr><td><p></p></td><td><p>Go</p></td><td><p>Rust</p></td><td><p>Python</p></td></tr>
<tr><td><p>Startup</p></td><td><p>2 ms</p></td><td><p>1 ms</p></td><td><p>30 ms</p></td></tr>
<tr><td><div>Memory</div></td><td><div>8 MB</div></td><td><div>2 MB</div></td><td><div>20 MB</div></td></tr>
<tr><th><p>Build</p></th><td><p>3 s</p></td><td><p>40 s</p></td><td><p>0 s</p></td></tr></table>
<p>Rust starts fastest because it has no runtime to set up, while Python pays for its interpreter and the imports of the standard library before the first line runs.</p>
<p>All scripts used for these runs are in the repository, along with the raw numbers of every run.</p>
</article></body></html>`

// TestKeepsTableRows: each row of the table is one line of the text,
// its label first, and the structure keeps the table's cells (before the
// fix each cell was its own paragraph, a row's label apart from its values).
func TestKeepsTableRows(t *testing.T) {
	s := benchTable
	rec := &record.Record{URL: "https://example.com/bench", Body: &s, Fetch: &record.FetchInfo{ContentType: "text/html"}}
	Run(rec, generic(), Options{})
	if rec.Error != nil {
		t.Fatal(rec.Error)
	}
	txt := rec.TextValue()
	for _, row := range []string{"Go Rust Python", "Startup 2 ms 1 ms 30 ms", "Memory 8 MB 2 MB 20 MB", "Build 3 s 40 s 0 s"} {
		if !strings.Contains(txt, "\n\n"+row+"\n\n") {
			t.Errorf("row %q is not a paragraph of the text:\n%s", row, txt)
		}
	}
	for _, cells := range []string{"| Startup | 2 ms | 1 ms | 30 ms  |", "| Memory  | 8 MB | 2 MB | 20 MB  |", "| Build   | 3 s  | 40 s | 0 s    |"} {
		if !strings.Contains(rec.Markdown, cells) {
			t.Errorf("markdown lacks the row %q:\n%s", cells, rec.Markdown)
		}
	}
	// a long cell (a layout table) keeps its paragraphs apart
	got := textBlocks(mustParse(t, `<table><tr><td><p>`+strings.Repeat("word ", 50)+`</p><p>second paragraph</p></td></tr></table>`), nil, false)
	if len(got) != 2 {
		t.Errorf("layout cell: %d blocks, want 2: %q", len(got), got)
	}
}

// TestDropBoxHeadings (F): the heading of a "Trending" box inside the
// article, and of a "More from" box of teasers at its end, are dropped
// with their items; a heading that names such a box but heads the
// article's own text stays.
func TestDropBoxHeadings(t *testing.T) {
	links := func(heads ...string) string {
		var b strings.Builder
		for i, h := range heads {
			b.WriteString(`<p><a href="/s` + string(rune('0'+i)) + `">` + h + `</a></p>`)
		}
		return b.String()
	}
	teasers := func(heads ...string) string {
		var b strings.Builder
		for i, h := range heads {
			b.WriteString(`<div><h3><a href="/t` + string(rune('0'+i)) + `">` + h + `</a></h3><p>` + h + ` was the talk of the town this week.</p></div>`)
		}
		return b.String()
	}
	page := `<html><head><title>Flood gates open</title></head><body><main><article><h1>Flood gates open</h1>` +
		strings.Join(strings.SplitAfter(storyParas, "</p>")[:2], "") +
		`<h2>Trending</h2>` + links("Mayor promises new bridge by 2026", "Bus timetable changes in the valley", "Winter market returns to the square") +
		strings.Join(strings.SplitAfter(storyParas, "</p>")[2:], "") +
		`<h2>Related: what the gates cost</h2><p>The gates cost eleven million, of which the valley towns paid a fifth and the state the rest, after a vote that took three rounds in the council.</p>` +
		`<h2>More from News</h2>` + teasers("Council votes on parking fees", "School choir sings in the cathedral", "Ferry returns after repairs") +
		`</article></main></body></html>`
	before := longTailText(t, without(func(x *extractor) { x.boxHeads = false }), page)
	for _, s := range []string{"Trending", "More from News"} {
		if !strings.Contains(before, s) {
			t.Fatalf("the page does not reproduce the problem: %q already dropped without the rule:\n%s", s, before)
		}
	}
	got := longTailText(t, defaultExtractor, page)
	for _, s := range []string{"Trending", "More from News", "Mayor promises", "Council votes"} {
		if strings.Contains(got, s) {
			t.Errorf("box line %q kept:\n%s", s, got)
		}
	}
	for _, s := range []string{"Related: what the gates cost", "eleven million", "opened the new flood gates", "believe the gates work"} {
		if !strings.Contains(got, s) {
			t.Errorf("text %q lost:\n%s", s, got)
		}
	}
}
