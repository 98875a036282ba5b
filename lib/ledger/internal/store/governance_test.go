package store

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

// tagsOf lists an item's tags as "tag actor review".
func tagsOf(t *testing.T, s *Store, id string) []string {
	t.Helper()
	rec, err := s.Show(context.Background(), id, ShowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tg := range rec.Tagged {
		out = append(out, tg.Tag+" "+tg.Actor+" "+tg.Review)
	}
	return out
}

// tagEvents lists the item's tag events as "tag action actor".
func tagEvents(t *testing.T, s *Store, id string) []string {
	t.Helper()
	hist, err := s.History(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range hist {
		if e.Entity == "tag" {
			out = append(out, *e.EntityID+" "+e.Action+" "+e.Actor)
		}
	}
	return out
}

func saveTags(t *testing.T, s *Store, url, actor string, tags, remove []string) *record.Record {
	t.Helper()
	rec := item(url)
	rec.Actor, rec.Tags, rec.TagsRemove = actor, tags, remove
	out, err := s.Save(context.Background(), rec, SaveOptions{})
	if err != nil {
		t.Fatalf("save %v -%v by %s: %v", tags, remove, actor, err)
	}
	return out
}

func TestReviewTags(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openAt(t, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	url := "https://review.test/newts"
	id := record.ItemID(url)
	saveTags(t, s, url, "agent:a", []string{"amphibians", "draft"}, nil)
	saveTags(t, s, url, ActorHuman, []string{"mine"}, nil)
	addDocs(t, s, doc{url: url, title: "Newts", chunks: []string{"Newts regrow limbs."}, anns: []record.Annotation{
		{Type: "highlight", Text: "regrow limbs", Actor: "agent:a", Confidence: conf(0.6)},
	}})

	// the queue holds the agent's annotation, then its two tags; not the person's tag
	// (tags added at the same time: by name)
	if diff := cmp.Diff([]string{"regrow limbs", "tag:amphibians", "tag:draft"}, queueTexts(t, s)); diff != "" {
		t.Fatalf("queue (-want +got):\n%s", diff)
	}

	rec, err := s.Review(ctx, ReviewDecision{ItemID: id, Tag: "Amphibians", Decision: ReviewConfirmed}, ActorHuman)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Tagged) == 1 && rec.Tagged[0].Version == "" {
		t.Error("the confirmed tag has no version")
	} else if len(rec.Tagged) == 1 {
		rec.Tagged[0].Version = "" // a digest: TestReviewStale (lib/ledger) checks it
	}
	if diff := cmp.Diff([]record.Tag{{Tag: "amphibians", Actor: "agent:a", CreatedAt: "2026-03-01T00:00:00Z", Review: ReviewConfirmed}}, rec.Tagged); diff != "" {
		t.Errorf("confirmed tag (-want +got):\n%s", diff)
	}
	var by, at string
	if err := s.DB().QueryRow(`SELECT reviewed_by, reviewed_at FROM tags WHERE item_id = ? AND tag = 'amphibians'`, id).Scan(&by, &at); err != nil || by != ActorHuman || at != "2026-03-01T00:00:00Z" {
		t.Errorf("confirmed tag's reviewer %q at %q (%v)", by, at, err)
	}
	if _, err := s.Review(ctx, ReviewDecision{ItemID: id, Tag: "draft", Decision: ReviewRejected}, ActorHuman); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"amphibians agent:a confirmed", "mine human "}, tagsOf(t, s, id)); diff != "" {
		t.Errorf("tags after review (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"regrow limbs"}, queueTexts(t, s)); diff != "" {
		t.Errorf("queue after review (-want +got):\n%s", diff)
	}
	// the rejected tag no longer filters the item in
	res := searchExact(t, s, SearchOptions{Filter: Filter{Tags: []string{"draft"}}})
	if len(res.Hits) != 0 {
		t.Errorf("rejected tag still finds the item: %d hits", len(res.Hits))
	}

	// an agent adding the rejected tag again adds nothing
	out := saveTags(t, s, url, "agent:b", []string{"draft"}, nil)
	if len(out.Save.TagsAdded) != 0 {
		t.Errorf("agent re-added a rejected tag: %v", out.Save.TagsAdded)
	}
	if diff := cmp.Diff([]string{"amphibians agent:a confirmed", "mine human "}, tagsOf(t, s, id)); diff != "" {
		t.Errorf("tags after the agent's re-add (-want +got):\n%s", diff)
	}
	// nor can it confirm it, or remove what a person confirmed or added
	if _, err := s.Review(ctx, ReviewDecision{ItemID: id, Tag: "draft", Decision: ReviewConfirmed}, "agent:b"); err == nil {
		t.Error("agent confirmed a tag")
	}
	for _, tag := range []string{"amphibians", "mine"} {
		rec := item(url)
		rec.Actor, rec.TagsRemove = "agent:b", []string{tag}
		var re *record.Error
		if _, err := s.Save(ctx, rec, SaveOptions{}); !errors.As(err, &re) || re.Code != record.CodeBadInput {
			t.Errorf("agent removing %s: %v", tag, err)
		}
	}
	// confirming the rejected tag puts it back, as the agent had added it
	if _, err := s.Review(ctx, ReviewDecision{ItemID: id, Tag: "draft", Decision: ReviewConfirmed}, ActorHuman); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"amphibians agent:a confirmed", "draft agent:a confirmed", "mine human "}, tagsOf(t, s, id)); diff != "" {
		t.Errorf("tags after restoring (-want +got):\n%s", diff)
	}
	want := []string{
		"amphibians added agent:a", "draft added agent:a", "mine added human",
		"amphibians confirmed human", "draft rejected human", "draft confirmed human",
	}
	if diff := cmp.Diff(want, tagEvents(t, s, id)); diff != "" {
		t.Errorf("tag history (-want +got):\n%s", diff)
	}
	// unknown tags and items are not found
	var re *record.Error
	if _, err := s.Review(ctx, ReviewDecision{ItemID: id, Tag: "nope", Decision: ReviewRejected}, ActorHuman); !errors.As(err, &re) || re.Code != record.CodeNotFound {
		t.Errorf("unknown tag: %v", err)
	}
	if _, err := s.Review(ctx, ReviewDecision{ItemID: record.ItemID("https://review.test/none"), Tag: "x", Decision: ReviewRejected}, ActorHuman); !errors.As(err, &re) || re.Code != record.CodeNotFound {
		t.Errorf("unknown item: %v", err)
	}
	integrityOK(t, s)
}

func TestPersonAddingRejectedTag(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	url := "https://review.test/toads"
	id := record.ItemID(url)
	saveTags(t, s, url, "agent:a", []string{"warts", "ponds"}, nil)
	if _, err := s.Review(context.Background(), ReviewDecision{ItemID: id, Tag: "warts", Decision: ReviewRejected}, ActorHuman); err != nil {
		t.Fatal(err)
	}
	// a person adding a rejected tag brings it back as theirs; adding an
	// agent's unreviewed tag confirms it
	out := saveTags(t, s, url, ActorHuman, []string{"warts", "ponds"}, nil)
	if diff := cmp.Diff([]string{"warts"}, out.Save.TagsAdded); diff != "" {
		t.Errorf("tags added (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"ponds agent:a confirmed", "warts human "}, tagsOf(t, s, id)); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
	// the rejection is gone: an agent's later add of it is a no-op, not
	// a refusal, and the person's tag stays
	saveTags(t, s, url, "agent:a", []string{"warts"}, nil)
	if diff := cmp.Diff([]string{"ponds agent:a confirmed", "warts human "}, tagsOf(t, s, id)); diff != "" {
		t.Errorf("tags after the agent (-want +got):\n%s", diff)
	}
	// an agent may still remove its own unreviewed tags
	saveTags(t, s, url, "agent:a", []string{"guess"}, nil)
	out = saveTags(t, s, url, "agent:a", nil, []string{"guess"})
	if diff := cmp.Diff([]string{"guess"}, out.Save.TagsRemoved); diff != "" {
		t.Errorf("agent removing its own tag (-want +got):\n%s", diff)
	}
}

func TestReviewAgentLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	url := "https://review.test/voles"
	id := record.ItemID(url)
	rec := item(url)
	rec.Annotations = []record.Annotation{
		{Type: "highlight", Text: "voles dig", Actor: "agent:a", Confidence: conf(0.4)},
		{Type: "highlight", Text: "voles eat roots", Actor: "agent:a", Confidence: conf(0.5)},
		{Type: "highlight", Text: "a person's", Actor: ActorHuman},
	}
	out, err := s.Save(ctx, rec, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dig, roots, mine := out.Save.AnnotationIDs[0], out.Save.AnnotationIDs[1], out.Save.AnnotationIDs[2]
	tr, fa := true, false
	// a person re-scores one and pins the other
	if _, err := s.Review(ctx, ReviewDecision{AnnotationID: dig, Confidence: conf(0.9)}, ActorHuman); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Review(ctx, ReviewDecision{AnnotationID: roots, Pinned: &tr}, ActorHuman); err != nil {
		t.Fatal(err)
	}
	refused := []struct {
		name string
		d    ReviewDecision
	}{
		{"confirm", ReviewDecision{AnnotationID: roots, Decision: ReviewConfirmed}},
		{"reject", ReviewDecision{AnnotationID: roots, Decision: ReviewRejected}},
		{"re-score a person's score", ReviewDecision{AnnotationID: dig, Confidence: conf(0.1)}},
		{"unpin a person's pin", ReviewDecision{AnnotationID: roots, Pinned: &fa}},
		{"pin a person's highlight", ReviewDecision{AnnotationID: mine, Pinned: &tr}},
	}
	for _, c := range refused {
		var re *record.Error
		if _, err := s.Review(ctx, c.d, "agent:a"); !errors.As(err, &re) || re.Code != record.CodeBadInput {
			t.Errorf("agent %s: %v", c.name, err)
		}
	}
	// nor through a record's pin and unpin
	un := item(url)
	un.Actor, un.Unpin = "agent:a", []int64{roots}
	if _, err := s.Save(ctx, un, SaveOptions{}); err == nil {
		t.Error("agent unpinned a person's pin through unpin")
	}
	shown, err := s.Show(ctx, id, ShowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range shown.Annotations {
		got = append(got, a.Text+" "+fmtConf(a.Confidence)+" "+map[bool]string{true: "pinned", false: "-"}[a.Pinned]+" "+a.Review)
	}
	want := []string{"voles dig 0.9 - ", "voles eat roots 0.5 pinned ", "a person's none - "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after the agent's attempts (-want +got):\n%s", diff)
	}
	// an agent may still re-score an annotation no person touched
	other := item(url)
	other.Annotations = []record.Annotation{{Type: "note", Text: "agent note", Actor: "agent:a", Confidence: conf(0.3)}}
	o, err := s.Save(ctx, other, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Review(ctx, ReviewDecision{AnnotationID: o.Save.AnnotationIDs[0], Confidence: conf(0.35)}, "agent:a"); err != nil {
		t.Errorf("agent re-scoring its own untouched note: %v", err)
	}
}

func fmtConf(c *float64) string {
	if c == nil {
		return "none"
	}
	return strconv.FormatFloat(*c, 'g', -1, 64)
}

func TestSaveReviewRecord(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	url := "https://review.test/shrews"
	id := record.ItemID(url)
	rec := item(url)
	rec.Actor = "agent:a"
	rec.Tags = []string{"mammals"}
	rec.Annotations = []record.Annotation{
		{Type: "highlight", Text: "shrews never rest", Confidence: conf(0.3)},
		{Type: "highlight", Text: "shrews are venomous", Confidence: conf(0.7)},
	}
	out, err := s.Save(ctx, rec, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rest, venom := out.Save.AnnotationIDs[0], out.Save.AnnotationIDs[1]
	tr := true
	// a person's record: reject one, confirm, re-score and pin the other, confirm the tag
	dec := &record.Record{ID: id, Review: []record.ReviewDecision{
		{AnnotationID: rest, Decision: "reject"},
		{AnnotationID: venom, Decision: "Confirm", Confidence: conf(0.95), Pinned: &tr},
		{Tag: "Mammals", Decision: "confirm"},
	}}
	res, err := s.Save(ctx, dec, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []record.ReviewDecision{
		{AnnotationID: rest, Decision: ReviewRejected},
		{AnnotationID: venom, Decision: ReviewConfirmed, Confidence: conf(0.95), Pinned: &tr},
		{Tag: "mammals", Decision: ReviewConfirmed},
	}
	if diff := cmp.Diff(want, res.Save.Reviewed); diff != "" {
		t.Errorf("save.reviewed (-want +got):\n%s", diff)
	}
	if len(queueTexts(t, s)) != 0 {
		t.Errorf("queue after the record: %v", queueTexts(t, s))
	}
	// an agent's record cannot confirm or reject, nor change the person's
	// decisions; the whole record is refused and nothing changes
	for _, d := range []record.ReviewDecision{
		{AnnotationID: rest, Decision: "confirm"},
		{Tag: "mammals", Decision: "reject"},
		{AnnotationID: venom, Confidence: conf(0.1)},
		{AnnotationID: venom, Pinned: new(bool)},
	} {
		r := &record.Record{ID: id, Actor: "agent:a", Tags: []string{"extra"}, Review: []record.ReviewDecision{d}}
		var re *record.Error
		if _, err := s.Save(ctx, r, SaveOptions{}); !errors.As(err, &re) || re.Code != record.CodeBadInput {
			t.Errorf("agent record %+v: %v", d, err)
		}
	}
	shown, err := s.Show(ctx, id, ShowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range shown.Annotations {
		got = append(got, a.Text+" "+fmtConf(a.Confidence)+" "+a.Review)
	}
	if diff := cmp.Diff([]string{"shrews never rest 0.3 rejected", "shrews are venomous 0.95 confirmed"}, got); diff != "" {
		t.Errorf("annotations after the agent's records (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"mammals agent:a confirmed"}, tagsOf(t, s, id)); diff != "" {
		t.Errorf("tags after the agent's records (-want +got):\n%s", diff)
	}
	// bad decisions are bad_input records
	other := item("https://review.test/other")
	o, err := s.Save(ctx, &record.Record{ID: other.ID, URL: other.URL, CanonicalURL: other.CanonicalURL, Annotations: []record.Annotation{{Type: "note", Text: "x", Actor: "agent:z"}}}, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string]record.ReviewDecision{
		"no target":          {Decision: "confirm"},
		"both targets":       {AnnotationID: rest, Tag: "x", Decision: "confirm"},
		"bad decision":       {AnnotationID: rest, Decision: "maybe"},
		"nothing to do":      {AnnotationID: rest},
		"tag confidence":     {Tag: "mammals", Decision: "confirm", Confidence: conf(1)},
		"confidence 2":       {AnnotationID: rest, Confidence: conf(2)},
		"another item's":     {AnnotationID: o.Save.AnnotationIDs[0], Decision: "confirm"},
		"pin of a note":      {AnnotationID: o.Save.AnnotationIDs[0], Pinned: &tr},
		"unknown annotation": {AnnotationID: 999, Decision: "reject"},
	} {
		r := &record.Record{ID: id, Review: []record.ReviewDecision{d}}
		if name == "pin of a note" {
			r.ID = other.ID
		}
		if _, err := s.Save(ctx, r, SaveOptions{}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// in a batch, a refused record rolls back alone
	results, err := s.SaveBatch(ctx, []*record.Record{
		{ID: id, Actor: "agent:a", Tags: []string{"batch-extra"}, Review: []record.ReviewDecision{{AnnotationID: rest, Decision: "confirm"}}},
		{ID: id, Tags: []string{"batch-ok"}},
	}, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if results[0].Err == nil || results[1].Err != nil {
		t.Errorf("batch results: %+v", results)
	}
	if diff := cmp.Diff([]string{"batch-ok human ", "mammals agent:a confirmed"}, tagsOf(t, s, id)); diff != "" {
		t.Errorf("tags after the batch (-want +got):\n%s", diff)
	}
	integrityOK(t, s)
}

func TestReviewQueueDecayed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := Open(ctx, t.TempDir()+"/ll.db", Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	addDocs(t, s, doc{url: "https://decay.test/c", title: "Ibis", chunks: []string{"Ibis probe mud: weak or strong."}, anns: []record.Annotation{
		{Type: "highlight", Text: "weak", Actor: "agent:a", Confidence: conf(0.2)},
		{Type: "highlight", Text: "strong", Actor: "agent:a", Confidence: conf(0.9)},
	}})
	saveTags(t, s, "https://decay.test/c", "agent:a", []string{"birds"}, nil)
	now = now.AddDate(0, 6, 0)
	p := DecayPolicy{Below: 0.5, After: 90 * 24 * time.Hour}
	list := func(o ReviewQueueOptions) []string {
		recs, err := s.ReviewQueue(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range recs {
			if len(r.Tagged) > 0 {
				out = append(out, "tag:"+r.Tagged[0].Tag)
				continue
			}
			out = append(out, r.Annotations[0].Text+map[bool]string{true: " decayed"}[r.Annotations[0].Decayed])
		}
		return out
	}
	if diff := cmp.Diff([]string{"strong", "weak decayed", "tag:birds"}, list(ReviewQueueOptions{Decay: p})); diff != "" {
		t.Errorf("queue (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"strong", "weak", "tag:birds"}, list(ReviewQueueOptions{})); diff != "" {
		t.Errorf("queue without decay (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"weak decayed"}, list(ReviewQueueOptions{Decay: p, Decayed: true})); diff != "" {
		t.Errorf("decayed only (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"strong"}, list(ReviewQueueOptions{Decay: p, Limit: 1})); diff != "" {
		t.Errorf("limit 1 (-want +got):\n%s", diff)
	}
	// confirming the decayed one restores it: it counts again and leaves the list
	var id int64
	if err := s.DB().Get(&id, `SELECT id FROM annotations WHERE text = 'weak'`); err != nil {
		t.Fatal(err)
	}
	w := DefaultWeights
	w.DecayBelow, w.DecayAfter = p.Below, p.After
	if got := hitHighlights2(t, s, "ibis", w); contains(got, "weak") {
		t.Fatalf("decayed highlight counts: %v", got)
	}
	if _, err := s.Review(ctx, ReviewDecision{AnnotationID: id, Decision: ReviewConfirmed}, ActorHuman); err != nil {
		t.Fatal(err)
	}
	if got := list(ReviewQueueOptions{Decay: p, Decayed: true}); len(got) != 0 {
		t.Errorf("decayed after confirm: %v", got)
	}
	if got := hitHighlights2(t, s, "ibis", w); !contains(got, "weak") {
		t.Errorf("confirmed highlight does not count: %v", got)
	}
}

func hitHighlights2(t *testing.T, s *Store, text string, w Weights) []string {
	t.Helper()
	res := searchExact(t, s, SearchOptions{Text: text, Weights: w})
	var out []string
	for _, h := range res.Hits {
		for _, a := range h.Hit.Highlights {
			out = append(out, a.Text)
		}
	}
	return out
}

func TestDecaySetting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	p, st, err := s.StoredDecay(ctx)
	if err != nil || st != nil || p != (DecayPolicy{}) {
		t.Fatalf("fresh store: %+v %+v %v", p, st, err)
	}
	for _, want := range []DecayPolicy{{Below: 0.4, After: 180 * 24 * time.Hour}, {}, {Below: 0.25, After: 36 * time.Hour}} {
		if err := s.SetDecay(ctx, want, "human"); err != nil {
			t.Fatal(err)
		}
		got, st, err := s.StoredDecay(ctx)
		if err != nil || st == nil || st.UpdatedBy != "human" {
			t.Fatalf("stored: %+v %v", st, err)
		}
		if got != want {
			t.Errorf("stored %+v, read %+v", want, got)
		}
	}
	for _, bad := range []DecayPolicy{{Below: 2}, {Below: -1}, {After: -time.Hour}} {
		if err := s.SetDecay(ctx, bad, "human"); err == nil {
			t.Errorf("stored %+v", bad)
		}
	}
	if ok, err := s.ResetSetting(ctx, SettingDecay); !ok || err != nil {
		t.Errorf("reset: %v %v", ok, err)
	}
	if _, st, err := s.StoredDecay(ctx); st != nil || err != nil {
		t.Errorf("after reset: %+v %v", st, err)
	}
}

func TestExportKeepsTagDecisions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	url := "https://review.test/frogs"
	id := record.ItemID(url)
	saveTags(t, s, url, "agent:a", []string{"kept", "dropped"}, nil)
	for tag, d := range map[string]string{"kept": ReviewConfirmed, "dropped": ReviewRejected} {
		if _, err := s.Review(ctx, ReviewDecision{ItemID: id, Tag: tag, Decision: d}, ActorHuman); err != nil {
			t.Fatal(err)
		}
	}
	exp, err := s.Export(ctx, id, false)
	if err != nil {
		t.Fatal(err)
	}
	s2 := openTest(t)
	if _, _, err := s2.Restore(ctx, exp); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"kept agent:a confirmed"}, tagsOf(t, s2, id)); diff != "" {
		t.Errorf("restored tags (-want +got):\n%s", diff)
	}
	// the rejection came along: an agent adding the tag again adds nothing
	saveTags(t, s2, url, "agent:b", []string{"dropped"}, nil)
	if diff := cmp.Diff([]string{"kept agent:a confirmed"}, tagsOf(t, s2, id)); diff != "" {
		t.Errorf("after an agent's add (-want +got):\n%s", diff)
	}
}

// TestDecayReadAtOpen: a store opened with ReadPolicies hands the decay
// setting read at open to its first StoredDecay, and reads the table for
// every later one; a new file (no settings table yet) reads it after
// migrating.
func TestDecayReadAtOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ll.db")
	s, err := Open(ctx, path, Options{ReadPolicies: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.opened != nil {
		t.Errorf("a new file has no settings table to read at open: %+v", s.opened)
	}
	if _, st, err := s.StoredDecay(ctx); st != nil || err != nil {
		t.Fatalf("new file: %+v %v", st, err)
	}
	want := DecayPolicy{Below: 0.4, After: 180 * 24 * time.Hour}
	if err := s.SetDecay(ctx, want, "agent:x"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, policies := range []bool{false, true} {
		r, err := Open(ctx, path, Options{MustExist: true, ReadPolicies: policies})
		if err != nil {
			t.Fatal(err)
		}
		if (r.opened != nil) != policies {
			t.Errorf("ReadPolicies %v: read at open %+v", policies, r.opened)
		}
		got, st, err := r.StoredDecay(ctx)
		if err != nil || st == nil || got != want || st.UpdatedBy != "agent:x" || st.UpdatedAt == "" || st.Key != SettingDecay {
			t.Errorf("ReadPolicies %v: %+v %+v %v", policies, got, st, err)
		}
		// a later read sees a change made after the open
		if err := s2(t, path).SetDecay(ctx, DecayPolicy{}, "human"); err != nil {
			t.Fatal(err)
		}
		got, st, err = r.StoredDecay(ctx)
		if err != nil || st == nil || got != (DecayPolicy{}) || st.UpdatedBy != "human" {
			t.Errorf("ReadPolicies %v, after a change: %+v %+v %v", policies, got, st, err)
		}
		if err := r.SetDecay(ctx, want, "agent:x"); err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
}

// s2 opens another store on path, closed with the test.
func s2(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
