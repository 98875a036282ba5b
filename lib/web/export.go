package web

import (
	"bytes"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/linkledger/linkledger/lib/exporter"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// Highlights are downloaded as Markdown, written by lib/exporter as the
// vault of `linkledger export --vault` writes them: one item's
// (/items/ID/highlights.md) or those of the highlights page's filter
// (/highlights.md?tag=…&q=…). docs/ui.md, "Export highlights".

// Bounds of a download of many highlights: it stops at the first reached
// and says so at its end.
const (
	exportMaxAnnotations = 20000
	exportMaxTextBytes   = 32 << 20
	exportBatch          = 200
)

// markdownType is the Content-Type of the downloads (RFC 7763).
const markdownType = "text/markdown; charset=utf-8"

// readHighlightsQuery reads the highlights page's filter from its query
// (q, type, actor, tag, conf, review): the page and the download read it
// alike.
func readHighlightsQuery(q url.Values) (*highlightsData, spec.AnnotationFilter, error) {
	d := &highlightsData{Actor: q.Get("actor"), Tag: q.Get("tag"), Conf: q.Get("conf"), Review: q.Get("review"), Q: q.Get("q"), Type: q.Get("type")}
	f := spec.AnnotationFilter{Actor: d.Actor, Tag: d.Tag, Review: d.Review, Text: d.Q}
	if d.Type != "" {
		f.Types = []string{d.Type}
	}
	if d.Conf != "" {
		c, err := record.ParseConfidence(d.Conf)
		if err != nil {
			return nil, f, &ledger.InputError{Code: record.CodeBadInput, Message: err.Error()}
		}
		f.MinConfidence = c
	}
	return d, f, nil
}

// filterValues is the filter as a query, without the page.
func (d *highlightsData) filterValues() url.Values {
	v := url.Values{}
	for _, kv := range [][2]string{{"q", d.Q}, {"type", d.Type}, {"actor", d.Actor}, {"tag", d.Tag}, {"conf", d.Conf}, {"review", d.Review}} {
		if kv[1] != "" {
			v.Set(kv[0], kv[1])
		}
	}
	return v
}

// ExportURL is the download of every annotation the page's filter keeps.
func (d *highlightsData) ExportURL() string {
	if v := d.filterValues(); len(v) > 0 {
		return "/highlights.md?" + v.Encode()
	}
	return "/highlights.md"
}

// describe says the filter in words, for the file's note.
func (d *highlightsData) describe() string {
	kind := "highlights"
	switch d.Type {
	case record.AnnLowlight:
		kind = "lowlights"
	case record.AnnNote:
		kind = "notes"
	}
	var parts []string
	for _, kv := range [][2]string{{"text", d.Q}, {"actor", d.Actor}, {"tag", d.Tag}, {"confidence at least", d.Conf}, {"review", d.Review}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+" "+strconv.Quote(kv[1]))
		}
	}
	if len(parts) == 0 {
		return "All " + kind
	}
	return "The " + kind + " with " + strings.Join(parts, ", ")
}

// exportHighlights downloads the annotations of the highlights page's
// filter, every page of them, grouped by item (newest first), up to the
// bounds above.
func (s *Server) exportHighlights(w http.ResponseWriter, r *http.Request) {
	d, f, err := readHighlightsQuery(r.URL.Query())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var all []*record.Record
	size, more := 0, ""
	f.Limit = exportBatch
	for more == "" {
		recs, err := s.opt.Ledger.Highlights(r.Context(), f)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		for _, rec := range recs {
			if len(all) == exportMaxAnnotations || size > exportMaxTextBytes {
				more = "This file stops at the first " + strconv.Itoa(len(all)) + " annotations (a download's limit): narrow the filter for the rest."
				break
			}
			all = append(all, rec)
			for _, a := range rec.Annotations {
				size += len(a.Text)
			}
		}
		if len(recs) < exportBatch {
			break
		}
		f.Offset += exportBatch
	}
	h := &exporter.HighlightsFile{Title: "Highlights", Items: exporter.GroupByItem(all), More: more,
		Note: d.describe() + ", exported from linkledger at " + record.FormatTime(s.now()) + "."}
	s.sendMarkdown(w, r, "linkledger-highlights.md", h)
}

// exportItemHighlights downloads one item's highlights, lowlights and
// notes.
func (s *Server) exportItemHighlights(w http.ResponseWriter, r *http.Request) {
	rec, err := s.opt.Ledger.Show(r.Context(), r.PathValue("id"), ledger.ShowOptions{})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	title := rec.Title
	if title == "" {
		title = rec.URL
	}
	h := &exporter.HighlightsFile{Title: "Highlights: " + title, Items: []*record.Record{rec},
		Note: "Exported from linkledger at " + record.FormatTime(s.now()) + "."}
	s.sendMarkdown(w, r, exporter.FileName(rec.Title, rec.ID), h)
}

// sendMarkdown writes h as a download named name: the whole file is
// written to memory first, so a failure is an error page, not half a file.
func (s *Server) sendMarkdown(w http.ResponseWriter, r *http.Request, name string, h *exporter.HighlightsFile) {
	var b bytes.Buffer
	if err := h.Write(&b); err != nil {
		s.fail(w, r, err)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", markdownType)
	hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(b.Bytes())
	}
}
