package web

import (
	"github.com/linkledger/linkledger/lib/record"
)

// recordWith is a save record whose title, note, highlight and note
// annotation are all text.
func recordWith(u, text string) *record.Record {
	return &record.Record{URL: u, Title: text, Note: text, Tags: []string{"t"},
		Annotations: []record.Annotation{{Type: record.AnnHighlight, Text: text, Actor: "human"}, {Type: record.AnnNote, Text: text, Actor: "human"}}}
}
