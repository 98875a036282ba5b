package human

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

func conf(f float64) *float64 { return &f }

func TestRecord(t *testing.T) {
	hit := &record.Record{
		ID: "ll_0123456789abcdef", CanonicalURL: "https://example.com/post", SourceType: "article",
		Title: "Agent\nmemory", PublishedAt: "2026-01-02T03:04:05Z", Tags: []string{"ai", "memory"},
		Hit: &record.Hit{Rank: 1, SavedAt: "2026-11-22T18:47:41Z",
			WhyRanked:  &record.WhyRanked{MatchedTerms: []string{"agents", "memory"}},
			Highlights: []record.Annotation{{Type: "highlight", Text: "the key claim", Actor: "agent:r", Confidence: conf(0.82)}},
			Snippets:   []record.Snippet{{Text: "Agents forget; Memory helps (agents-memory).", Page: 3}}},
		Copies: []record.Copy{{ID: "ll_1"}, {ID: "ll_2"}},
	}
	cases := []struct {
		name string
		rec  *record.Record
		want string
	}{
		{"hit", hit, ` 1. Agent memory  +2 copies
    ll_0123456789abcdef · article · 2026-01-02 · #ai #memory
    https://example.com/post
    › the key claim (agent:r 0.82)
    *Agents* forget; *Memory* helps (*agents*-*memory*). (p. 3)
`},
		{"saved hit, pinned highlight, CJK", &record.Record{ID: "ll_x", URL: "https://jp.test/", Title: "機械学習の本",
			Hit: &record.Hit{Rank: 12, SavedAt: "2026-11-22T18:47:41Z", IngestState: "saved",
				WhyRanked:  &record.WhyRanked{MatchedTerms: []string{"東京"}},
				Highlights: []record.Annotation{{Type: "highlight", Text: "pinned one", Actor: "human", Pinned: true}},
				Snippets:   []record.Snippet{{Text: "東京で機械学習を学ぶ。"}}}},
			`12. 機械学習の本
    ll_x · saved 2026-11-22 · pending: not fetched yet
    https://jp.test/
    ★ pinned one
    *東京*で機械学習を学ぶ。
`},
		{"starred, archived hit", &record.Record{ID: "ll_s", URL: "https://s.test/", Title: "Starred one", ArchivedAt: "2026-11-28T10:00:00Z",
			Reading: &record.Reading{StarredAt: "2026-11-28T09:00:00Z", Minutes: 4},
			Hit:     &record.Hit{Rank: 2, SavedAt: "2026-11-22T18:47:41Z"}},
			` 2. ★ Starred one
    ll_s · saved 2026-11-22 · archived
    https://s.test/
`},
		{"star change", &record.Record{ID: "ll_s", URL: "https://s.test/", Title: "Starred one", Change: &record.Change{Action: "star", Changed: true}},
			"starred ll_s  Starred one · https://s.test/\n"},
		{"save new", &record.Record{ID: "ll_a", URL: "https://a.test/?utm_source=x", CanonicalURL: "https://a.test/", Status: "saved",
			Save: &record.SaveResult{TagsAdded: []string{"ai"}, NoteAdded: true}},
			"saved ll_a  https://a.test/  (tags +ai; note added)\n"},
		{"save existing, nothing new", &record.Record{ID: "ll_a", CanonicalURL: "https://a.test/", Status: "parsed", Save: &record.SaveResult{Existing: true}},
			"already saved ll_a  https://a.test/  (parsed)\n"},
		{"index", &record.Record{ID: "ll_a", CanonicalURL: "https://a.test/", Title: "A", Index: &record.IndexResult{Status: "parsed", Chunks: 3}},
			"parsed  A · 3 chunks · https://a.test/\n"},
		{"error", &record.Record{URL: "https://b.test/", Error: &record.Error{Stage: "fetch", Code: "timeout", Message: "no answer\nafter 10s", Retryable: true}},
			"failed  https://b.test/  fetch: timeout: no answer after 10s (will be retried)\n"},
		{"bad line", &record.Record{Error: &record.Error{Stage: "save", Code: "bad_json", Message: "invalid character", Line: 4}},
			"failed  line 4  save: bad_json: invalid character\n"},
		{"error without url or line", &record.Record{Error: &record.Error{Stage: "index", Code: "bad_input", Message: "record has no url"}},
			"failed  (no url)  index: bad_input: record has no url\n"},
		{"status", &record.Record{ID: "ll_a", CanonicalURL: "https://a.test/", SourceType: "pdf", Title: "A", Tags: []string{"x"},
			Extra: map[string]json.RawMessage{"ingest": json.RawMessage(`{"status":"failed","attempts":2,"saved_at":"2026-11-22T18:47:41Z","chunks":0,"annotations":1,"tags":1,"last_error":{"stage":"fetch","code":"http_status","message":"503","retryable":true}}`)}},
			`A
    ll_a · pdf · failed · 2 attempts
    https://a.test/
    saved 2026-11-22 18:47
    0 chunks · 1 annotation · 1 tag · #x
    last error fetch: http_status: 503 (will be retried)
`},
		{"status with an enrichment failure", &record.Record{ID: "ll_a", CanonicalURL: "https://a.test/", Title: "A",
			Extra: map[string]json.RawMessage{"ingest": json.RawMessage(`{"status":"parsed","attempts":0,"last_enrich_error":{"stage":"enrich","code":"upstream","message":"model server answered\nHTTP 503","retryable":true,"http_status":503}}`)}},
			`A
    ll_a · parsed
    https://a.test/
    last enrich error upstream: model server answered HTTP 503
`},
		{"status without a title shows the URL once", &record.Record{ID: "ll_a", CanonicalURL: "https://a.test/",
			Extra: map[string]json.RawMessage{"ingest": json.RawMessage(`{"status":"saved","attempts":0}`)}},
			`https://a.test/
    ll_a · pending: not fetched yet
`},
		{"plain item", &record.Record{ID: "ll_a", CanonicalURL: "https://a.test/", SourceType: "article", Status: "saved"},
			"https://a.test/  ll_a · article · saved\n"},
		{"item with annotations", &record.Record{ID: "ll_a", CanonicalURL: "https://a.test/", Title: "A",
			Annotations: []record.Annotation{{ID: 7, Type: "lowlight", Text: "wrong date", Actor: "agent:r", Confidence: conf(0.4)}}},
			`A
    ll_a
    https://a.test/
    lowlight: wrong date (agent:r 0.4) #7
`},
		{"show: annotations under the status, an orphan marked", &record.Record{ID: "ll_a", CanonicalURL: "https://a.test/", Title: "A",
			Annotations: []record.Annotation{{ID: 1, Type: "highlight", Text: "kept quote", Actor: "human"},
				{ID: 2, Type: "lowlight", Text: "lost quote", Actor: "human", OrphanedAt: "2026-11-23T05:12:09Z"}},
			Extra: map[string]json.RawMessage{"ingest": json.RawMessage(`{"status":"parsed","attempts":0}`)}},
			`A
    ll_a · parsed
    https://a.test/
    highlight: kept quote #1
    lowlight: lost quote #2 [unanchored: not in the text since 2026-11-23 05:12]
`},
		{"review queue: a decayed annotation", &record.Record{ID: "ll_a", URL: "https://a.test/", Title: "A", Annotations: []record.Annotation{{ID: 4, Type: "highlight", Text: "old guess", Actor: "agent:r", Confidence: conf(0.3), Decayed: true}}},
			`A
    ll_a
    https://a.test/
    highlight: old guess (agent:r 0.3) #4 [decayed]
`},
		{"review queue: a tag", &record.Record{ID: "ll_a", URL: "https://a.test/", Title: "A", Tagged: []record.Tag{{Tag: "draft", Actor: "agent:r", Review: "rejected"}}},
			"A  #draft (agent:r) [rejected]  ll_a:draft\n"},
		{"setting", &record.Record{Setting: &record.Setting{Key: "decay", Value: json.RawMessage(`{"on":true}`), Source: "stored", UpdatedBy: "human", UpdatedAt: "2026-11-23T05:12:09Z"}},
			"decay  {\"on\":true}  (stored by human 2026-11-23 05:12)\n"},
		{"save with review decisions", &record.Record{ID: "ll_a", URL: "https://a.test/", Status: "saved", Save: &record.SaveResult{Existing: true, Reviewed: []record.ReviewDecision{{AnnotationID: 1, Decision: "confirmed"}}}},
			"updated ll_a  https://a.test/  (1 review decision(s))\n"},
		{"tag count", &record.Record{TagCount: &record.TagCount{Tag: "ai", Items: 3, ByActor: map[string]int{"agent:r": 1, "human": 2, "agent:a": 1}}},
			"#ai  3 items  (human 2, agent:a 1, agent:r 1)\n"},
		{"archived", &record.Record{ID: "ll_a", CanonicalURL: "https://a.test/", Title: "A", Change: &record.Change{Action: "archive", Changed: true}},
			"archived ll_a  A · https://a.test/\n"},
		{"already archived", &record.Record{ID: "ll_a", CanonicalURL: "https://a.test/", Title: "A", Change: &record.Change{Action: "archive"}},
			"already archived ll_a  A · https://a.test/\n"},
		{"unannotate", &record.Record{ID: "ll_a", CanonicalURL: "https://a.test/", Change: &record.Change{Action: "unannotate", Changed: true, AnnotationsRemoved: []int64{3, 4}}},
			"removed annotations from ll_a  https://a.test/ · annotation #3 #4\n"},
		{"history event", &record.Record{ID: "ll_a", Event: &record.HistoryEvent{Entity: "annotation", EntityID: strp("3"), Action: "created", Actor: "agent:r", At: "2026-11-23T05:12:09Z", Detail: json.RawMessage(`{"type":"highlight"}`)}},
			"2026-11-23 05:12  agent:r  annotation #3 created  {\"type\":\"highlight\"}\n"},
		{"control characters cannot reach the terminal", &record.Record{ID: "ll_a", CanonicalURL: "https://a.test/", Title: "evil\x1b[2Jtitle", Index: &record.IndexResult{Status: "parsed"}},
			"parsed  evil [2Jtitle · https://a.test/\n"},
	}
	for _, c := range cases {
		var b bytes.Buffer
		if err := New(&b, false).Record(c.rec); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(c.want, b.String()); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
}

// Blocks are separated by one blank line; colour wraps the title and the
// matched words only when asked.
func TestBlocksAndColour(t *testing.T) {
	var b bytes.Buffer
	r := New(&b, true)
	for i := 1; i <= 2; i++ {
		r.Record(&record.Record{Title: "T", CanonicalURL: "https://a.test/", Hit: &record.Hit{Rank: i,
			WhyRanked: &record.WhyRanked{MatchedTerms: []string{"word"}}, Snippets: []record.Snippet{{Text: "a word here"}}}})
	}
	got := b.String()
	if n := strings.Count(got, "\n\n"); n != 1 {
		t.Errorf("%d blank lines between two blocks, want 1:\n%s", n, got)
	}
	for _, want := range []string{bold + "T" + reset, "a " + marked + "word" + reset + " here"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in %q", want, got)
		}
	}
}

func TestMarkTerms(t *testing.T) {
	wrap := func(s string) string { return "[" + s + "]" }
	cases := []struct {
		s     string
		terms []string
		want  string
	}{
		{"Full-text search, searching", []string{"search", "text"}, "Full-[text] [search], searching"},
		{"Ünïcode ÜNÏCODE words", []string{"ünïcode"}, "[Ünïcode] [ÜNÏCODE] words"},
		{"no terms", nil, "no terms"},
		{"東京で東京タワー", []string{"東京", "東京タワー"}, "[東京]で[東京タワー]"},
	}
	for _, c := range cases {
		if got := markTerms(c.s, c.terms, wrap); got != c.want {
			t.Errorf("markTerms(%q, %q) = %q, want %q", c.s, c.terms, got, c.want)
		}
	}
}

func strp(s string) *string { return &s }
