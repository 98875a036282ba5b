package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/linkledger/linkledger/lib/brief"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// reviewPage is how many annotations the review queue shows at once.
const reviewPage = 50

// perPage is how many results a list page shows.
const perPage = 20

// human is the actor of everything a person does in linkledger ui; in
// served mode a session's writes are by its token's name (actor).
const human = "human"

// favicon answers the address browsers ask for on their own with our icon
// (an SVG of our own, also linked from every page), so it is not a 404.
func favicon(w http.ResponseWriter, r *http.Request) {
	b, err := staticFS.ReadFile("static/favicon.svg")
	if err != nil {
		http.Error(w, "no icon", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "max-age=86400")
	w.Write(b)
}

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /favicon.ico", favicon)
	mux.HandleFunc("GET /{$}", s.home)
	mux.HandleFunc("GET /status.json", s.statusJSON)
	mux.HandleFunc("POST /save", s.save)
	mux.HandleFunc("POST /import", s.importFile)
	mux.HandleFunc("GET /import/{id}", s.importResult)
	mux.HandleFunc("GET /search", s.search)
	mux.HandleFunc("GET /items/{id}", s.reader)
	mux.HandleFunc("GET /items/{id}/history", s.history)
	mux.HandleFunc("GET /items/{id}/images/{n}", s.image)
	mux.HandleFunc("GET /items/{id}/delete", s.confirmDelete)
	mux.HandleFunc("POST /items/{id}/delete", s.delete)
	mux.HandleFunc("POST /items/{id}/retry", s.retry)
	mux.HandleFunc("POST /items/{id}/annotate", s.annotate)
	mux.HandleFunc("POST /items/{id}/annotations/{aid}/pin", s.pin)
	mux.HandleFunc("POST /items/{id}/annotations/{aid}/remove", s.unannotate)
	mux.HandleFunc("POST /items/{id}/annotations/{aid}/review", s.reviewAnnotation)
	mux.HandleFunc("POST /items/{id}/tags", s.tags)
	mux.HandleFunc("POST /items/{id}/tags/promote", s.promoteTag)
	mux.HandleFunc("POST /items/{id}/tags/review", s.reviewTag)
	mux.HandleFunc("POST /items/{id}/archive", s.archive)
	mux.HandleFunc("GET /review", s.reviewPage)
	mux.HandleFunc("POST /review/batch", s.reviewBatch)
	mux.HandleFunc("GET /highlights", s.highlights)
	mux.HandleFunc("GET /highlights.md", s.exportHighlights)
	mux.HandleFunc("GET /items/{id}/highlights.md", s.exportItemHighlights)
	mux.HandleFunc("GET /packs", s.packs)
	mux.HandleFunc("POST /packs", s.createPack)
	mux.HandleFunc("GET /packs/{name}", s.pack)
	mux.HandleFunc("POST /packs/{name}/refresh", s.refreshPack)
	mux.HandleFunc("GET /reuse", s.reuse)
	mux.HandleFunc("GET /bookmarklet", s.bookmarklet)
	mux.HandleFunc("GET /capture", s.captureForm)
	mux.HandleFunc("POST /capture", s.capture)
	s.libraryRoutes(mux)
	return mux
}

// view is what every page's template gets.
type view struct {
	Title string
	Nav   string // the current section, for the menu
	Flash string
	Data  any
	// Who is the signed-in token and its scope in served mode
	// ("phone · read"), shown beside Sign out; empty in linkledger ui.
	Who string
}

// flashes are the messages a redirect may ask for (?done=KEY): fixed
// texts, so nothing a link carries is shown.
var flashes = map[string]string{
	"saved": "Saved. It is ingested in the background.", "retry": "Queued for a retry.",
	"deleted": "Deleted.", "annotated": "Annotation saved.", "removed": "Annotation removed.",
	"tagged": "Tags changed.", "archived": "Archived.", "unarchived": "Unarchived.",
	"pinned": "Pinned.", "unpinned": "Unpinned.", "reviewed": "Review saved.", "promoted": "Tag confirmed.",
	"refreshed": "Pack refreshed.", "created": "Pack created.",
	"refreshed-lexical": "Pack refreshed, ranked lexically: the ranking it was saved with could not be had (the reason is in the log of linkledger ui).",
	"created-lexical":   "Pack created, ranked lexically: semantic ranking could not be had (the reason is in the log of linkledger ui).",
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, code int, name string, v view) {
	t := s.pages.byName[name]
	if t == nil {
		s.plainError(w, http.StatusInternalServerError, "no page "+name)
		return
	}
	if v.Flash == "" {
		v.Flash = flashes[r.URL.Query().Get("done")]
	}
	if id, ok := identityFrom(r.Context()); ok {
		v.Who = id.Name + " · " + id.Scope
	}
	var b bytes.Buffer
	if err := t.Execute(&b, v); err != nil {
		s.logf("page %s: %v", name, err)
		s.plainError(w, http.StatusInternalServerError, "the page could not be drawn")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b.Bytes())
	}
}

// fail shows an error page: an unknown item is 404, bad input 400, a
// body over its cap 413, anything else 500.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := http.StatusInternalServerError
	var nie *ledger.NoItemError
	var ie *ledger.InputError
	var re *record.Error
	var mbe *http.MaxBytesError
	var npe *ledger.NoPackError
	switch {
	case errors.As(err, &nie), errors.As(err, &npe):
		code = http.StatusNotFound
	case errors.As(err, &mbe):
		code = http.StatusRequestEntityTooLarge
	case isStale(err):
		code = http.StatusConflict
	case errors.As(err, &ie), errors.As(err, &re), errors.As(err, new(*ledger.NoAnnotationError)),
		errors.As(err, new(*ledger.NameError)), errors.As(err, new(*ledger.PackExistsError)), errors.Is(err, errBadForm):
		code = http.StatusBadRequest
	}
	if code == http.StatusInternalServerError {
		s.logf("%s %s: %v", r.Method, r.URL.Path, err)
	}
	s.render(w, r, code, "error", view{Title: http.StatusText(code), Data: err.Error()})
}

var errBadForm = errors.New("bad form")

// back redirects after a post (303), to the page the form names (a local
// path only) or fallback, with a flash message key.
func back(w http.ResponseWriter, r *http.Request, fallback, done string) {
	to := r.PostFormValue("back")
	if to == "" || !strings.HasPrefix(to, "/") || strings.HasPrefix(to, "//") || strings.ContainsAny(to, "\\\r\n") {
		to = fallback
	}
	u, err := url.Parse(to)
	if err != nil {
		u = &url.URL{Path: "/"}
	}
	q := u.Query()
	q.Set("done", done)
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

func itemPath(id string) string { return "/items/" + url.PathEscape(id) }

func splitTags(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

func (s *Server) poke() {
	if s.opt.Poke != nil {
		s.opt.Poke()
	}
}

// --- home -----------------------------------------------------------------

type homeData struct {
	Counts           map[string]int
	Total            int
	Newest           []*record.Record
	Pending, Failed  []*record.Record
	MorePending      bool
	Worker           bool
	MaxImportMiB     int
	ImportResult     *ledger.ImportResult
	AddURL, AddError string
}

func (s *Server) homeData(r *http.Request) (*homeData, error) {
	ctx := r.Context()
	l := s.opt.Ledger
	counts, err := l.StateCounts(ctx)
	if err != nil {
		return nil, err
	}
	d := &homeData{Counts: counts, Worker: s.opt.Poke != nil, MaxImportMiB: MaxImportBytes >> 20}
	d.Total = ledger.ItemsTotal(counts)
	res, err := l.Find(ctx, ledger.FindOptions{Limit: perPage, Snippets: -1})
	if err != nil {
		return nil, err
	}
	d.Newest = res.Hits
	if d.Pending, err = l.Queue(ctx, ledger.QueuePending, 11); err != nil {
		return nil, err
	}
	if len(d.Pending) > 10 {
		d.Pending, d.MorePending = d.Pending[:10], true
	}
	if d.Failed, err = l.Queue(ctx, ledger.QueueFailed, 50); err != nil {
		return nil, err
	}
	return d, nil
}

func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	d, err := s.homeData(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "home", view{Title: "Inbox", Nav: "home", Data: d})
}

// statusJSON is the counts by state, for the script's live status.
func (s *Server) statusJSON(w http.ResponseWriter, r *http.Request) {
	counts, err := s.opt.Ledger.StateCounts(r.Context())
	if err != nil {
		s.plainError(w, http.StatusInternalServerError, "counts unavailable")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(counts)
}

func (s *Server) save(w http.ResponseWriter, r *http.Request) {
	raw := r.PostFormValue("url")
	// web links only, by the remote faces' one rule (ledger.RemoteURL): a
	// local path or file: URL typed into a form would let the worker read
	// a file; "example.com/page" is taken as linkledger save takes it
	u, err := ledger.RemoteURL(raw)
	var out *record.Record
	if err == nil {
		out, err = s.opt.Ledger.Save(r.Context(), &record.Record{URL: u, Note: strings.TrimSpace(r.PostFormValue("note")),
			Tags: splitTags(r.PostFormValue("tags"))}, ledger.SaveOptions{Actor: actor(r)})
	}
	if err != nil {
		var ie *ledger.InputError
		var re *record.Error
		if errors.As(err, &ie) || errors.As(err, &re) {
			d, herr := s.homeData(r)
			if herr != nil {
				s.fail(w, r, herr)
				return
			}
			d.AddURL, d.AddError = raw, err.Error()
			s.render(w, r, http.StatusBadRequest, "home", view{Title: "Inbox", Nav: "home", Data: d})
			return
		}
		s.fail(w, r, err)
		return
	}
	s.poke()
	_ = out
	back(w, r, "/", "saved")
}

func (s *Server) importFile(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(4 << 20); err != nil {
		s.fail(w, r, err)
		return
	}
	defer r.MultipartForm.RemoveAll()
	// read the body to its end (the multipart reader stops at the last
	// boundary): only then does net/http watch the connection and end
	// the request's context when the client goes away, which stops the
	// import
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		s.fail(w, r, err)
		return
	}
	f, hdr, err := r.FormFile("file")
	if err != nil {
		s.fail(w, r, &ledger.InputError{Code: record.CodeBadInput, Message: "choose an export file to import"})
		return
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxImportBytes+1))
	f.Close()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(data) > MaxImportBytes {
		s.fail(w, r, &http.MaxBytesError{Limit: MaxImportBytes})
		return
	}
	// one import at a time: a second one would only wait for the write
	// lock and slow the first
	if !s.importing.TryLock() {
		s.render(w, r, http.StatusConflict, "error", view{Title: "An import is running",
			Data: "Another import is running in this app. Wait until it is done (its links show up in the inbox), then import this file again."})
		return
	}
	// the slot is free again before anything is said of this import, so
	// a next import that follows its answer (or its log line) is taken
	res, err := func() (*ledger.ImportResult, error) {
		defer s.importing.Unlock()
		return s.opt.Ledger.Import(r.Context(), hdr.Filename, data, ledger.ImportOptions{
			Format: r.FormValue("format"), Tags: splitTags(r.FormValue("tags")), WebOnly: true, Actor: actor(r)})
	}()
	if err != nil && r.Context().Err() != nil {
		// the client went away (closed the tab, gave up): the import
		// stopped between links; what was committed stays
		saved := 0
		if res != nil {
			saved = res.Saved
		}
		s.logf("import of %s stopped, its request ended: %d new links saved", hdr.Filename, saved)
		s.poke()
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.poke()
	http.Redirect(w, r, "/import/"+s.imports.keep(res), http.StatusSeeOther)
}

func (s *Server) retry(w http.ResponseWriter, r *http.Request) {
	if _, err := s.opt.Ledger.Retry(r.Context(), r.PathValue("id"), ledger.WriteOptions{Actor: actor(r)}); err != nil {
		s.fail(w, r, err)
		return
	}
	s.poke()
	back(w, r, "/", "retry")
}

// --- search ---------------------------------------------------------------

type searchData struct {
	Q, Tags, Type, Since, Until, Actor, Status, Archived string
	Terms                                                []string
	Hits                                                 []*record.Record
	Dropped                                              []string
	Pager                                                pager
	Offset                                               int
	// Mode is the ranking asked for (?mode=, "" the default); Semantic
	// says an embeddings endpoint is configured, so the page offers the
	// choice and says which ranking it used (Ranked); Warnings say why
	// that is not the one asked for or the default (docs/ui.md, "Search
	// and the ranking").
	Mode, Ranked string
	Semantic     bool
	Warnings     []string
	// ArchivedMatches: the search left archived items out and found
	// nothing, but finds this many archived ones (ArchivedLink shows them).
	ArchivedMatches int
	ArchivedLink    string
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := &searchData{Q: q.Get("q"), Tags: q.Get("tags"), Type: q.Get("type"), Since: q.Get("since"), Until: q.Get("until"),
		Actor: q.Get("actor"), Status: q.Get("status"), Archived: q.Get("archived"), Mode: q.Get("mode"), Semantic: s.opt.Embedder != nil}
	page := pageNumber(q.Get("page"))
	opt := ledger.FindOptions{Query: strings.TrimSpace(d.Q), Limit: perPage + 1, Offset: (page - 1) * perPage, Embedder: s.opt.Embedder}
	req := ledger.FindRequest{Tags: splitTags(d.Tags), Type: d.Type, Since: d.Since, Until: d.Until, Actor: d.Actor, Status: d.Status,
		Archived: d.Archived, Mode: d.Mode}
	opt, err := req.Options(opt, time.Now())
	if err != nil {
		s.fail(w, r, &ledger.InputError{Code: record.CodeBadInput, Message: err.Error()})
		return
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
	d.Hits, d.Dropped, d.Offset = res.Hits, res.Dropped, opt.Offset
	d.Ranked, d.Warnings = res.Mode, res.Warnings
	d.Terms = queryTerms(d.Q)
	d.Pager = newPager(q, page, more)
	if res.ArchivedMatches > 0 {
		d.ArchivedMatches, d.ArchivedLink = res.ArchivedMatches, archivedSearch(q)
	}
	s.render(w, r, http.StatusOK, "search", view{Title: "Search", Nav: "search", Data: d})
}

// --- reader ---------------------------------------------------------------

type readerData struct {
	Item   *record.Record
	Ingest spec.IngestInfo
	Paras  []para
	// Blocks is the structured document (record.Markdown) when the item
	// has one; the reader then shows it instead of Paras.
	Blocks    []*sblock
	Loose     []record.Annotation // highlights and lowlights not marked in place
	Notes     []record.Annotation
	HasText   bool
	Back      string
	AgentTags bool
	// Part of Parts, when the text is read in parts of readerPart
	// paragraphs; PrevPart and NextPart link the parts around it.
	Part, Parts        int
	PrevPart, NextPart string
	// Extra is what actions in place need (inplace.go).
	Extra readerExtra
}

// storedImages maps the addresses of the item's images that have a
// stored copy to the app's path of that copy.
func storedImages(rec *record.Record) map[string]string {
	out := map[string]string{}
	for i, im := range rec.Images {
		if im.ContentType != "" {
			out[im.URL] = itemPath(rec.ID) + "/images/" + strconv.Itoa(i+1)
		}
	}
	return out
}

// readerPart is how many paragraphs one page of the reader shows.
const readerPart = 300

func (s *Server) reader(w http.ResponseWriter, r *http.Request) {
	d, title, err := s.readerView(r.Context(), r.PathValue("id"), r.URL.Query().Get("part"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "reader", view{Title: title, Nav: "home", Data: d})
}

// readerView is the reader's data for item id, part part (a ?part= value),
// and the page's title: for the page and for the parts an action in place
// redraws (inplace.go).
func (s *Server) readerView(ctx context.Context, id, partArg string) (*readerData, string, error) {
	rec, err := s.opt.Ledger.Show(ctx, id, ledger.ShowOptions{Text: true, Markdown: true})
	if err != nil {
		return nil, "", err
	}
	d := &readerData{Item: rec, Ingest: ledger.Ingest(rec), Back: itemPath(rec.ID)}
	ps := ledger.Paragraphs(rec.Chunks)
	d.HasText = len(ps) > 0
	var placed map[int64]bool
	n := 0
	if d.HasText && rec.Markdown != "" {
		// the structure, marked where the text holds the quotes
		texts := make([]string, len(ps))
		for i, p := range ps {
			texts[i] = p.Text
		}
		var ok bool
		d.Blocks, placed, ok = structureBlocks(rec.Markdown, strings.Join(texts, "\n\n"), rec.Annotations, storedImages(rec))
		n = len(d.Blocks)
		if !ok {
			d.Blocks = nil
		}
	}
	if d.Blocks == nil {
		d.Paras, placed = markParagraphs(ps, rec.Annotations)
		n = len(d.Paras)
	}
	// a long text is read in parts, so a page stays light
	if parts := (n + readerPart - 1) / readerPart; parts > 1 {
		part := min(pageNumber(partArg), parts)
		if rd := rec.Reading; partArg == "" && rd != nil && rd.Part > 1 {
			part = min(rd.Part, parts) // reopened: the part it was left in
		}
		if d.Blocks != nil {
			d.Blocks = d.Blocks[(part-1)*readerPart : min(part*readerPart, n)]
		} else {
			d.Paras = d.Paras[(part-1)*readerPart : min(part*readerPart, n)]
		}
		d.Part, d.Parts = part, parts
		q := url.Values{}
		if part > 1 {
			q.Set("part", strconv.Itoa(part-1))
			d.PrevPart = "?" + q.Encode()
		}
		if part < parts {
			q.Set("part", strconv.Itoa(part+1))
			d.NextPart = "?" + q.Encode()
		}
		d.Back = itemPath(rec.ID) + "?part=" + strconv.Itoa(part)
	}
	for _, a := range rec.Annotations {
		switch {
		case a.Type == record.AnnNote:
			d.Notes = append(d.Notes, a)
		case !placed[a.ID]:
			d.Loose = append(d.Loose, a)
		}
	}
	for _, t := range rec.Tagged {
		if isAgent(t.Actor) {
			d.AgentTags = true
		}
	}
	if err := s.readerExtras(ctx, d); err != nil {
		return nil, "", err
	}
	title := rec.Title
	if title == "" {
		title = rec.URL
	}
	return d, title, nil
}

// image serves the stored copy of an item's image, from the ledger: the
// reader never points a browser at the image's own address. The type is
// the one its bytes were recognised as (a raster image; never SVG, never
// HTML), nosniff keeps the browser to it, and the copy never changes
// under its path while the item keeps its content, so the browser may
// keep it a day.
func (s *Server) image(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 || n > record.MaxListedImages {
		s.plainError(w, http.StatusNotFound, "no such image")
		return
	}
	mt, data, err := s.opt.Ledger.Image(r.Context(), r.PathValue("id"), n)
	if errors.Is(err, spec.ErrNoImage) {
		s.plainError(w, http.StatusNotFound, "no stored copy of this image")
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", mt)
	h.Set("Content-Length", strconv.Itoa(len(data)))
	h.Set("Content-Disposition", "inline")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(data)
	}
}

func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	evs, err := s.opt.Ledger.History(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "history", view{Title: "History", Nav: "home", Data: struct {
		ID   string
		Rows []historyRow
	}{id, historyRows(evs[0].ID, evs)}})
}

func (s *Server) confirmDelete(w http.ResponseWriter, r *http.Request) {
	rec, err := s.opt.Ledger.Status(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "delete", view{Title: "Delete", Nav: "home", Data: rec})
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request) {
	if r.PostFormValue("confirm") != "yes" {
		s.fail(w, r, &ledger.InputError{Code: record.CodeBadInput, Message: "delete needs confirming"})
		return
	}
	if _, err := s.opt.Ledger.Delete(r.Context(), r.PathValue("id"), ledger.WriteOptions{Actor: actor(r)}); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/?done=deleted", http.StatusSeeOther)
}

// maxQuote bounds the text of one annotation from the app.
const maxQuote = 16 << 10

func (s *Server) annotate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	typ := r.PostFormValue("type")
	quote := strings.TrimSpace(r.PostFormValue("quote"))
	note := strings.TrimSpace(r.PostFormValue("note"))
	var a record.Annotation
	switch typ {
	case record.AnnHighlight, record.AnnLowlight:
		a = record.Annotation{Type: typ, Text: quote, Actor: actor(r)}
	case record.AnnNote:
		text := note
		if quote != "" {
			// the note quotes what it is about, as imported notes do
			text = note + "\n\n> " + quote
		}
		a = record.Annotation{Type: typ, Text: strings.TrimSpace(text), Actor: actor(r)}
	default:
		s.fail(w, r, &ledger.InputError{Code: record.CodeBadInput, Message: record.CheckAnnotationType(typ).Error()})
		return
	}
	if a.Text == "" || len(a.Text) > maxQuote {
		s.fail(w, r, &ledger.InputError{Code: record.CodeBadInput, Message: "select some text (at most 16 KiB) or write a note"})
		return
	}
	out, err := s.opt.Ledger.Annotate(r.Context(), id, []record.Annotation{a}, ledger.SaveOptions{Actor: actor(r)})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	anchor := "anns-box"
	if out.Save != nil && len(out.Save.AnnotationIDs) > 0 {
		anchor = annAnchor(out.Save.AnnotationIDs[0])
	}
	s.readerDone(w, r, id, "annotated", anchor)
}

func annID(r *http.Request) (int64, error) {
	n, err := strconv.ParseInt(r.PathValue("aid"), 10, 64)
	if err != nil || n <= 0 {
		return 0, errBadForm
	}
	return n, nil
}

func (s *Server) pin(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	aid, err := annID(r)
	if err == nil {
		_, err = s.opt.Ledger.Pin(r.Context(), id, aid, r.PostFormValue("pin") != "0", ledger.SaveOptions{Actor: actor(r)})
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	done := "pinned"
	if r.PostFormValue("pin") == "0" {
		done = "unpinned"
	}
	s.readerDone(w, r, id, done, annAnchor(aid))
}

func (s *Server) unannotate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	aid, err := annID(r)
	if err == nil {
		_, err = s.opt.Ledger.Unannotate(r.Context(), id, []int64{aid}, ledger.WriteOptions{Actor: actor(r)})
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.readerDone(w, r, id, "removed", "anns-box")
}

// reviewAnnotation confirms or rejects an annotation, pins it or sets its
// confidence (the review queue's and the reader's buttons).
func (s *Server) reviewAnnotation(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	aid, err := annID(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d := record.ReviewDecision{AnnotationID: aid}
	switch r.PostFormValue("decision") {
	case "confirm":
		d.Decision = spec.ReviewConfirmed
	case "reject":
		d.Decision = spec.ReviewRejected
	case "undo":
		d.Decision = spec.ReviewUndo
	case "":
	default:
		s.fail(w, r, &ledger.InputError{Code: record.CodeBadInput, Message: "decision: want confirm or reject"})
		return
	}
	if v := r.PostFormValue("confidence"); v != "" {
		c, err := record.ParseConfidence(v)
		if err != nil {
			s.fail(w, r, &ledger.InputError{Code: record.CodeBadInput, Message: err.Error()})
			return
		}
		d.Confidence = &c
	}
	if v := r.PostFormValue("pinned"); v != "" {
		p := v == "1"
		d.Pinned = &p
	}
	if d.Decision == "" && d.Confidence == nil && d.Pinned == nil {
		s.fail(w, r, &ledger.InputError{Code: record.CodeBadInput, Message: "nothing to review: confirm, reject, pin or a confidence"})
		return
	}
	s.decide(w, r, id, spec.ReviewDecision{AnnotationID: aid, ItemID: id, Decision: d.Decision, Confidence: d.Confidence,
		Pinned: d.Pinned, IfVersion: r.PostFormValue("if_version")})
}

func (s *Server) tags(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	add, remove := splitTags(r.PostFormValue("add")), splitTags(r.PostFormValue("remove"))
	if _, err := s.opt.Ledger.Tag(r.Context(), id, add, remove, ledger.SaveOptions{Actor: actor(r)}); err != nil {
		s.fail(w, r, err)
		return
	}
	s.readerDone(w, r, id, "tagged", "tags-box")
}

// promoteTag confirms an agent's tag: a person now stands behind it.
func (s *Server) promoteTag(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	tag := strings.TrimSpace(r.PostFormValue("tag"))
	if tag == "" {
		s.fail(w, r, &ledger.InputError{Code: record.CodeBadInput, Message: "no tag named"})
		return
	}
	if _, err := s.opt.Ledger.Review(r.Context(), spec.ReviewDecision{ItemID: id, Tag: tag, Decision: spec.ReviewConfirmed}, ledger.WriteOptions{Actor: actor(r)}); err != nil {
		s.fail(w, r, err)
		return
	}
	s.readerDone(w, r, id, "promoted", "tags-box")
}

func (s *Server) archive(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	on := r.PostFormValue("archived") != "0"
	if _, err := s.opt.Ledger.Archive(r.Context(), id, on, ledger.WriteOptions{Actor: actor(r)}); err != nil {
		s.fail(w, r, err)
		return
	}
	done := "archived"
	if !on {
		done = "unarchived"
	}
	s.readerDone(w, r, id, done, "r-head")
}

// --- review queue: review_page.go -------------------------------------------

// --- highlights -------------------------------------------------------------

type highlightsData struct {
	Actor, Tag, Conf, Review, Q, Type string
	Recs                              []*record.Record
	Pager                             pager
}

func (s *Server) highlights(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d, f, err := readHighlightsQuery(q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	page := pageNumber(q.Get("page"))
	f.Limit, f.Offset = perPage+1, (page-1)*perPage
	recs, err := s.opt.Ledger.Highlights(r.Context(), f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	more := len(recs) > perPage
	if more {
		recs = recs[:perPage]
	}
	d.Recs, d.Pager = recs, newPager(q, page, more)
	s.render(w, r, http.StatusOK, "highlights", view{Title: "Highlights", Nav: "highlights", Data: d})
}

// --- packs ------------------------------------------------------------------

func (s *Server) packs(w http.ResponseWriter, r *http.Request) {
	ps, err := s.opt.Ledger.ListPacks(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "packs", view{Title: "Packs", Nav: "packs", Data: struct {
		Packs []record.PackInfo
		Query string
	}{ps, r.URL.Query().Get("q")}})
}

func (s *Server) createPack(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	// the ranking of the search it was saved from
	o := ledger.DefaultPackOptions()
	o.Mode = r.PostFormValue("mode")
	if err := ledger.CheckPackOptions(o); err != nil {
		s.fail(w, r, &ledger.InputError{Code: record.CodeBadInput, Message: err.Error()})
		return
	}
	p, err := s.opt.Ledger.SavePack(r.Context(), name, r.PostFormValue("query"), o, ledger.PackWriteOptions{Actor: actor(r), Embedder: s.opt.Embedder})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/packs/"+url.PathEscape(name)+"?done="+s.packDone(p, "created"), http.StatusSeeOther)
}

func (s *Server) refreshPack(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	p, err := s.opt.Ledger.RefreshPack(r.Context(), name, ledger.PackWriteOptions{Actor: actor(r), Embedder: s.opt.Embedder})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/packs/"+url.PathEscape(name)+"?done="+s.packDone(p, "refreshed"), http.StatusSeeOther)
}

// packDone is the flash of a pack built: done, or done-lexical when the
// ranking it was saved with could not be had (the warnings go to the
// log: the flash is a fixed text).
func (s *Server) packDone(p *record.PackInfo, done string) string {
	if len(p.Warnings) == 0 {
		return done
	}
	for _, w := range p.Warnings {
		s.logf("pack %s: warning: %s", p.Name, w)
	}
	return done + "-lexical"
}

func (s *Server) pack(w http.ResponseWriter, r *http.Request) {
	p, err := s.opt.Ledger.ShowPack(r.Context(), r.PathValue("name"), 0)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var b brief.Pack
	if len(p.Brief) > 0 {
		if err := json.Unmarshal(p.Brief, &b); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	s.render(w, r, http.StatusOK, "pack", view{Title: "Pack " + p.Name, Nav: "packs", Data: struct {
		Info  *record.PackInfo
		Brief brief.Pack
	}{p, b}})
}
