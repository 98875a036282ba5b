// Package human renders linkledger records for a person at a terminal:
// one compact block per search hit, one line per saved, indexed or failed
// record, a short block per item status. It is a view of the very records
// a pipe gets as NDJSON, never a second query: lib/cli's Output decides
// when it is used (see docs/output.md).
package human

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/termsafe"
)

// ANSI styles; used only when the Renderer has colour on.
const (
	reset  = "\x1b[0m"
	bold   = "\x1b[1m"
	dim    = "\x1b[2m"
	red    = "\x1b[31m"
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	cyan   = "\x1b[36m"
	marked = "\x1b[1;33m"
)

// Renderer writes records for a person. It is not safe for concurrent use.
type Renderer struct {
	w      io.Writer
	color  bool
	blocks int // multi-line blocks written, for the blank line between them
	width  int // terminal columns for wrapped text; 0: DefaultWidth
}

// New returns a Renderer on w; color turns on ANSI colour and bold.
func New(w io.Writer, color bool) *Renderer { return &Renderer{w: w, color: color} }

// Color reports whether the renderer writes ANSI colour.
func (r *Renderer) Color() bool { return r.color }

// SetWidth sets the terminal's width in columns, to which the text view
// (show --text) is wrapped.
func (r *Renderer) SetWidth(cols int) { r.width = cols }

// Record writes one record in the form its kind asks for: an error, a
// search hit, an item status (an "ingest" object), an index result, a save
// result, or a plain item.
func (r *Renderer) Record(rec *record.Record) error {
	var b strings.Builder
	x := extras(rec)
	switch {
	case rec.Error != nil:
		r.errorLine(&b, rec)
	case rec.Hit != nil:
		r.hit(&b, rec, x)
	case x.Ingest != nil:
		r.status(&b, rec, x.Ingest)
	case rec.Index != nil:
		r.indexLine(&b, rec)
	case rec.Save != nil:
		r.saveLine(&b, rec)
	case rec.TagCount != nil:
		r.tagLine(&b, rec.TagCount)
	case rec.Change != nil:
		r.changeLine(&b, rec)
	case rec.Event != nil:
		r.eventLine(&b, rec.Event)
	case rec.Setting != nil:
		r.settingLine(&b, rec.Setting)
	case x.Citation != nil:
		r.citeLine(&b, rec, x.Citation)
	default:
		r.item(&b, rec)
	}
	_, err := io.WriteString(r.w, b.String())
	return err
}

// Text writes s as it is (ll-brief's Markdown), ending it with a newline.
func (r *Renderer) Text(s string) error {
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	_, err := io.WriteString(r.w, s)
	return err
}

func (r *Renderer) paint(style, s string) string {
	if !r.color || s == "" {
		return s
	}
	return style + s + reset
}

// block starts a multi-line block, after a blank line when one came before.
func (r *Renderer) block(b *strings.Builder) {
	if r.blocks > 0 {
		b.WriteString("\n")
	}
	r.blocks++
}

// extra is what the renderer reads from keys the record type does not own
// (or may own later: it reads the record's JSON, so a key that moves from
// Extra into a typed field renders the same).
type extra struct {
	Ingest   *ingest           `json:"ingest"`
	Copies   []json.RawMessage `json:"copies"`
	QueryID  json.RawMessage   `json:"query_id"`
	Citation *record.Citation  `json:"citation"`
}

type ingest struct {
	Status        string        `json:"status"`
	Attempts      int           `json:"attempts"`
	NextRetryAt   string        `json:"next_retry_at"`
	LastError     *record.Error `json:"last_error"`
	SavedAt       string        `json:"saved_at"`
	FetchedAt     string        `json:"fetched_at"`
	ParsedAt      string        `json:"parsed_at"`
	RevalidateDue bool          `json:"revalidate_due"`
	DuplicateOf   string        `json:"duplicate_of"`
	Chunks        *int          `json:"chunks"`
	Annotations   *int          `json:"annotations"`
	Tags          *int          `json:"tags"`

	LastEnrichError *record.Error `json:"last_enrich_error"`
}

func extras(rec *record.Record) extra {
	var x extra
	b, err := json.Marshal(rec)
	if err == nil {
		_ = json.Unmarshal(b, &x) // a key of another shape is simply not shown
	}
	return x
}

// hit writes one search result:
//
//  1. Title  +2 copies
//     ll_0123456789abcdef · article · 2026-11-22 · #ai #memory
//     https://example.com/post
//     ★ the top highlight (agent:researcher 0.82)
//     … a snippet with the *matched* words marked …
func (r *Renderer) hit(b *strings.Builder, rec *record.Record, x extra) {
	h := rec.Hit
	r.block(b)
	fmt.Fprintf(b, "%s ", r.paint(dim, fmt.Sprintf("%2d.", h.Rank)))
	if rec.Reading != nil && rec.Reading.StarredAt != "" {
		b.WriteString(r.paint(yellow, "★") + " ") // starred (linkledger star)
	}
	b.WriteString(r.paint(bold, title(rec)))
	if n := len(x.Copies); n > 0 {
		word := "copies"
		if n == 1 {
			word = "copy"
		}
		fmt.Fprintf(b, "  %s", r.paint(dim, fmt.Sprintf("+%d %s", n, word)))
	}
	b.WriteString("\n")
	// the id first, so the next command can be typed from the view
	var meta []string
	if rec.ID != "" {
		meta = append(meta, rec.ID)
	}
	if rec.SourceType != "" {
		meta = append(meta, rec.SourceType)
	}
	switch {
	case rec.PublishedAt != "":
		meta = append(meta, day(rec.PublishedAt))
	case h.SavedAt != "":
		meta = append(meta, "saved "+day(h.SavedAt))
	}
	if len(rec.Tags) > 0 {
		meta = append(meta, "#"+strings.Join(rec.Tags, " #"))
	}
	switch h.IngestState {
	case record.StateSaved:
		meta = append(meta, "pending: not fetched yet")
	case record.StateFailed:
		meta = append(meta, "ingest failed")
	}
	if rec.ArchivedAt != "" {
		meta = append(meta, "archived")
	}
	if rec.Revalidate != nil && rec.Revalidate.Due {
		meta = append(meta, "stale: fetched "+day(rec.Revalidate.FetchedAt))
	}
	if len(x.QueryID) > 0 {
		var id string
		if json.Unmarshal(x.QueryID, &id) != nil {
			id = string(x.QueryID)
		}
		meta = append(meta, "query "+id)
	}
	if len(meta) > 0 {
		fmt.Fprintf(b, "    %s\n", r.paint(dim, oneLine(strings.Join(meta, " · "))))
	}
	if u := url(rec); u != title(rec) {
		fmt.Fprintf(b, "    %s\n", r.paint(cyan, u))
	}
	if a := topAnnotation(h); a != nil {
		mark := "›"
		style := green
		if a.Type == record.AnnHighlight && a.Pinned {
			mark = "★"
		}
		if a.Type == record.AnnNote || a.Anchor != "" {
			// not a quote of the source: the writer's own words
			mark, style = "note:", ""
		}
		fmt.Fprintf(b, "    %s %s%s\n", r.paint(style, mark), oneLine(a.Text), r.paint(dim, who(*a)))
	}
	var terms []string
	if h.WhyRanked != nil {
		terms = h.WhyRanked.MatchedTerms
	}
	if len(h.Snippets) > 0 {
		s := h.Snippets[0]
		text := markTerms(oneLine(s.Text), terms, func(w string) string {
			if r.color {
				return marked + w + reset
			}
			return "*" + w + "*"
		})
		// the store marks a cut snippet with …; the line is wrapped to
		// the terminal between words (it used to be one line the
		// terminal folded mid-word)
		if s.Page > 0 {
			text += " " + r.paint(dim, "(p. "+strconv.Itoa(s.Page)+")")
		}
		if s.URL != "" {
			text += " " + r.paint(dim, s.URL)
		}
		wrapIndented(b, text, r.textWidth())
	}
	if rel := h.Related; rel != nil && (len(rel.SharedTags) > 0 || len(rel.Terms) > 0) {
		var why []string
		if len(rel.SharedTags) > 0 {
			why = append(why, "shared tags "+strings.Join(rel.SharedTags, ", "))
		}
		if len(rel.Terms) > 0 {
			why = append(why, "terms "+strings.Join(rel.Terms, ", "))
		}
		fmt.Fprintf(b, "    %s\n", r.paint(dim, "related by "+strings.Join(why, "; ")))
	}
}

// topAnnotation is the annotation a hit shows: its first highlight (the
// store orders them pinned first, then by confidence), else its first note.
func topAnnotation(h *record.Hit) *record.Annotation {
	if len(h.Highlights) > 0 {
		return &h.Highlights[0]
	}
	if len(h.Notes) > 0 {
		return &h.Notes[0]
	}
	return nil
}

// who is " (actor 0.82)" for an agent's annotation, "" for a person's.
func who(a record.Annotation) string {
	var parts []string
	if a.Actor != "" && a.Actor != "human" {
		parts = append(parts, a.Actor)
	}
	if a.Confidence != nil && a.Actor != "human" {
		parts = append(parts, strconv.FormatFloat(*a.Confidence, 'f', -1, 64))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, " ") + ")"
}

// status writes one item's full status (ll-find --id, ll-find --failed).
func (r *Renderer) status(b *strings.Builder, rec *record.Record, in *ingest) {
	r.block(b)
	fmt.Fprintf(b, "%s\n", r.paint(bold, title(rec)))
	st := in.Status
	switch st {
	case record.StateSaved:
		st = "pending: not fetched yet"
	case record.StateFailed:
		st = r.paint(red, st)
	case record.StateParsed, record.StateEnriched:
		st = r.paint(green, st)
	}
	line := []string{rec.ID}
	if rec.SourceType != "" {
		line = append(line, rec.SourceType)
	}
	line = append(line, st)
	if in.Attempts > 0 {
		line = append(line, count(in.Attempts, "attempt"))
	}
	fmt.Fprintf(b, "    %s\n", strings.Join(line, " · "))
	if u := url(rec); u != title(rec) {
		fmt.Fprintf(b, "    %s\n", r.paint(cyan, u))
	}
	var when []string
	for _, t := range []struct{ what, at string }{{"saved", in.SavedAt}, {"fetched", in.FetchedAt}, {"parsed", in.ParsedAt}, {"next retry", in.NextRetryAt}} {
		if t.at != "" {
			when = append(when, t.what+" "+minute(t.at))
		}
	}
	if len(when) > 0 {
		fmt.Fprintf(b, "    %s\n", r.paint(dim, strings.Join(when, " · ")))
	}
	var counts []string
	for _, c := range []struct {
		n    *int
		what string
	}{{in.Chunks, "chunk"}, {in.Annotations, "annotation"}, {in.Tags, "tag"}} {
		if c.n != nil {
			counts = append(counts, count(*c.n, c.what))
		}
	}
	if len(rec.Tags) > 0 {
		counts = append(counts, "#"+strings.Join(rec.Tags, " #"))
	}
	if len(counts) > 0 {
		fmt.Fprintf(b, "    %s\n", strings.Join(counts, " · "))
	}
	if in.DuplicateOf != "" {
		fmt.Fprintf(b, "    duplicate of %s\n", in.DuplicateOf)
	}
	if in.RevalidateDue {
		fmt.Fprintf(b, "    %s\n", r.paint(yellow, "due for a re-fetch"))
	}
	if e := in.LastError; e != nil {
		fmt.Fprintf(b, "    %s %s: %s: %s%s\n", r.paint(red, "last error"), e.Stage, e.Code, oneLine(e.Message), retry(e))
	}
	if e := in.LastEnrichError; e != nil {
		fmt.Fprintf(b, "    %s %s: %s\n", r.paint(yellow, "last enrich error"), e.Code, oneLine(e.Message))
	}
	// linkledger show: the item's annotations, orphans marked, and with
	// --text its text
	r.annotations(b, rec)
	r.text(b, rec)
	if rec.Markdown != "" {
		// as stored, not indented, so it can be copied whole
		b.WriteString("\n" + cleanText(rec.Markdown) + "\n")
	}
}

// item writes a record of no particular kind (queue views, ll-fetch and
// ll-parse output, an item with its annotations).
func (r *Renderer) item(b *strings.Builder, rec *record.Record) {
	var meta []string
	for _, s := range []string{rec.ID, rec.SourceType, rec.Status} {
		if s != "" {
			meta = append(meta, s)
		}
	}
	if rec.Parse != nil && rec.Parse.Adapter != "" {
		meta = append(meta, "via "+rec.Parse.Adapter)
	}
	if n := len(rec.Chunks); n > 0 {
		meta = append(meta, count(n, "chunk"))
	}
	if rec.Fetch != nil && rec.Fetch.Status != 0 {
		meta = append(meta, "HTTP "+strconv.Itoa(rec.Fetch.Status))
	}
	if len(rec.Tags) > 0 {
		meta = append(meta, "#"+strings.Join(rec.Tags, " #"))
	}
	if rec.Reading != nil && rec.Reading.StarredAt != "" {
		meta = append(meta, "★ starred")
	}
	if len(rec.Tags) == 0 && len(rec.Tagged) > 0 && len(rec.Annotations) == 0 {
		// a tag of the review queue: "title  #tag (agent:x) [review]"
		for _, t := range rec.Tagged {
			review := ""
			if t.Review != "" {
				review = " [" + oneLine(t.Review) + "]"
			}
			fmt.Fprintf(b, "%s  %s%s%s  %s\n", r.paint(bold, title(rec)), r.paint(green, "#"+oneLine(t.Tag)), r.paint(dim, " ("+oneLine(t.Actor)+")"), review,
				r.paint(dim, oneLine(rec.ID+":"+t.Tag)))
		}
		return
	}
	if len(rec.Annotations) == 0 && rec.Artifact == nil {
		// one line per item
		fmt.Fprintf(b, "%s  %s", r.paint(bold, title(rec)), r.paint(dim, oneLine(strings.Join(meta, " · "))))
		if u := url(rec); u != title(rec) {
			fmt.Fprintf(b, "  %s", r.paint(cyan, u))
		}
		b.WriteString("\n")
		return
	}
	r.block(b)
	fmt.Fprintf(b, "%s\n", r.paint(bold, title(rec)))
	if len(meta) > 0 {
		fmt.Fprintf(b, "    %s\n", r.paint(dim, oneLine(strings.Join(meta, " · "))))
	}
	if u := url(rec); u != title(rec) {
		fmt.Fprintf(b, "    %s\n", r.paint(cyan, u))
	}
	if a := rec.Artifact; a != nil && a.Summary != "" {
		fmt.Fprintf(b, "    summary: %s\n", oneLine(a.Summary))
	}
	r.annotations(b, rec)
}

// annotations writes a line per annotation of rec: type, text, who, id,
// review and orphan marks.
func (r *Renderer) annotations(b *strings.Builder, rec *record.Record) {
	for _, a := range rec.Annotations {
		mark := a.Type
		if a.Pinned {
			mark += " ★"
		}
		id := ""
		if a.ID != 0 {
			id = r.paint(dim, " #"+strconv.FormatInt(a.ID, 10))
		}
		review := ""
		if a.Review != "" {
			review = " [" + a.Review + "]"
		}
		if a.Decayed {
			review += " [decayed]"
		}
		switch {
		case a.OrphanedAt != "":
			review += " " + r.paint(yellow, "[unanchored: not in the text since "+minute(a.OrphanedAt)+"]")
		case a.Anchor == record.AnchorPending:
			review += " " + r.paint(yellow, "[pending: checked against the text when the item is ingested]")
		}
		fmt.Fprintf(b, "    %s %s%s%s%s\n", r.paint(green, mark+":"), oneLine(a.Text), r.paint(dim, who(a)), id, review)
	}
}

// saveLine writes what ll-save did: "saved ll_… URL (details)".
func (r *Renderer) saveLine(b *strings.Builder, rec *record.Record) {
	s := rec.Save
	verb := "saved"
	var what []string
	if len(s.TagsAdded) > 0 {
		what = append(what, "tags +"+strings.Join(s.TagsAdded, " +"))
	}
	if len(s.TagsRemoved) > 0 {
		what = append(what, "tags -"+strings.Join(s.TagsRemoved, " -"))
	}
	if s.NoteAdded {
		what = append(what, "note added")
	}
	if n := len(s.AnnotationIDs); n > 0 {
		ids := make([]string, n)
		for i, id := range s.AnnotationIDs {
			ids[i] = "#" + strconv.FormatInt(id, 10)
		}
		what = append(what, "annotation "+strings.Join(ids, " "))
	}
	if len(s.Pinned) > 0 {
		what = append(what, "pinned "+annIDs(s.Pinned))
	}
	if len(s.Unpinned) > 0 {
		what = append(what, "unpinned "+annIDs(s.Unpinned))
	}
	if n := len(s.Reviewed); n > 0 {
		what = append(what, fmt.Sprintf("%d review decision(s)", n))
	}
	if n := len(s.Displaced); n > 0 {
		what = append(what, fmt.Sprintf("%d agent highlight(s) displaced", n))
	}
	if s.Existing {
		verb = "updated"
		if len(what) == 0 {
			verb = "already saved"
		}
	}
	fmt.Fprintf(b, "%s %s  %s", r.paint(green, verb), rec.ID, r.paint(cyan, url(rec)))
	if rec.Status != "" && rec.Status != record.StateSaved {
		what = append([]string{rec.Status}, what...)
	}
	if len(what) > 0 {
		fmt.Fprintf(b, "  %s", r.paint(dim, "("+strings.Join(what, "; ")+")"))
	}
	b.WriteString("\n")
}

// annIDs is "#2 #3".
func annIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = "#" + strconv.FormatInt(id, 10)
	}
	return strings.Join(s, " ")
}

// settingLine writes one ledger setting: "decay  {...}  (stored by human at …)".
func (r *Renderer) settingLine(b *strings.Builder, s *record.Setting) {
	src := s.Source
	if s.UpdatedBy != "" {
		src += " by " + s.UpdatedBy + " " + minute(s.UpdatedAt)
	}
	fmt.Fprintf(b, "%s  %s  %s\n", r.paint(bold, s.Key), string(s.Value), r.paint(dim, "("+src+")"))
}

// tagLine writes one tag of the tags listing: "#ai  12 items (human 9, agent:r 3)".
func (r *Renderer) tagLine(b *strings.Builder, t *record.TagCount) {
	actors := make([]string, 0, len(t.ByActor))
	for a := range t.ByActor {
		actors = append(actors, a)
	}
	sort.Slice(actors, func(i, j int) bool {
		if t.ByActor[actors[i]] != t.ByActor[actors[j]] {
			return t.ByActor[actors[i]] > t.ByActor[actors[j]]
		}
		return actors[i] < actors[j]
	})
	by := make([]string, len(actors))
	for i, a := range actors {
		by[i] = fmt.Sprintf("%s %d", oneLine(a), t.ByActor[a])
	}
	fmt.Fprintf(b, "%s  %s", r.paint(bold, "#"+oneLine(t.Tag)), count(t.Items, "item"))
	if len(by) > 0 {
		fmt.Fprintf(b, "  %s", r.paint(dim, "("+strings.Join(by, ", ")+")"))
	}
	b.WriteString("\n")
}

// changeLine writes what a housekeeping verb did:
// "archived ll_… Title · URL", or "already archived …" when nothing changed.
func (r *Renderer) changeLine(b *strings.Builder, rec *record.Record) {
	c := rec.Change
	done := map[string]string{"archive": "archived", "unarchive": "unarchived", "delete": "deleted", "unannotate": "removed annotations from",
		"star": "starred", "unstar": "unstarred", "read": "marked read", "unread": "marked unread"}
	verb, ok := done[c.Action]
	if !ok {
		verb = oneLine(c.Action)
	}
	if !c.Changed {
		verb = "already " + verb
		if c.Action == "unannotate" || c.Action == "delete" {
			verb = "nothing to do for"
		}
	}
	parts := []string{r.paint(bold, title(rec))}
	if n := len(c.AnnotationsRemoved); n > 0 {
		ids := make([]string, n)
		for i, id := range c.AnnotationsRemoved {
			ids[i] = "#" + strconv.FormatInt(id, 10)
		}
		parts = append(parts, "annotation "+strings.Join(ids, " "))
	}
	if u := url(rec); u != title(rec) {
		parts = append(parts, r.paint(cyan, u))
	}
	fmt.Fprintf(b, "%s %s  %s\n", r.paint(green, verb), rec.ID, strings.Join(parts, " · "))
}

// citeLine writes what linkledger cite recorded: "cited ll_… in task
// "weekly" by agent:writer  Title · URL".
func (r *Renderer) citeLine(b *strings.Builder, rec *record.Record, c *record.Citation) {
	parts := []string{r.paint(bold, title(rec))}
	if u := url(rec); u != title(rec) {
		parts = append(parts, r.paint(cyan, u))
	}
	fmt.Fprintf(b, "%s %s in task %q by %s  %s\n", r.paint(green, "cited"), rec.ID, oneLine(c.Task), oneLine(c.Actor), strings.Join(parts, " · "))
}

// eventLine writes one event of an item's history:
// "2026-11-23 05:12  agent:r  annotation #3 created  {"type":"highlight",…}".
func (r *Renderer) eventLine(b *strings.Builder, e *record.HistoryEvent) {
	what := e.Entity
	if e.EntityID != nil && e.Entity != "item" {
		what += " #" + *e.EntityID
	}
	fmt.Fprintf(b, "%s  %s  %s %s", r.paint(dim, minute(e.At)), oneLine(e.Actor), r.paint(bold, oneLine(what)), oneLine(e.Action))
	if d := strings.TrimSpace(string(e.Detail)); d != "" && d != "{}" && d != "null" {
		if rs := []rune(d); len(rs) > 120 {
			d = string(rs[:120]) + "…"
		}
		fmt.Fprintf(b, "  %s", r.paint(dim, oneLine(d)))
	}
	b.WriteString("\n")
}

// indexLine writes what ll-index stored: "parsed  Title · 3 chunks · URL".
func (r *Renderer) indexLine(b *strings.Builder, rec *record.Record) {
	ix := rec.Index
	verb := ix.Status
	if ix.Unchanged {
		verb = "unchanged"
	}
	parts := []string{r.paint(bold, title(rec))}
	if ix.Chunks > 0 {
		parts = append(parts, count(ix.Chunks, "chunk"))
	}
	if ix.DuplicateOf != "" {
		parts = append(parts, "duplicate of "+ix.DuplicateOf)
	}
	if u := url(rec); u != title(rec) {
		parts = append(parts, r.paint(cyan, u))
	}
	fmt.Fprintf(b, "%s  %s\n", r.paint(green, verb), strings.Join(parts, " · "))
}

// errorLine writes a failed record: "failed  REF  stage: code: message".
func (r *Renderer) errorLine(b *strings.Builder, rec *record.Record) {
	e := rec.Error
	ref := rec.Ref()
	switch {
	case ref == "" && e.Line > 0:
		ref = "line " + strconv.Itoa(e.Line)
	case ref == "":
		ref = "(no url)"
	}
	if rec.Title != "" {
		ref = rec.Title + " · " + ref
	}
	fmt.Fprintf(b, "%s  %s  %s: %s: %s%s\n", r.paint(red, "failed"), ref, e.Stage, e.Code, oneLine(e.Message), retry(e))
}

// count is "1 chunk", "3 chunks".
// Count is "1 task", "2 tasks": n and what, plural unless n is 1.
func Count(n int, what string) string { return count(n, what) }

func count(n int, what string) string {
	if n != 1 {
		what += "s"
	}
	return strconv.Itoa(n) + " " + what
}

func retry(e *record.Error) string {
	if e.Retryable {
		return " (will be retried)"
	}
	return ""
}

func title(rec *record.Record) string {
	if t := oneLine(rec.Title); t != "" {
		return t
	}
	if u := url(rec); u != "" {
		return u
	}
	return rec.ID
}

func url(rec *record.Record) string {
	if rec.CanonicalURL != "" {
		return oneLine(rec.CanonicalURL)
	}
	return oneLine(rec.URL)
}

// oneLine is record text for the terminal (termsafe.Line): one line,
// without control characters, so record text cannot move the cursor or
// change colours.
func oneLine(s string) string { return termsafe.Line(s) }

func day(t string) string {
	if len(t) >= 10 {
		return t[:10]
	}
	return t
}

// minute shortens an RFC 3339 time to "2026-11-22 18:47".
func minute(t string) string {
	if len(t) >= 16 && t[10] == 'T' {
		return t[:10] + " " + t[11:16]
	}
	return t
}

// markTerms wraps the words of s that are matched terms (compared
// lower-cased, as hit.why_ranked.matched_terms holds them) with wrap. A
// term in a script written without spaces (CJK) is marked wherever it
// occurs inside a word.
func markTerms(s string, terms []string, wrap func(string) string) string {
	if len(terms) == 0 {
		return s
	}
	words := map[string]bool{}
	var runs []string
	for _, t := range terms {
		t = strings.ToLower(t)
		words[t] = true
		if unspaced(t) {
			runs = append(runs, t)
		}
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isWord(r) {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		j := i
		for j < len(s) {
			r2, n2 := utf8.DecodeRuneInString(s[j:])
			if !isWord(r2) {
				break
			}
			j += n2
		}
		w := s[i:j]
		switch {
		case words[strings.ToLower(w)]:
			b.WriteString(wrap(w))
		case len(runs) > 0:
			b.WriteString(markRuns(w, runs, wrap))
		default:
			b.WriteString(w)
		}
		i = j
	}
	return b.String()
}

// markRuns marks every occurrence of any of runs inside w, longest first.
func markRuns(w string, runs []string, wrap func(string) string) string {
	var b strings.Builder
	for len(w) > 0 {
		best := ""
		for _, r := range runs {
			if strings.HasPrefix(w, r) && len(r) > len(best) {
				best = r
			}
		}
		if best != "" {
			b.WriteString(wrap(best))
			w = w[len(best):]
			continue
		}
		_, n := utf8.DecodeRuneInString(w)
		b.WriteString(w[:n])
		w = w[n:]
	}
	return b.String()
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) }

// unspaced reports whether t is written in a script without spaces
// between words (Han, Hiragana, Katakana, Hangul, Thai).
func unspaced(t string) bool {
	for _, r := range t {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai) {
			return true
		}
	}
	return false
}
