package embed

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/embed/embedfake"
	"github.com/linkledger/linkledger/lib/record"
)

func TestDefaultPrefixes(t *testing.T) {
	const bge = "Represent this sentence for searching relevant passages: "
	for _, tc := range []struct{ model, doc, query string }{
		{"nomic-embed-text", "search_document: ", "search_query: "},
		{"nomic-embed-text:latest", "search_document: ", "search_query: "},
		{"nomic-ai/nomic-embed-text-v1.5", "search_document: ", "search_query: "},
		{"text-embedding-nomic-embed-text-v1.5", "search_document: ", "search_query: "},
		{"Nomic-Embed-Text-V2-MoE", "search_document: ", "search_query: "},
		{"intfloat/e5-base-v2", "passage: ", "query: "},
		{"e5-large", "passage: ", "query: "},
		{"intfloat/multilingual-e5-small", "passage: ", "query: "},
		{"multilingual-e5-large-instruct", "", ""},
		{"intfloat/e5-mistral-7b-instruct", "", ""},
		{"BAAI/bge-base-en-v1.5", "", bge},
		{"bge-small-en", "", bge},
		{"bge-large-en-v1.5:f16", "", bge},
		{"mxbai-embed-large", "", bge},
		{"bge-m3", "", ""},
		{"bge-large-zh-v1.5", "", ""},
		{"hash-64", "", ""},
		{"text-embedding-3-small", "", ""},
		{"all-minilm", "", ""},
		{"", "", ""},
	} {
		doc, query := DefaultPrefixes(tc.model)
		if doc != tc.doc || query != tc.query {
			t.Errorf("DefaultPrefixes(%q) = %q, %q; want %q, %q", tc.model, doc, query, tc.doc, tc.query)
		}
		for _, p := range []string{doc, query} {
			if err := CheckPrefix(p); err != nil {
				t.Errorf("%q: default %q: %v", tc.model, p, err)
			}
		}
	}
}

func TestIdentity(t *testing.T) {
	for _, tc := range []struct{ model, doc, want string }{
		{"hash-64", "", "hash-64"},
		{"nomic-embed-text", "search_document: ", `nomic-embed-text+"search_document: "`},
		{"m", "a\nb", `m+"a\nb"`},
	} {
		if got := Identity(tc.model, tc.doc); got != tc.want {
			t.Errorf("Identity(%q, %q) = %q, want %q", tc.model, tc.doc, got, tc.want)
		}
	}
	c := &Client{Model: "nomic-embed-text", DocPrefix: "x", QueryPrefix: "y"}
	if c.Identity() != `nomic-embed-text+"x"` {
		t.Errorf("Client.Identity = %q", c.Identity())
	}
}

func TestCheckPrefix(t *testing.T) {
	for _, tc := range []struct {
		p  string
		ok bool
	}{
		{"", true},
		{"search_query: ", true},
		{"Instruct: find the passage\nQuery: ", true},
		{"tab\there", true},
		{"é: ", true},
		{strings.Repeat("x", MaxPrefixBytes), true},
		{strings.Repeat("x", MaxPrefixBytes+1), false},
		{"bell\a", false},
		{"nul\x00", false},
		{"bad \xff utf-8", false},
	} {
		if err := CheckPrefix(tc.p); (err == nil) != tc.ok {
			t.Errorf("CheckPrefix(%q) = %v, want ok %v", tc.p, err, tc.ok)
		}
	}
}

// TestPrefixesSent: documents go after DocPrefix, queries after
// QueryPrefix, and only to the endpoint: the fake's prefix mode refuses
// an input without its marker and hashes the rest, so the vectors are
// those of the bare text; the record's chunk text stays as it was.
func TestPrefixesSent(t *testing.T) {
	fake := &embedfake.Server{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ctx := context.Background()
	var waits []time.Duration
	docURL := srv.URL + "/prefix/search_document:%20/v1"
	c := newClient(docURL, &waits)
	c.DocPrefix, c.QueryPrefix = "search_document: ", "search_query: "

	texts := []string{"NAC lowers", "cars"}
	vs, err := c.EmbedDocuments(ctx, texts)
	if err != nil {
		t.Fatalf("EmbedDocuments: %v", err)
	}
	for i, txt := range texts {
		if diff := cmp.Diff(embedfake.Vector("hash-16", txt), vs[i]); diff != "" {
			t.Errorf("vector %d (-want +got):\n%s", i, diff)
		}
	}
	// without the prefix, or with the query's, the "model" refuses
	if _, err := c.Embed(ctx, texts); err == nil || err.HTTPStatus != http.StatusUnprocessableEntity {
		t.Errorf("Embed without the prefix: %v, want HTTP 422", err)
	}
	if _, err := c.EmbedQuery(ctx, "NAC"); err == nil || err.HTTPStatus != http.StatusUnprocessableEntity {
		t.Errorf("EmbedQuery to the document marker: %v, want HTTP 422", err)
	}
	c.URL = srv.URL + "/prefix/search_query:%20/v1"
	q, err := c.EmbedQuery(ctx, "NAC")
	if err != nil {
		t.Fatalf("EmbedQuery: %v", err)
	}
	if diff := cmp.Diff(embedfake.Vector("hash-16", "NAC"), q); diff != "" {
		t.Errorf("query vector (-want +got):\n%s", diff)
	}

	c.URL = docURL
	rec := &record.Record{Chunks: []record.Chunk{{Index: 0, Text: "NAC lowers"}, {Index: 1, Text: "cars"}}}
	if err := c.EmbedRecord(ctx, rec); err != nil {
		t.Fatalf("EmbedRecord: %v", err)
	}
	if rec.Chunks[0].Text != "NAC lowers" || rec.Chunks[1].Text != "cars" {
		t.Errorf("chunk text changed: %q, %q", rec.Chunks[0].Text, rec.Chunks[1].Text)
	}
	if rec.Embed.Model != `hash-16+"search_document: "` || rec.Embed.Chunks != 2 {
		t.Errorf("embed = %+v", rec.Embed)
	}
	// a failure names the same model
	c.URL = srv.URL + "/prefix/other/v1"
	if err := c.EmbedRecord(ctx, rec); err == nil || rec.Embed.Model != `hash-16+"search_document: "` || rec.Chunks[0].Embedding != "" {
		t.Errorf("failed EmbedRecord: %v, embed %+v", err, rec.Embed)
	}
}

// TestPrefixInputBound: MaxInputBytes bounds the text sent, prefix
// included; no prefix sends the text as it is.
func TestPrefixInputBound(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad", 400)
			return
		}
		got = append(got, req.Input...)
		w.Write([]byte(`{"data":[{"index":0,"embedding":[1,0]}]}`))
	}))
	defer srv.Close()
	long := strings.Repeat("é", MaxInputBytes) // 2 bytes a rune: twice the bound
	for _, p := range []string{"", "search_document: ", "odd: "} {
		got = nil
		c := &Client{URL: srv.URL + "/v1", Model: "m", DocPrefix: p, QueryPrefix: p}
		if _, err := c.EmbedDocuments(context.Background(), []string{long}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.EmbedQuery(context.Background(), "short"); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("prefix %q: %d texts sent", p, len(got))
		}
		if !strings.HasPrefix(got[0], p+"éé") || len(got[0]) > MaxInputBytes || len(got[0]) < MaxInputBytes-1 || !utf8.ValidString(got[0]) {
			t.Errorf("prefix %q: document sent as %d bytes starting %q", p, len(got[0]), got[0][:min(len(got[0]), 24)])
		}
		if got[1] != p+"short" {
			t.Errorf("prefix %q: query sent as %q", p, got[1])
		}
	}
}
