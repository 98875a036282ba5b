package web

import (
	"context"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// TestConfidenceOnlyForAgents: the reader offers to set the confidence of
// an agent's annotation, with a visible label; a person's note has no
// confidence box (it showed one, unlabelled).
func TestConfidenceOnlyForAgents(t *testing.T) {
	ts, l := newTestServer(t)
	ctx := context.Background()
	st, err := ledger.Open(ctx, l.Path(), ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u := "https://example.com/conf"
	rec := &record.Record{URL: u, CanonicalURL: u, ID: record.ItemID(u), SourceType: record.SourceArticle, Title: "Conf",
		Chunks: []record.Chunk{{Index: 0, Text: "The quokka smiles. It lives on an island.", Tokens: 10}}}
	if _, err := st.Index(ctx, rec, spec.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, err := l.Annotate(ctx, rec.ID, []record.Annotation{
		{Type: record.AnnNote, Text: "a person's note", Actor: "human"},
		{Type: record.AnnHighlight, Text: "It lives on an island.", Actor: "agent:reader", Confidence: new(0.7)},
	}, ledger.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	res, body := do(t, withCookie(mustReq(t, "GET", ts.URL+"/items/"+rec.ID, "")))
	if res.StatusCode != 200 {
		t.Fatalf("reader: %d", res.StatusCode)
	}
	var human, agent string
	for _, li := range strings.Split(body, `<li class="ann `)[1:] {
		li, _, _ = strings.Cut(li, "</li>")
		switch {
		case strings.Contains(li, "a person&#39;s note"):
			human = li
		case strings.Contains(li, "It lives on an island."):
			agent = li
		}
	}
	if human == "" || agent == "" {
		t.Fatalf("annotations not listed:\n%s", body)
	}
	if strings.Contains(human, `name="confidence"`) {
		t.Errorf("a person's note has a confidence box:\n%s", human)
	}
	if !strings.Contains(agent, `name="confidence"`) || strings.Contains(agent, `class="sr" for="conf-`) || !strings.Contains(agent, `>confidence</label>`) {
		t.Errorf("an agent's highlight has no confidence box with a visible label:\n%s", agent)
	}
}
