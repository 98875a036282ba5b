package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/query"
	"github.com/linkledger/linkledger/lib/record"
)

// The library (issue 30, docs/ui.md "The library"): every item, newest
// first, paged, filtered by reading state (unread, read, starred), the
// archive, tag, site and type, with words to find among them; the
// reader's star and read/unread buttons and its reading progress.
// Filters are ledger.FindOptions fields, the ones the query language's
// is:starred, is:read, is:unread, is:archived, tag:, site: and type: set,
// so the library lists what ll-find and the MCP find tool find.

func init() {
	funcs["host"] = itemHost
	funcs["excerpt"] = excerpt
	funcs["libraryURL"] = libraryURL
	for k, v := range map[string]string{
		"starred": "Starred.", "unstarred": "Unstarred.", "read": "Marked read.", "unread": "Marked unread.",
	} {
		flashes[k] = v
	}
}

// libraryRoutes adds the library's pages and the reader's reading posts.
func (s *Server) libraryRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /library", s.library)
	mux.HandleFunc("GET /archive", s.archiveView)
	mux.HandleFunc("POST /items/{id}/star", s.star)
	mux.HandleFunc("POST /items/{id}/read", s.markRead)
	mux.HandleFunc("POST /items/{id}/progress", s.progress)
}

// libraryShows are the library's views (?show=): which items by reading
// state; "archived" is the Archive view.
var libraryShows = map[string]string{"": "All", "unread": "Unread", "read": "Read", "starred": "Starred", "archived": "Archive"}

type libraryData struct {
	Show, Q, Tag, Site, Type string
	Title                    string
	Hits                     []*record.Record
	Tabs                     []libraryTab
	Pager                    pager
	Offset                   int
	// ArchivedMatches and ArchivedLink: the words matched archived items
	// only (ledger.FindResult.ArchivedMatches), and the view that shows them.
	ArchivedMatches int
	ArchivedLink    string
}

type libraryTab struct {
	Name, Link string
	Current    bool
}

func (s *Server) archiveView(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	q.Set("show", "archived")
	http.Redirect(w, r, "/library?"+q.Encode(), http.StatusSeeOther)
}

func (s *Server) library(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := &libraryData{Show: q.Get("show"), Q: strings.TrimSpace(q.Get("q")), Tag: strings.TrimSpace(q.Get("tag")),
		Site: query.SiteHost(q.Get("site")), Type: q.Get("type")}
	title, ok := libraryShows[d.Show]
	if !ok {
		s.fail(w, r, &ledger.InputError{Code: record.CodeBadInput, Message: "show " + strconv.Quote(d.Show) + ": want unread, read, starred or archived"})
		return
	}
	if err := ledger.CheckType(d.Type); err != nil {
		s.fail(w, r, &ledger.InputError{Code: record.CodeBadInput, Message: err.Error()})
		return
	}
	d.Title = "Library"
	if d.Show == "archived" {
		d.Title = "Archive"
	} else if d.Show != "" {
		d.Title = "Library: " + strings.ToLower(title)
	}
	page := pageNumber(q.Get("page"))
	opt := ledger.FindOptions{Query: d.Q, Type: d.Type, Site: d.Site, Limit: perPage + 1, Offset: (page - 1) * perPage, Snippets: 1,
		Embedder: s.opt.Embedder}
	if d.Tag != "" {
		opt.Tags = []string{strings.ToLower(d.Tag)}
	}
	switch d.Show {
	case "unread":
		opt.Unread = true
	case "read":
		opt.Read = true
	case "starred":
		opt.Starred = true
	case "archived":
		opt.Archived, opt.ArchivedSet = spec.OnlyArchived, true
	}
	res, err := s.opt.Ledger.Find(r.Context(), opt)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	more := len(res.Hits) > perPage
	if more {
		res.Hits = res.Hits[:perPage]
	}
	d.Hits, d.Offset = res.Hits, opt.Offset
	d.Pager = newPager(q, page, more)
	if res.ArchivedMatches > 0 {
		d.ArchivedMatches = res.ArchivedMatches
		d.ArchivedLink = libraryURL("archived", d.Q, d.Tag, d.Site, d.Type)
	}
	for _, k := range []string{"", "unread", "read", "starred", "archived"} {
		d.Tabs = append(d.Tabs, libraryTab{Name: libraryShows[k], Link: libraryURL(k, d.Q, d.Tag, d.Site, d.Type), Current: k == d.Show})
	}
	nav := "library"
	if d.Show == "archived" {
		nav = "archive"
	}
	s.render(w, r, http.StatusOK, "library", view{Title: d.Title, Nav: nav, Data: d})
}

// libraryURL is the library's address for a view and filters ("" left out).
func libraryURL(show, q, tag, site, typ string) string {
	v := url.Values{}
	for k, x := range map[string]string{"show": show, "q": q, "tag": tag, "site": site, "type": typ} {
		if x != "" {
			v.Set(k, x)
		}
	}
	if len(v) == 0 {
		return "/library"
	}
	return "/library?" + v.Encode()
}

// itemHost is the site an item's URL is from, as site: takes it.
func itemHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return query.SiteHost(u.Hostname())
}

// excerpt is what a list shows of an item: its excerpt, else its
// description, else its first snippet, cut to about 240 characters.
func excerpt(rec *record.Record) string {
	s := rec.Excerpt
	if s == "" {
		s = rec.Description
	}
	if s == "" && rec.Hit != nil && len(rec.Hit.Snippets) > 0 {
		s = rec.Hit.Snippets[0].Text
	}
	return short(240, strings.Join(strings.Fields(s), " "))
}

// wantsJSON reports whether a post came from our script (fetch with
// Accept: application/json), which updates the page in place, rather
// than from a form without script, which gets the redirect.
func wantsJSON(r *http.Request) bool {
	return r.Header.Get("Accept") == "application/json"
}

// readingAnswer is the JSON answer of a reading post from the script.
type readingAnswer struct {
	Starred bool   `json:"starred"`
	Read    bool   `json:"read"`
	Flash   string `json:"flash,omitempty"`
}

func writeReading(w http.ResponseWriter, rec *record.Record, flash string) {
	a := readingAnswer{Flash: flash}
	if rd := rec.Reading; rd != nil {
		a.Starred, a.Read = rd.StarredAt != "", rd.ReadAt != ""
	}
	if rec.ArchivedAt != "" {
		a.Read = true
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(a)
}

// star stars (star=1) or unstars (star=0) an item.
func (s *Server) star(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	on := r.PostFormValue("star") != "0"
	rec, err := s.opt.Ledger.Star(r.Context(), id, on, ledger.WriteOptions{Actor: actor(r)})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	done := "starred"
	if !on {
		done = "unstarred"
	}
	if wantsJSON(r) {
		writeReading(w, rec, flashes[done])
		return
	}
	back(w, r, itemPath(id), done)
}

// markRead marks an item read (read=1) or unread (read=0). Marking it
// unread goes back to the library's unread items: staying in the reader
// would be reading it again.
func (s *Server) markRead(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	on := r.PostFormValue("read") != "0"
	rec, err := s.opt.Ledger.MarkRead(r.Context(), id, on, ledger.WriteOptions{Actor: actor(r)})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	done, to := "read", itemPath(id)
	if !on {
		done, to = "unread", "/library?show=unread"
	}
	if wantsJSON(r) {
		writeReading(w, rec, flashes[done])
		return
	}
	back(w, r, to, done)
}

// progress keeps how far down the reader is (the reader's script posts
// part and progress, throttled) and marks the item read. 204: nothing
// to draw.
func (s *Server) progress(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	p, err := strconv.ParseFloat(r.PostFormValue("progress"), 64)
	if err != nil || !(p >= 0 && p <= 1) { // (NaN too)
		s.fail(w, r, &ledger.InputError{Code: record.CodeBadInput, Message: "progress " + strconv.Quote(r.PostFormValue("progress")) + ": want a number from 0 to 1"})
		return
	}
	part, err := strconv.Atoi(r.PostFormValue("part"))
	if err != nil || part < 0 || part > 10000 {
		part = 0
	}
	if _, err := s.opt.Ledger.SetProgress(r.Context(), id, part, p, ledger.WriteOptions{Actor: actor(r)}); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// archivedSearch is the search page's address for the archived matches
// of the search q: the same search with archived=only.
func archivedSearch(q url.Values) string {
	v := url.Values{}
	for k, vs := range q {
		if k != "page" && k != "done" {
			v[k] = vs
		}
	}
	v.Set("archived", "only")
	return "/search?" + v.Encode()
}
