package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/record"
)

// TestContentFromRecord checks that an item whose text came in the record
// (no fetch) is never queued for fetching (stale, pending) nor marked due
// for revalidation, and that a fetched ingest of it clears the mark.
func TestContentFromRecord(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	s := openTest(t)
	s.now = func() time.Time { return now }
	index := func(rec *record.Record) {
		t.Helper()
		if _, err := s.Index(ctx, rec, IndexOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	withText := func(url, text string, fetched bool) *record.Record {
		rec := item(url)
		rec.Title = "t"
		rec.Text = &text
		rec.Chunks = []record.Chunk{{Text: text, Tokens: 1}}
		if fetched {
			rec.Fetch = &record.FetchInfo{Source: "http", Status: 200}
		}
		return rec
	}
	index(withText("https://r.test/own", "mango", false))
	index(withText("https://r.test/web", "mango", true))
	// an own-text item that failed before the fix (a re-fetch error record)
	index(withText("https://r.test/hurt", "mango", false))
	f := item("https://r.test/hurt")
	f.Fail(record.StageFetch, record.CodeConnection, "no such host", true)
	index(f)
	now = now.Add(40 * 24 * time.Hour)

	list := func(q string) []string {
		t.Helper()
		recs, err := s.Queue(ctx, QueueOptions{Queue: q, OlderThan: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range recs {
			out = append(out, r.CanonicalURL)
		}
		return out
	}
	if diff := cmp.Diff([]string{"https://r.test/web"}, list(QueueStale)); diff != "" {
		t.Errorf("stale (-want +got):\n%s", diff)
	}
	if got := list(QueuePending); len(got) != 0 {
		t.Errorf("pending: %v, want none", got)
	}
	res := search(t, s, SearchOptions{Text: "mango", StaleAfter: 30 * 24 * time.Hour})
	if diff := cmp.Diff([]string{record.ItemID("https://r.test/web")}, res.StaleIDs); diff != "" {
		t.Errorf("stale ids (-want +got):\n%s", diff)
	}
	for _, h := range res.Hits {
		if h.Revalidate != nil && h.CanonicalURL != "https://r.test/web" {
			t.Errorf("%s marked for revalidation", h.CanonicalURL)
		}
	}
	st, err := s.Status(ctx, record.ItemID("https://r.test/own"))
	if err != nil {
		t.Fatal(err)
	}
	if !ingestOf(t, st).FromRecord {
		t.Errorf("status of own-text item: %s, want content_from_record", st.Extra["ingest"])
	}

	// fetching it for real makes it an ordinary fetched item
	index(withText("https://r.test/own", "mango papaya", true))
	now = now.Add(40 * 24 * time.Hour)
	if diff := cmp.Diff([]string{"https://r.test/web", "https://r.test/own"}, list(QueueStale)); diff != "" {
		t.Errorf("stale after a fetch (-want +got):\n%s", diff)
	}
}

func ingestOf(t *testing.T, rec *record.Record) IngestInfo {
	t.Helper()
	var info IngestInfo
	if err := json.Unmarshal(rec.Extra["ingest"], &info); err != nil {
		t.Fatal(err)
	}
	return info
}

// TestMigrationContentFromRecord opens a database of the schema just
// before the content_from_record migration, holding an own-text item, a
// fetched one, and an own-text one a stale re-fetch had turned failed: the
// migration marks the own-text items and restores the failed one to
// parsed, with an audit event.
func TestMigrationContentFromRecord(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ll.db")
	db, err := sqlx.Open("sqlite3", DSN(path, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	// the schema just before this migration, whatever its number
	before := slices.IndexFunc(ms, func(m migration) bool { return strings.HasSuffix(m.name, "_content_from_record.sql") })
	if before < 0 {
		t.Fatal("no content_from_record migration")
	}
	for _, m := range ms[:before] {
		db.MustExec(m.sql)
	}
	db.MustExec(fmt.Sprintf(`PRAGMA user_version = %d`, before))
	ins := `INSERT INTO items(id, canonical_url, original_url, source_type, meta_json, saved_at, updated_at, fetched_at, parsed_at,
		ingest_status, error_json, attempts, next_retry_at) VALUES (?, ?, ?, 'article', ?, 't', 't', 't', 't', ?, ?, ?, ?)`
	add := func(url, meta, status string, errJSON any, attempts int) {
		id := record.ItemID(url)
		db.MustExec(ins, id, url, url, meta, status, errJSON, attempts, nil)
		db.MustExec(`INSERT INTO content_chunks(item_id, chunk_index, text, tokens) VALUES (?, 0, 'x', 1)`, id)
	}
	add("https://m.test/own", `{}`, "parsed", nil, 0)
	add("https://m.test/web", `{"fetch_source":"http","http_status":200,"final_url":"https://m.test/web"}`, "parsed", nil, 0)
	add("https://m.test/hurt", `{"parse":{"adapter":"plain-text"}}`, "failed", `{"stage":"fetch","code":"connection","message":"x","retryable":true}`, 2)
	db.Close()

	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	type row struct {
		URL        string `db:"canonical_url"`
		Status     string `db:"ingest_status"`
		FromRecord bool   `db:"content_from_record"`
		Attempts   int    `db:"attempts"`
		HasError   bool   `db:"has_error"`
	}
	var got []row
	if err := s.DB().Select(&got, `SELECT canonical_url, ingest_status, content_from_record, attempts, error_json IS NOT NULL AS has_error
		FROM items ORDER BY seq`); err != nil {
		t.Fatal(err)
	}
	want := []row{
		{"https://m.test/own", "parsed", true, 0, false},
		{"https://m.test/web", "parsed", false, 0, false},
		{"https://m.test/hurt", "parsed", true, 0, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("items after migration (-want +got):\n%s", diff)
	}
	var events []string
	if err := s.DB().Select(&events, `SELECT item_id || ' ' || action || ' ' || actor FROM events`); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{record.ItemID("https://m.test/hurt") + " state:parsed migration"}, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
