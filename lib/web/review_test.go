package web

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
)

// TestReviewBatch: the checked annotations of the queue are decided in
// one post, by human; a bad value is refused.
func TestReviewBatch(t *testing.T) {
	ts, l := newTestServer(t)
	ctx := context.Background()
	saved, err := l.Save(ctx, &record.Record{URL: "https://example.com/batch"}, ledger.SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := 0.7
	out, err := l.Annotate(ctx, saved.ID, []record.Annotation{
		{Type: record.AnnNote, Text: "first", Actor: "agent:t", Confidence: &c},
		{Type: record.AnnNote, Text: "second", Actor: "agent:t", Confidence: &c},
		{Type: record.AnnNote, Text: "third", Actor: "agent:t", Confidence: &c},
	}, ledger.SaveOptions{Actor: "agent:t"})
	if err != nil {
		t.Fatal(err)
	}
	ids := out.Save.AnnotationIDs
	res, body := do(t, withCookie(mustReq(t, "GET", ts.URL+"/review", "")))
	if res.StatusCode != 200 || strings.Count(body, `name="ann"`) != 3 {
		t.Fatalf("queue: %d, %d checkboxes\n%s", res.StatusCode, strings.Count(body, `name="ann"`), body)
	}
	form := url.Values{"decision": {"reject"}, "ann": {fmt.Sprintf("%s:%d", saved.ID, ids[0]), fmt.Sprintf("%s:%d", saved.ID, ids[2])}}
	if res, body := do(t, withCookie(mustReq(t, "POST", ts.URL+"/review/batch", form.Encode()))); res.StatusCode != 303 {
		t.Fatalf("batch: %d\n%s", res.StatusCode, body)
	}
	show, err := l.Show(ctx, saved.ID, ledger.ShowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, a := range show.Annotations {
		got[a.Text] = a.Review
	}
	if got["first"] != "rejected" || got["second"] != "" || got["third"] != "rejected" {
		t.Errorf("after the batch: %v", got)
	}
	for _, bad := range []url.Values{
		{"decision": {"reject"}},
		{"decision": {"maybe"}, "ann": {fmt.Sprintf("%s:%d", saved.ID, ids[1])}},
		{"decision": {"confirm"}, "ann": {"x:1"}},
		{"decision": {"confirm"}, "ann": {saved.ID + ":999999"}},
	} {
		if res, _ := do(t, withCookie(mustReq(t, "POST", ts.URL+"/review/batch", bad.Encode()))); res.StatusCode != 400 {
			t.Errorf("%v: %d, want 400", bad, res.StatusCode)
		}
	}
}
