package web

// The review queue you can trust (docs/ui.md "Review you can trust"):
// each card shows the quote inside its sentence(s); every decision names
// the version of the annotation or tag it was made on, and one made on a
// stale page is refused (409) with a message, not applied (the rule is
// lib/ledger's, in the transaction that would change it); a decision can
// be undone; a batch is applied in one transaction, all or nothing.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// reviewCard is one card of the review queue: an agent's annotation
// (Ann) or tag (Tag) on Item, with the sentence(s) around the quote.
type reviewCard struct {
	Item *record.Record
	Ann  *record.Annotation
	Tag  *record.Tag
	// Before and After are the text around the quote in its passage
	// (empty when the quote is not found there).
	Before, After string
	// Decided is what a person just did to it (confirmed, rejected,
	// pinned): the card then says so and offers Undo.
	Decided string
}

// Version is the version of the annotation or tag the card shows.
func (c *reviewCard) Version() string {
	if c.Ann != nil {
		return c.Ann.Version
	}
	if c.Tag != nil {
		return c.Tag.Version
	}
	return ""
}

// reviewData is the review page.
type reviewData struct {
	Cards   []*reviewCard
	Decayed bool
	// Undo is the last decision of a post without the script (its
	// redirect names it), offered for undoing.
	Undo *reviewCard
}

func (s *Server) reviewPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	decayed := r.URL.Query().Get("decayed") == "1"
	recs, err := s.opt.Ledger.ReviewQueue(ctx, ledger.ReviewQueueOptions{Limit: reviewPage, Decayed: decayed})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	cards, err := s.reviewCards(ctx, recs, "")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d := &reviewData{Cards: cards, Decayed: decayed}
	d.Undo = s.undoCard(ctx, r.URL.Query())
	s.render(w, r, http.StatusOK, "review", view{Title: "Review", Nav: "review", Data: d})
}

// reviewCards makes the cards of recs (one annotation or tag each), with
// each quote's context from the passage it is anchored to.
func (s *Server) reviewCards(ctx context.Context, recs []*record.Record, decided string) ([]*reviewCard, error) {
	var chunks []int64
	for _, r := range recs {
		for _, a := range r.Annotations {
			if a.ChunkID != nil {
				chunks = append(chunks, *a.ChunkID)
			}
		}
	}
	texts, err := s.opt.Ledger.ChunkTexts(ctx, chunks)
	if err != nil {
		return nil, err
	}
	var out []*reviewCard
	for _, r := range recs {
		for i := range r.Annotations {
			a := &r.Annotations[i]
			c := &reviewCard{Item: r, Ann: a, Decided: decided}
			if a.ChunkID != nil {
				c.Before, c.After = quoteContext(texts[*a.ChunkID], a.Text)
			}
			out = append(out, c)
		}
		for i := range r.Tagged {
			out = append(out, &reviewCard{Item: r, Tag: &r.Tagged[i], Decided: decided})
		}
	}
	return out, nil
}

// undoCard is the decision a redirect names (undo_item, undo_ann or
// undo_tag, undo_v: the version after it, undo_what), as it now is: nil
// when it names none, or it changed since.
func (s *Server) undoCard(ctx context.Context, q url.Values) *reviewCard {
	item, what := q.Get("undo_item"), q.Get("undo_what")
	if item == "" || !ledger.IsItemID(item) {
		return nil
	}
	rec, err := s.opt.Ledger.Show(ctx, item, ledger.ShowOptions{})
	if err != nil {
		return nil
	}
	c := &reviewCard{Item: &record.Record{ID: rec.ID, URL: rec.URL, Title: rec.Title}, Decided: what}
	if id, err := strconv.ParseInt(q.Get("undo_ann"), 10, 64); err == nil {
		for i := range rec.Annotations {
			if rec.Annotations[i].ID == id {
				c.Ann = &rec.Annotations[i]
			}
		}
		if c.Ann == nil {
			return nil
		}
		c.Ann.Version = q.Get("undo_v")
		return c
	}
	if tag := q.Get("undo_tag"); tag != "" {
		c.Tag = &record.Tag{Tag: tag, Version: q.Get("undo_v")}
		return c
	}
	return nil
}

// decide applies one decision of the review queue's or the reader's
// buttons. The script's review page gets the card back (decided, with
// Undo; or undecided again after an undo); the reader's, its content;
// without the script, a redirect: to the review page naming the decision
// (for its Undo), or to the reader at the annotation.
func (s *Server) decide(w http.ResponseWriter, r *http.Request, id string, d spec.ReviewDecision) {
	ctx := r.Context()
	rec, err := s.opt.Ledger.Review(ctx, d, ledger.WriteOptions{Actor: actor(r)})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	what := decidedWhat(d)
	toReview := strings.HasPrefix(r.PostFormValue("back"), "/review")
	switch {
	case wantsFragment(r) == "review":
		if d.Decision == spec.ReviewUndo || (d.Pinned != nil && !*d.Pinned) {
			// undone: the card as it was, undecided (the queue has no
			// confidence or pin to take back beyond the pin)
			what = ""
		}
		cards, err := s.reviewCards(ctx, []*record.Record{rec}, what)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		t := s.pages.byName["review"]
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Vary", fragmentHeader)
		if err := t.ExecuteTemplate(w, "card", cards[0]); err != nil {
			s.logf("review card: %v", err)
		}
	case toReview:
		q := url.Values{"done": {"reviewed"}}
		if what != "" {
			q.Set("undo_item", rec.ID)
			q.Set("undo_what", what)
			if d.Tag != "" && len(rec.Tagged) == 1 {
				q.Set("undo_tag", rec.Tagged[0].Tag)
				q.Set("undo_v", rec.Tagged[0].Version)
			} else if len(rec.Annotations) == 1 {
				q.Set("undo_ann", strconv.FormatInt(rec.Annotations[0].ID, 10))
				q.Set("undo_v", rec.Annotations[0].Version)
			}
		} else {
			q.Set("done", "undone")
		}
		http.Redirect(w, r, "/review?"+q.Encode(), http.StatusSeeOther)
	default:
		anchor := "tags-box"
		if d.AnnotationID > 0 {
			anchor = annAnchor(d.AnnotationID)
		}
		done := "reviewed"
		if d.Decision == spec.ReviewUndo {
			done = "undone"
		}
		s.readerDone(w, r, id, done, anchor)
	}
}

// decidedWhat names what a decision did, for its card and its Undo:
// confirmed, rejected, pinned ("" for an undo, an unpin or a confidence).
func decidedWhat(d spec.ReviewDecision) string {
	switch {
	case d.Decision == spec.ReviewConfirmed, d.Decision == spec.ReviewRejected:
		return d.Decision
	case d.Decision == "" && d.Pinned != nil && *d.Pinned && d.Confidence == nil:
		return "pinned"
	}
	return ""
}

// reviewTag confirms, rejects or undoes the decision on an agent's tag
// (the review queue's tag cards).
func (s *Server) reviewTag(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	tag := strings.TrimSpace(r.PostFormValue("tag"))
	d := spec.ReviewDecision{ItemID: id, Tag: tag, IfVersion: r.PostFormValue("if_version")}
	switch r.PostFormValue("decision") {
	case "confirm":
		d.Decision = spec.ReviewConfirmed
	case "reject":
		d.Decision = spec.ReviewRejected
	case "undo":
		d.Decision = spec.ReviewUndo
	default:
		s.fail(w, r, &ledger.InputError{Code: record.CodeBadInput, Message: "decision: want confirm, reject or undo"})
		return
	}
	if tag == "" {
		s.fail(w, r, &ledger.InputError{Code: record.CodeBadInput, Message: "no tag named"})
		return
	}
	s.decide(w, r, id, d)
}

// maxBatch bounds the decisions of one batch post.
const maxBatch = reviewPage

// reviewBatch confirms or rejects the checked annotations of the review
// queue (values ITEM:ANNOTATION:VERSION; the version may be left out) in
// one transaction: all of them, or, when one fails (it changed since the
// page showed it, it is gone), none, and the page says which.
func (s *Server) reviewBatch(w http.ResponseWriter, r *http.Request) {
	var decision string
	switch r.PostFormValue("decision") {
	case "confirm":
		decision = spec.ReviewConfirmed
	case "reject":
		decision = spec.ReviewRejected
	default:
		s.fail(w, r, &ledger.InputError{Code: record.CodeBadInput, Message: "decision: want confirm or reject"})
		return
	}
	picked := r.PostForm["ann"]
	if len(picked) == 0 || len(picked) > maxBatch {
		s.fail(w, r, &ledger.InputError{Code: record.CodeBadInput, Message: fmt.Sprintf("check from 1 to %d annotations", maxBatch)})
		return
	}
	ds := make([]spec.ReviewDecision, 0, len(picked))
	for _, v := range picked {
		parts := strings.Split(v, ":")
		var n int64
		var err error
		if len(parts) == 2 || len(parts) == 3 {
			n, err = strconv.ParseInt(parts[1], 10, 64)
		}
		if (len(parts) != 2 && len(parts) != 3) || err != nil || n <= 0 || !ledger.IsItemID(parts[0]) {
			s.fail(w, r, &ledger.InputError{Code: record.CodeBadInput, Message: fmt.Sprintf("%q is not ITEM:ANNOTATION", v)})
			return
		}
		d := spec.ReviewDecision{ItemID: parts[0], AnnotationID: n, Decision: decision}
		if len(parts) == 3 {
			d.IfVersion = parts[2]
		}
		ds = append(ds, d)
	}
	if _, err := s.opt.Ledger.ReviewAll(r.Context(), ds, ledger.WriteOptions{Actor: actor(r)}); err != nil {
		var be *spec.BatchError
		if errors.As(err, &be) && be.Index < len(ds) {
			err = fmt.Errorf("annotation %d: %w; nothing in the batch was changed", ds[be.Index].AnnotationID, be.Err)
		}
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/review?done=reviewed", http.StatusSeeOther)
}

// contextLimit bounds the context shown on each side of a quote.
const contextLimit = 320

// quoteContext is the text around quote in passage: from the start of
// the sentence the quote begins in to the end of the one it ends in
// (sentences end at ., ! or ? before a space, or at a blank line), at
// most contextLimit bytes each side, cut at a space with an ellipsis.
// Whitespace runs count as one space (a blank line as a break). Both
// are empty when the quote is not in the passage.
func quoteContext(passage, quote string) (before, after string) {
	p, q := squeeze(passage), squeeze(quote)
	if q == "" {
		return "", ""
	}
	at := strings.Index(p, q)
	if at < 0 {
		return "", ""
	}
	end := at + len(q)
	// back to the sentence's start
	lo := max(0, at-contextLimit)
	for lo > 0 && !utf8.RuneStart(p[lo]) {
		lo++
	}
	start := -1
	left := p[lo:at]
	for i := len(left) - 1; i >= 0; i-- {
		if sentenceBreakAt(left, i) {
			start = lo + i + 1
			break
		}
	}
	switch {
	case start >= 0:
		before = strings.TrimLeft(p[start:at], " \n")
	case lo == 0:
		before = p[:at]
	default:
		b := p[lo:at]
		if sp := strings.IndexByte(b, ' '); sp >= 0 && sp < len(b)-1 {
			b = b[sp+1:]
		}
		before = "…" + b
	}
	// on to the sentence's end (the quote may end one itself)
	if end > 0 && sentenceBreakAt(p[:min(len(p), end+1)], end-1) {
		return before, ""
	}
	hi := min(len(p), end+contextLimit)
	for hi < len(p) && !utf8.RuneStart(p[hi]) {
		hi--
	}
	right := p[end:hi]
	for i := 0; i < len(right); i++ {
		if right[i] == '\n' {
			return before, strings.TrimRight(right[:i], " \n")
		}
		if sentenceBreakAt(p[:min(len(p), end+i+2)], end+i) {
			return before, right[:i+1]
		}
	}
	if hi == len(p) {
		return before, right
	}
	if sp := strings.LastIndexByte(right, ' '); sp > 0 {
		right = right[:sp]
	}
	return before, right + "…"
}

// sentenceBreakAt reports whether s[i] ends a sentence: . ! or ? followed
// by a space, a break or the end of s; or a line break.
func sentenceBreakAt(s string, i int) bool {
	switch s[i] {
	case '\n':
		return true
	case '.', '!', '?':
		return i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n'
	}
	return false
}

// squeeze makes every run of whitespace one space, or one line break
// when it holds a blank line, and trims the ends.
func squeeze(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	ws, nl := false, 0
	flush := func() {
		if ws && b.Len() > 0 {
			if nl >= 2 {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
		ws, nl = false, 0
	}
	for _, r := range s {
		switch r {
		case ' ', '\t', '\r', '\n', '\f', '\v', '\u00a0':
			ws = true
			if r == '\n' {
				nl++
			}
			continue
		}
		flush()
		b.WriteRune(r)
	}
	return b.String()
}
