package web

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// TestReaderParts: a long text is read in parts of readerPart paragraphs
// with links between them; a highlight is marked in place in its part.
func TestReaderParts(t *testing.T) {
	ts, l := newTestServer(t)
	ctx := context.Background()
	st, err := ledger.Open(ctx, l.Path(), ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u := "https://example.com/long"
	rec := &record.Record{URL: u, CanonicalURL: u, ID: record.ItemID(u), SourceType: record.SourceArticle, Title: "Long"}
	for c := 0; c < 70; c++ {
		var ps []string
		for p := 0; p < 10; p++ {
			ps = append(ps, fmt.Sprintf("Paragraph %d of the long text.", c*10+p))
		}
		rec.Chunks = append(rec.Chunks, record.Chunk{Index: c, Text: strings.Join(ps, "\n\n"), Tokens: 80})
	}
	if _, err := st.Index(ctx, rec, spec.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, err := l.Annotate(ctx, rec.ID, []record.Annotation{{Type: record.AnnHighlight, Text: "Paragraph 650 of the long text.", Actor: "human"}}, ledger.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	get := func(q string) string {
		res, body := do(t, withCookie(mustReq(t, "GET", ts.URL+"/items/"+rec.ID+q, "")))
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d", q, res.StatusCode)
		}
		return body
	}
	one := get("")
	if !strings.Contains(one, "part 1 of 3") || !strings.Contains(one, `href="?part=2"`) || strings.Contains(one, "Paragraph 300 of") || !strings.Contains(one, "Paragraph 299 of") {
		t.Errorf("part 1 is not the first 300 paragraphs with a link to part 2")
	}
	three := get("?part=3")
	if !strings.Contains(three, "part 3 of 3") || strings.Contains(three, `rel="next"`) || !strings.Contains(three, `human" data-ann=`) {
		t.Errorf("part 3: no highlight marked in place, or a next link")
	}
	if !strings.Contains(get("?part=99"), "part 3 of 3") {
		t.Errorf("a part past the end is not the last")
	}
}
