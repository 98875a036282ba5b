// Package exporter renders items (the records of linkledger show) in forms
// people read without linkledger: Netscape bookmark HTML, which every
// browser and link tool imports, and a Markdown vault, one file per item
// with YAML front matter, for Obsidian or any editor. It depends on the
// standard library and lib/record only; the command layer reads the items.
package exporter

import (
	"encoding/json"
	"time"

	"github.com/linkledger/linkledger/lib/record"
)

// ingest is the part of show's "ingest" object the exports use.
type ingest struct {
	Status  string `json:"status"`
	SavedAt string `json:"saved_at"`
}

func ingestOf(rec *record.Record) ingest {
	var in ingest
	if raw, ok := rec.Extra["ingest"]; ok {
		json.Unmarshal(raw, &in)
	}
	if in.Status == "" {
		in.Status = rec.Status
	}
	return in
}

func tagsOf(rec *record.Record) []string {
	var out []string
	for _, t := range rec.Tagged {
		out = append(out, t.Tag)
	}
	return out
}

func titleOf(rec *record.Record) string {
	if rec.Title != "" {
		return rec.Title
	}
	if rec.URL != "" {
		return rec.URL
	}
	return rec.CanonicalURL
}

func unix(ts string) int64 {
	t, err := time.Parse(time.RFC3339, ts)
	if err != nil {
		return 0
	}
	return t.Unix()
}
