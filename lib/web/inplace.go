package web

// Actions in place (docs/ui.md "Actions in place"): the reader's forms
// (annotate, pin, confirm, reject, confidence, remove, tags, archive) are
// posted by the script with fetch and the header Fragment; the answer is
// the reader's content drawn again without the layout, and the script
// swaps in the parts that changed, so the reader keeps their place.
// Without the script, the post's redirect returns to an anchor at the
// passage (/items/ID#a-NNN). Both ways pass the same security layer: the
// fetch is a same-origin POST with Origin and Sec-Fetch-Site, checked by
// cross-origin protection like a form's.

import (
	"bytes"
	"context"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/linkledger/linkledger/lib/ledger/spec"
)

// fragmentHeader is the request header the script sends to ask for a
// fragment instead of a redirect: "reader" (the reader's content) or
// "review" (one card of the review queue). A cross-origin page cannot send
// it without a CORS preflight, which this server never grants.
const fragmentHeader = "Fragment"

// wantsFragment reports which fragment a post asks for ("" for none).
func wantsFragment(r *http.Request) string {
	switch v := r.Header.Get(fragmentHeader); v {
	case "reader", "review":
		return v
	}
	return ""
}

// readerExtra is what the reader's page carries for actions in place:
// the annotations' versions (a decision names the one it was made on,
// and a stale one is refused) and which annotations have a mark with the
// anchor a-ID in this part of the text (the others get the anchor in
// the list of annotations).
type readerExtra struct {
	Versions map[int64]string
	Anchored map[int64]bool
}

// readerExtras fills d.Extra: versions from the ledger, anchors on the
// first mark of each annotation in the part shown.
func (s *Server) readerExtras(ctx context.Context, d *readerData) error {
	v, err := s.opt.Ledger.AnnotationVersions(ctx, d.Item.ID)
	if err != nil {
		return err
	}
	d.Extra = readerExtra{Versions: v, Anchored: map[int64]bool{}}
	for i := range d.Paras {
		anchorSegs(d.Paras[i].Segs, d.Extra.Anchored)
	}
	var walk func(bs []*sblock)
	walk = func(bs []*sblock) {
		for _, b := range bs {
			anchorSegs(b.Segs, d.Extra.Anchored)
			walk(b.Kids)
		}
	}
	walk(d.Blocks)
	return nil
}

// anchorSegs marks the first run of each annotation not yet in seen.
func anchorSegs(segs []annSeg, seen map[int64]bool) {
	for i := range segs {
		if a := segs[i].Ann; a != nil && !seen[a.ID] {
			segs[i].Anchor, seen[a.ID] = true, true
		}
		if a := segs[i].Inner; a != nil && !seen[a.ID] {
			segs[i].InnerAnchor, seen[a.ID] = true, true
		}
	}
}

// readerDone ends a reader action: the reader's content for the script
// (the part the form's back names), else a redirect (303) to back with
// the flash done and the anchor at the fragment anchor ("a-ID" for an
// annotation, or a section's id).
func (s *Server) readerDone(w http.ResponseWriter, r *http.Request, id, done, anchor string) {
	if wantsFragment(r) == "reader" {
		part := ""
		if u, err := url.Parse(r.PostFormValue("back")); err == nil {
			part = u.Query().Get("part")
		}
		d, title, err := s.readerView(r.Context(), id, part)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		s.renderContent(w, r, "reader", view{Title: title, Nav: "home", Flash: flashes[done], Data: d})
		return
	}
	backTo(w, r, itemPath(id), done, anchor)
}

// renderContent draws page name's content without the layout: what the
// script swaps in. The flash leads it, in an element of its own.
func (s *Server) renderContent(w http.ResponseWriter, r *http.Request, name string, v view) {
	t := s.pages.byName[name]
	if t == nil {
		s.plainError(w, http.StatusInternalServerError, "no page "+name)
		return
	}
	var b bytes.Buffer
	if err := flashTemplate.Execute(&b, v.Flash); err != nil {
		s.plainError(w, http.StatusInternalServerError, "the page could not be drawn")
		return
	}
	if err := t.ExecuteTemplate(&b, "content", v); err != nil {
		s.logf("page %s: %v", name, err)
		s.plainError(w, http.StatusInternalServerError, "the page could not be drawn")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Vary", fragmentHeader)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b.Bytes())
}

// backTo is back with an anchor: a redirect (303) to the page the form
// names (a local path only) or fallback, with the flash key done and the
// fragment anchor.
func backTo(w http.ResponseWriter, r *http.Request, fallback, done, anchor string) {
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
	u.Fragment = anchor
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

// annAnchor is the anchor of annotation id in the reader.
func annAnchor(id int64) string { return "a-" + strconv.FormatInt(id, 10) }

// isStale reports a decision refused as stale (409 Conflict).
func isStale(err error) bool {
	var se *spec.StaleError
	return errors.As(err, &se)
}

// flashTemplate is the flash that leads a fragment (empty when none).
var flashTemplate = template.Must(template.New("flash").Parse(`<p class="flash" role="status" id="flash"{{if not .}} hidden{{end}}>{{.}}</p>
`))

func init() {
	flashes["undone"] = "Decision undone."
}
