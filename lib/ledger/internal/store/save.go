package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// Defaults of SaveOptions.
const (
	DefaultAgentConfidenceValue = 0.5
	eventActorIndex             = "ll-index"
	defaultSaveActorWhenUnnamed = ActorHuman
	maxAnnotationTextBytes      = 64 << 10
	maxTagBytes                 = 100
	// MaxTags is the most distinct tags one record may add or remove
	// (docs/reliability.md); more is a bad_input error, not a truncation,
	// so no tag is dropped silently.
	MaxTags                       = 256
	annotationDisplacedEventName  = "displaced"
	annotationCreatedEventName    = "created"
	annotationPinnedEventName     = "pinned"
	annotationUnpinnedEventName   = "unpinned"
	tagAddedEventName             = "added"
	tagRemovedEventName           = "removed"
	itemCreatedEventName          = "created"
	artifactCreatedEventName      = "created"
	ingestStateChangedEventPrefix = "state:"
)

func isAgent(a string) bool { return strings.HasPrefix(a, record.ActorAgentPrefix) }

func saveDefaults(o SaveOptions) SaveOptions {
	if o.Actor == "" {
		o.Actor = defaultSaveActorWhenUnnamed
	}
	if o.AgentHighlightCap == 0 {
		o.AgentHighlightCap = DefaultAgentHighlightCap
	}
	if o.DefaultAgentConfidence == 0 {
		o.DefaultAgentConfidence = DefaultAgentConfidenceValue
	}
	return o
}

func badInput(format string, args ...any) *record.Error {
	return &record.Error{Stage: record.StageSave, Code: record.CodeBadInput, Message: fmt.Sprintf(format, args...)}
}

// itemRow is the part of items Save and Index read.
type itemRow struct {
	Seq           int64          `db:"seq"`
	ID            string         `db:"id"`
	CanonicalURL  string         `db:"canonical_url"`
	OriginalURL   string         `db:"original_url"`
	SourceType    string         `db:"source_type"`
	Title         string         `db:"title"`
	IngestStatus  string         `db:"ingest_status"`
	Checksum      sql.NullString `db:"checksum"`
	Attempts      int            `db:"attempts"`
	FetchedAt     sql.NullString `db:"fetched_at"`
	RevalidateDue int            `db:"revalidate_due"`
}

const itemCols = `seq, id, canonical_url, original_url, source_type, title, ingest_status, checksum, attempts, fetched_at, revalidate_due`

const getItemSQL = `SELECT ` + itemCols + ` FROM items WHERE id = ?`

func getItem(ctx context.Context, tx dbtx, id string) (*itemRow, error) {
	var it itemRow
	err := tx.GetContext(ctx, &it, getItemSQL, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &it, nil
}

func (s *Store) event(ctx context.Context, tx dbtx, itemID, entity, entityID, action, actor string, detail any) error {
	d := "{}"
	if detail != nil {
		b, err := json.Marshal(detail)
		if err != nil {
			return err
		}
		d = string(b)
	}
	var eid any
	if entityID != "" {
		eid = entityID
	}
	return insertRow(ctx, tx, insertEvent, itemID, entity, eid, action, actor, s.nowString(), d)
}

var insertEvent = rowInsert{head: `INSERT INTO events(item_id, entity, entity_id, action, actor, at, detail_json) VALUES `, row: `(?,?,?,?,?,?,?)`}

// insertItemSQL writes a new item's row.
const insertItemSQL = `INSERT INTO items(id, canonical_url, original_url, source_type, saved_at, updated_at, title)
		VALUES (?,?,?,?,?,?,?) ON CONFLICT DO NOTHING`

func (s *Store) nowString() string { return record.FormatTime(s.Now()) }

// ensureItem creates the item of rec when it does not exist. It returns the
// row and whether it was created.
//
// A record with a canonical URL tries the insert first (it does nothing
// when the id or the URL is there), and reads the item only when nothing
// was inserted: an import of new links makes no read per link.
func (s *Store) ensureItem(ctx context.Context, tx dbtx, rec *record.Record, actor, savedAt, title string) (*itemRow, bool, error) {
	if rec.CanonicalURL == "" {
		it, err := getItem(ctx, tx, rec.ID)
		if err == nil && it == nil {
			err = &record.Error{Stage: record.StageSave, Code: record.CodeNotFound, Message: fmt.Sprintf("no item with id %s", record.Echo(rec.ID))}
		}
		return it, false, err
	}
	orig := rec.OriginalURL
	if orig == "" {
		orig = rec.URL
	}
	if orig == "" {
		orig = rec.CanonicalURL
	}
	st := rec.SourceType
	if st == "" {
		st = record.SourceArticle
	}
	now := s.nowString()
	if savedAt == "" {
		savedAt = now
	}
	res, err := tx.ExecContext(ctx, insertItemSQL, rec.ID, rec.CanonicalURL, orig, st, savedAt, now, title)
	if err != nil {
		return nil, false, err
	}
	n, _ := res.RowsAffected()
	var it *itemRow
	if n > 0 {
		// the row as just written (the columns' defaults for the rest):
		// no need to read it back
		seq, err := res.LastInsertId()
		if err != nil {
			return nil, false, err
		}
		it = &itemRow{Seq: seq, ID: rec.ID, CanonicalURL: rec.CanonicalURL, OriginalURL: orig, SourceType: st, Title: title, IngestStatus: record.StateSaved}
	} else {
		it, err = getItem(ctx, tx, rec.ID)
		if err != nil {
			return nil, false, err
		}
	}
	if it == nil {
		return nil, false, fmt.Errorf("item %s: canonical url %s is stored under another id", record.Echo(rec.ID), record.Echo(rec.CanonicalURL))
	}
	if n == 0 {
		return it, false, nil
	}
	detail := map[string]string{"url": orig}
	if rec.Via != "" {
		detail["via"] = rec.Via
		detail["saved_at"] = savedAt
	}
	if err := s.event(ctx, tx, it.ID, "item", it.ID, itemCreatedEventName, actor, detail); err != nil {
		return nil, false, err
	}
	return it, true, nil
}

// Save records one intent: an item (created if new, deduplicated by
// canonical URL) with its note, tags, annotations, pins and artifact, all in
// one transaction. rec must carry id and canonical_url (or only id, for an
// existing item). The result record carries id, url, canonical_url,
// source_type, status, new and save. Invalid requests return *record.Error.
func (s *Store) Save(ctx context.Context, rec *record.Record, opts SaveOptions) (*record.Record, error) {
	p, err := s.prepareSave(rec, opts)
	if err != nil {
		return nil, err
	}
	// One record's transaction of a few statements runs to its end: for a
	// cancellable context database/sql and the driver would start one or
	// two goroutines per statement to watch it (~0.45 ms of a new link's
	// save). Callers check ctx between records.
	ctx = context.WithoutCancel(ctx)
	var out *record.Record
	err = s.tx(ctx, func(tx *sqlx.Tx) error {
		var err error
		out, err = s.applySave(ctx, tx, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SaveBatch saves records as Save does, all in one transaction (a
// savepoint for each record that can be refused half-way, so it rolls
// back alone): an import of
// thousands of links commits once per batch instead of once per link. It
// returns an error only when the transaction failed as a whole (nothing of
// the batch is saved then).
func (s *Store) SaveBatch(ctx context.Context, recs []*record.Record, opts SaveOptions) ([]BatchResult, error) {
	return s.saveBatch(ctx, s.tx, recs, opts)
}

// saveBatch is SaveBatch in the transaction inTx runs.
func (s *Store) saveBatch(ctx context.Context, inTx func(context.Context, func(*sqlx.Tx) error) error, recs []*record.Record, opts SaveOptions) ([]BatchResult, error) {
	results := make([]BatchResult, len(recs))
	preps := make([]*savePrep, len(recs))
	for i, rec := range recs {
		preps[i], results[i].Err = s.prepareSave(rec, opts)
	}
	err := inTx(ctx, func(sqltx *sqlx.Tx) error {
		// the batch runs the same statements for every record: prepare
		// each once (closed before the commit)
		tx := newStmtTx(sqltx)
		defer tx.close()
		for i, p := range preps {
			if p == nil {
				continue
			}
			results[i] = BatchResult{}
			// A savepoint costs SQLite a sub-journal of every page the
			// record changes (~15% of an import). Only annotations, pins
			// and artifacts can refuse a record after its first write;
			// without them a refusal comes before any write (no such
			// item), which the write count below checks.
			sp := p.mayFailHalfway()
			if sp {
				if _, err := tx.ExecContext(ctx, `SAVEPOINT rec`); err != nil {
					return err
				}
			}
			writes := tx.writes
			out, err := s.applySave(ctx, tx, p)
			var re *record.Error
			if errors.As(err, &re) {
				if !sp && tx.writes != writes {
					return fmt.Errorf("save %s: refused after a write without a savepoint: %w", record.Echo(p.rec.ID), err)
				}
				if sp {
					if _, err := tx.ExecContext(ctx, `ROLLBACK TO rec`); err != nil {
						return err
					}
				}
				results[i].Err = re
			} else if err != nil {
				return err
			}
			results[i].Out = out
			if sp {
				if _, err := tx.ExecContext(ctx, `RELEASE rec`); err != nil {
					return err
				}
			}
		}
		return tx.flush(ctx)
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

var insertTag = rowInsert{head: `INSERT INTO tags(item_id, tag, actor, created_at) VALUES `, row: `(?,?,?,?)`}

// savePrep is a record checked for Save, with its cleaned parts.
type savePrep struct {
	rec          *record.Record
	opts         SaveOptions
	actor        string
	savedAt      string
	anns         []record.Annotation
	tags, untags []string
	review       []ReviewDecision
}

// reviewDecisions checks a record's review decisions (docs/records.md
// "Review decisions"): each names one annotation or one tag, and only a
// person confirms or rejects.
func reviewDecisions(in []record.ReviewDecision, actor string) ([]ReviewDecision, error) {
	var out []ReviewDecision
	for i, r := range in {
		d := ReviewDecision{AnnotationID: r.AnnotationID, Confidence: r.Confidence, Pinned: r.Pinned}
		if r.Decision != "" {
			v, ok := ValidReviewDecision(r.Decision)
			if !ok {
				return nil, badInput("review %d: decision %s: want confirm or reject", i+1, record.Quote(r.Decision))
			}
			d.Decision = v
		}
		if r.Tag != "" {
			tags, err := cleanTags([]string{r.Tag})
			if err != nil {
				return nil, badInput("review %d: %s", i+1, errMessage(err))
			}
			if len(tags) == 1 {
				d.Tag = tags[0]
			}
		}
		if err := checkDecision(d); err != nil {
			return nil, badInput("review %d: %s", i+1, strings.TrimPrefix(errMessage(err), "review: "))
		}
		if err := agentMayDecide(d, actor); err != nil {
			return nil, badInput("review %d: %s", i+1, errMessage(err))
		}
		out = append(out, d)
	}
	return out, nil
}

// errMessage is a record error's message, or err's text.
func errMessage(err error) string {
	var re *record.Error
	if errors.As(err, &re) {
		return re.Message
	}
	return err.Error()
}

// reviewedOf is a decision as done, for save.reviewed.
func reviewedOf(d ReviewDecision, r *record.Record) record.ReviewDecision {
	out := record.ReviewDecision{AnnotationID: d.AnnotationID, Tag: d.Tag, Decision: d.Decision, Confidence: d.Confidence, Pinned: d.Pinned}
	if len(r.Tagged) == 1 {
		out.Tag = r.Tagged[0].Tag
	}
	return out
}

// addTag adds tag t to item itemID by actor, unless it is there already,
// and reports whether it added it. An agent's tag a person rejected is not
// added again (a human decision stands); a person adding a tag lifts its
// rejection, and confirms it when an agent had added it.
func (s *Store) addTag(ctx context.Context, tx dbtx, itemID, t, actor, at string, via any) (bool, error) {
	if isAgent(actor) {
		var n int
		if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM tags_rejected WHERE item_id = ? AND tag = ?`, itemID, t); err != nil {
			return false, err
		}
		if n > 0 {
			return false, nil
		}
	} else if _, err := tx.ExecContext(ctx, `DELETE FROM tags_rejected WHERE item_id = ? AND tag = ?`, itemID, t); err != nil {
		return false, err
	}
	r, err := tx.ExecContext(ctx, `INSERT INTO tags(item_id, tag, actor, created_at) VALUES (?,?,?,?) ON CONFLICT DO NOTHING`, itemID, t, actor, at)
	if err != nil {
		return false, err
	}
	if n, _ := r.RowsAffected(); n > 0 {
		return true, s.event(ctx, tx, itemID, "tag", t, tagAddedEventName, actor, via)
	}
	if isAgent(actor) {
		return false, nil
	}
	var by string
	err = tx.GetContext(ctx, &by, `UPDATE tags SET review = ?, reviewed_at = ?, reviewed_by = ? WHERE item_id = ? AND tag = ? AND review IS NULL AND actor LIKE 'agent:%' RETURNING actor`,
		ReviewConfirmed, s.nowString(), actor, itemID, t)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return false, s.event(ctx, tx, itemID, "tag", t, tagConfirmedEventName, actor, map[string]any{"by_actor": by})
}

// agentMayRemoveTag refuses an agent's removal of a tag a person added or
// confirmed.
func agentMayRemoveTag(ctx context.Context, tx dbtx, itemID, t, actor string) error {
	var row struct {
		Actor  string `db:"actor"`
		Review string `db:"review"`
	}
	err := tx.GetContext(ctx, &row, `SELECT actor, coalesce(review, '') AS review FROM tags WHERE item_id = ? AND tag = ?`, itemID, t)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if row.Actor == ActorHuman || row.Review == ReviewConfirmed {
		return badInput("tag %s was added or confirmed by a person: %s cannot remove it", record.Quote(t), actor)
	}
	return nil
}

// mayFailHalfway reports whether the record can be refused after its
// first write (a bad chunk, a pin of no annotation, an empty artifact), so
// SaveBatch must roll it back alone.
func (p *savePrep) mayFailHalfway() bool {
	return len(p.anns) > 0 || len(p.rec.Pin) > 0 || len(p.rec.Unpin) > 0 || p.rec.Artifact != nil ||
		len(p.review) > 0 || isAgent(p.actor) && len(p.untags) > 0
}

func (s *Store) prepareSave(rec *record.Record, opts SaveOptions) (*savePrep, error) {
	opts = saveDefaults(opts)
	actor := rec.Actor
	if actor == "" {
		actor = opts.Actor
	}
	if err := record.CheckActor(actor); err != nil {
		return nil, badInput("%v", err)
	}
	if rec.ID == "" {
		return nil, badInput("no url or id")
	}
	if err := CheckID(rec); err != nil {
		return nil, badInput("%s", err.Message)
	}
	if err := checkSourceType(rec, record.StageSave); err != nil {
		return nil, err
	}
	if err := spec.CheckAgentHighlightCap(opts.AgentHighlightCap); err != nil {
		return nil, badInput("%v", err)
	}
	savedAt, err := s.pastTime("saved_at", rec.SavedAt)
	if err != nil {
		return nil, err
	}
	if rec.Via != "" && !validVia(rec.Via) {
		return nil, badInput("via %s: want import:<format>", record.Quote(rec.Via))
	}
	anns, err := s.validateAnnotations(rec.Annotations, actor, opts)
	if err != nil {
		return nil, err
	}
	tags, err := cleanTags(rec.Tags)
	if err != nil {
		return nil, err
	}
	untags, err := cleanTags(rec.TagsRemove)
	if err != nil {
		return nil, err
	}
	review, err := reviewDecisions(rec.Review, actor)
	if err != nil {
		return nil, err
	}
	return &savePrep{rec: rec, opts: opts, actor: actor, savedAt: savedAt, anns: anns, tags: tags, untags: untags, review: review}, nil
}

// applySave is Save's work inside the transaction tx, in steps: the
// item (found or created), the note, the tags added and removed, the
// annotations, pins and review decisions, the merge of near-duplicate
// quotes and the agent highlight cap, the artifact, the item's search
// row, and the answer.
func (s *Store) applySave(ctx context.Context, tx dbtx, p *savePrep) (*record.Record, error) {
	a := &saveApply{s: s, tx: tx, p: p, res: &record.SaveResult{}}
	var err error
	a.it, a.created, err = s.ensureItem(ctx, tx, p.rec, p.actor, p.savedAt, importTitle(p.rec.Title))
	if err != nil {
		return nil, err
	}
	a.res.Existing = !a.created
	if p.opts.NamedByUser {
		if err := s.grantFile(ctx, tx, a.it, p.actor); err != nil {
			return nil, err
		}
	}
	a.ftsDirty = a.created && a.it.Title != ""
	a.now = s.nowString()
	// what a new item brings with it dates from its saved time
	a.intentAt = a.now
	if a.created && p.savedAt != "" {
		a.intentAt = p.savedAt
	}
	if p.rec.Via != "" {
		a.via = map[string]string{"via": p.rec.Via}
	}
	for _, step := range []func(context.Context) error{
		a.note, a.addTags, a.removeTags, a.annotations, a.pins, a.reviews, a.mergeAndCap, a.artifact, a.searchRow,
	} {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	return a.answer(), nil
}

// saveApply is the state of one applySave.
type saveApply struct {
	s       *Store
	tx      dbtx
	p       *savePrep
	it      *itemRow
	created bool
	res     *record.SaveResult
	// added is the text of the annotations this record adds, in order,
	// and agentHighlights how many are agent highlights: a new item has
	// no others, so its search row and the cap need no query
	// (newItemFTS)
	added           []string
	agentHighlights int
	// quotedAdded: a quoting annotation was added (near duplicates may
	// merge)
	quotedAdded bool
	// displaced are the agent highlights the cap put out
	displaced []int64
	// ftsDirty: the item's search row must change
	ftsDirty bool
	// now is the time of this save; intentAt is when what it brings was
	// meant (a new item's saved time, else now)
	now, intentAt string
	via           any // the event detail of an import ({"via": ...}), or nil
}

// note adds the record's note, unless the item has the same one.
func (a *saveApply) note(ctx context.Context) error {
	note := strings.TrimSpace(a.p.rec.Note)
	if note == "" {
		return nil
	}
	var n int
	if err := a.tx.GetContext(ctx, &n, `SELECT count(*) FROM annotations WHERE item_id = ? AND type = 'note' AND text = ?`, a.it.ID, note); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	id, err := a.s.insertAnnotation(ctx, a.tx, a.it.ID, record.Annotation{Type: record.AnnNote, Text: note, Actor: a.p.actor}, a.intentAt, a.p.rec.Via)
	if err != nil {
		return err
	}
	a.res.NoteAdded = true
	a.res.AnnotationIDs = append(a.res.AnnotationIDs, id)
	a.added = append(a.added, note)
	a.ftsDirty = true
	return nil
}

// addTags adds the record's tags.
func (a *saveApply) addTags(ctx context.Context) error {
	for _, t := range a.p.tags {
		if a.created {
			// a new item has no tag and no rejected tag yet (tags
			// holds each once; a deleted item's rejections went
			// with it)
			if err := insertRow(ctx, a.tx, insertTag, a.it.ID, t, a.p.actor, a.intentAt); err != nil {
				return err
			}
			a.res.TagsAdded = append(a.res.TagsAdded, t)
			if err := a.s.event(ctx, a.tx, a.it.ID, "tag", t, tagAddedEventName, a.p.actor, a.via); err != nil {
				return err
			}
			continue
		}
		tagAdded, err := a.s.addTag(ctx, a.tx, a.it.ID, t, a.p.actor, a.intentAt, a.via)
		if err != nil {
			return err
		}
		if tagAdded {
			a.res.TagsAdded = append(a.res.TagsAdded, t)
		}
	}
	return nil
}

// removeTags removes the record's tags_remove (an agent only those it
// may).
func (a *saveApply) removeTags(ctx context.Context) error {
	for _, t := range a.p.untags {
		if isAgent(a.p.actor) {
			if err := agentMayRemoveTag(ctx, a.tx, a.it.ID, t, a.p.actor); err != nil {
				return err
			}
		}
		r, err := a.tx.ExecContext(ctx, `DELETE FROM tags WHERE item_id = ? AND tag = ?`, a.it.ID, t)
		if err != nil {
			return err
		}
		if n, _ := r.RowsAffected(); n > 0 {
			a.res.TagsRemoved = append(a.res.TagsRemoved, t)
			if err := a.s.event(ctx, a.tx, a.it.ID, "tag", t, tagRemovedEventName, a.p.actor, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// annotations adds the record's annotations, except those a person
// rejected (added again by an agent) and those an import already added.
func (a *saveApply) annotations(ctx context.Context) error {
	for _, ann := range a.p.anns {
		skip, err := a.skipAnnotation(ctx, ann)
		if err != nil {
			return err
		}
		if skip {
			continue
		}
		at := a.now
		if ann.CreatedAt != "" {
			at = ann.CreatedAt
		}
		id, err := a.s.insertAnnotation(ctx, a.tx, a.it.ID, ann, at, a.p.rec.Via)
		if err != nil {
			return err
		}
		a.res.AnnotationIDs = append(a.res.AnnotationIDs, id)
		a.added = append(a.added, ann.Text)
		if ann.Type == record.AnnHighlight && isAgent(ann.Actor) {
			a.agentHighlights++
		}
		a.ftsDirty = true
		a.quotedAdded = a.quotedAdded || quoted(ann.Type)
	}
	return nil
}

// skipAnnotation checks ann's chunk (an error when it is another item's)
// and reports whether ann is left out.
func (a *saveApply) skipAnnotation(ctx context.Context, ann record.Annotation) (bool, error) {
	if ann.ChunkID != nil {
		var n int
		if err := a.tx.GetContext(ctx, &n, `SELECT count(*) FROM content_chunks WHERE id = ? AND item_id = ?`, *ann.ChunkID, a.it.ID); err != nil {
			return false, err
		}
		if n == 0 {
			return false, badInput("chunk %d is not a chunk of item %s", *ann.ChunkID, a.it.ID)
		}
	}
	if strings.HasPrefix(ann.Actor, "agent:") {
		// a person rejected this text on this item: an agent
		// adding it again does not bring it back (linkledger review)
		var n int
		if err := a.tx.GetContext(ctx, &n, `SELECT count(*) FROM annotations WHERE item_id = ? AND type = ? AND text = ? AND review = 'rejected'`, a.it.ID, ann.Type, ann.Text); err != nil {
			return false, err
		}
		if n > 0 {
			return true, nil
		}
	}
	if ann.Type == record.AnnNote {
		// the same note by the same actor on the same item (and chunk)
		// is there already: a write sent again (a remote front command's
		// outbox replaying after a lost answer, a retried agent call)
		// adds nothing; quotes merge below (mergeNearDuplicates)
		var n int
		if err := a.tx.GetContext(ctx, &n, `SELECT count(*) FROM annotations WHERE item_id = ? AND type = ? AND text = ? AND actor = ? AND chunk_id IS ?`, a.it.ID, ann.Type, ann.Text, ann.Actor, ann.ChunkID); err != nil {
			return false, err
		}
		if n > 0 {
			return true, nil
		}
	}
	if a.p.rec.Via != "" {
		// an import run again adds no annotation twice, nor one
		// already merged into a longer quote of the same actor
		var texts []string
		if err := a.tx.SelectContext(ctx, &texts, `SELECT text FROM annotations WHERE item_id = ? AND type = ? AND actor = ?`, a.it.ID, ann.Type, ann.Actor); err != nil {
			return false, err
		}
		if heldBy(texts, ann.Text, quoted(ann.Type)) {
			return true, nil
		}
	}
	return false, nil
}

// pins pins and unpins the annotations the record names.
func (a *saveApply) pins(ctx context.Context) error {
	for _, id := range a.p.rec.Pin {
		if err := a.s.setPinned(ctx, a.tx, a.it.ID, id, true, a.p.actor); err != nil {
			return err
		}
		a.res.Pinned = append(a.res.Pinned, id)
	}
	for _, id := range a.p.rec.Unpin {
		if err := a.s.setPinned(ctx, a.tx, a.it.ID, id, false, a.p.actor); err != nil {
			return err
		}
		a.res.Unpinned = append(a.res.Unpinned, id)
	}
	return nil
}

// reviews applies the record's review decisions.
func (a *saveApply) reviews(ctx context.Context) error {
	for _, d := range a.p.review {
		d.ItemID = a.it.ID
		r, err := a.s.review(ctx, a.tx, d, a.p.actor)
		if err != nil {
			return err
		}
		a.res.Reviewed = append(a.res.Reviewed, reviewedOf(d, r))
	}
	return nil
}

// mergeAndCap merges near-duplicate quotes (when one was added) and puts
// out the agent highlights over the cap.
func (a *saveApply) mergeAndCap(ctx context.Context) error {
	if a.quotedAdded {
		merged, err := a.s.mergeNearDuplicates(ctx, a.tx, a.it.ID, a.p.actor)
		if err != nil {
			return err
		}
		a.res.Merged = merged
	}
	if !a.created || a.agentHighlights > a.p.opts.AgentHighlightCap {
		var err error
		a.displaced, err = a.s.enforceCap(ctx, a.tx, a.it.ID, a.p.opts.AgentHighlightCap, a.p.actor)
		if err != nil {
			return err
		}
	}
	a.res.Displaced = a.displaced
	if len(a.displaced) > 0 {
		a.ftsDirty = true
	}
	return nil
}

// artifact stores the record's artifact and re-reads the item (an
// artifact may have changed its state to enriched; nothing else here
// writes the item's row).
func (a *saveApply) artifact(ctx context.Context) error {
	rec := a.p.rec
	if rec.Artifact == nil {
		return nil
	}
	if err := a.s.insertArtifact(ctx, a.tx, a.it, rec.Artifact, a.p.actor, a.now); err != nil {
		return err
	}
	it, err := getItem(ctx, a.tx, a.it.ID)
	if err != nil {
		return err
	}
	a.it = it
	return nil
}

// searchRow writes the item's search row when it changed: a new item's
// from what was added, else from the item.
func (a *saveApply) searchRow(ctx context.Context) error {
	switch {
	case !a.ftsDirty:
		return nil
	case a.created && len(a.displaced) == 0 && len(a.res.Merged) == 0 && a.p.rec.Artifact == nil:
		return newItemFTS(ctx, a.tx, a.it.Seq, a.it.Title, a.added)
	default:
		return refreshFTS(ctx, a.tx, a.it.Seq, a.it.ID)
	}
}

// answer is the saved record: the item and what the save did.
func (a *saveApply) answer() *record.Record {
	out := &record.Record{ID: a.it.ID, URL: a.p.rec.URL, CanonicalURL: a.it.CanonicalURL, SourceType: a.it.SourceType, Status: a.it.IngestStatus}
	if out.URL == "" {
		out.URL = a.it.OriginalURL
	}
	isNew := a.created
	out.New = &isNew
	out.Save = a.res
	return out
}

func (s *Store) validateAnnotations(in []record.Annotation, actor string, opts SaveOptions) ([]record.Annotation, error) {
	var out []record.Annotation
	for i, a := range in {
		a.Type = strings.ToLower(strings.TrimSpace(a.Type))
		if err := record.CheckAnnotationType(a.Type); err != nil {
			return nil, badInput("annotation %d: %v", i+1, err)
		}
		a.Text = strings.TrimSpace(a.Text)
		if a.Text == "" {
			return nil, badInput("annotation %d: empty text", i+1)
		}
		if len(a.Text) > maxAnnotationTextBytes {
			return nil, badInput("annotation %d: text over %d bytes", i+1, maxAnnotationTextBytes)
		}
		if a.Actor == "" {
			a.Actor = actor
		}
		if err := record.CheckActor(a.Actor); err != nil {
			return nil, badInput("annotation %d: %v", i+1, err)
		}
		if a.Confidence != nil {
			if err := record.CheckConfidence(*a.Confidence); err != nil {
				return nil, badInput("annotation %d: %v", i+1, err)
			}
		}
		at, err := s.pastTime(fmt.Sprintf("annotation %d: created_at", i+1), a.CreatedAt)
		if err != nil {
			return nil, err
		}
		a.CreatedAt = at
		if a.Confidence == nil && isAgent(a.Actor) {
			c := opts.DefaultAgentConfidence
			a.Confidence = &c
		}
		out = append(out, a)
	}
	return out, nil
}

func (s *Store) insertAnnotation(ctx context.Context, tx dbtx, itemID string, a record.Annotation, now, via string) (int64, error) {
	var chunkIndex sql.NullInt64
	if a.ChunkID != nil {
		var ci int64
		if err := tx.GetContext(ctx, &ci, `SELECT chunk_index FROM content_chunks WHERE id = ?`, *a.ChunkID); err == nil {
			chunkIndex = sql.NullInt64{Int64: ci, Valid: true}
		}
	}
	// a highlight or lowlight is anchored to the place of its quote
	// (reanchor.go), the chunk it names first
	var chunkID any = a.ChunkID
	var prefix, suffix, orphaned any
	given := ""
	an, err := anchorNew(ctx, tx, itemID, a, chunkIndex)
	if err != nil {
		return 0, err
	}
	switch an.state {
	case anchorFound:
		chunkID, chunkIndex, prefix, suffix = an.chunkID, sql.NullInt64{Int64: int64(an.idx), Valid: true}, an.prefix, an.suffix
		if an.matched != "" && isAgent(a.Actor) {
			// an agent's quote is served as evidence: as the source
			// spells it (the text as given is in the created event)
			given = a.Text
			a.Text = an.matched
		}
	case anchorMissing:
		// An agent's quote must be in the source; a person's words are
		// kept, unanchored (never served as a quote of the source).
		if isAgent(a.Actor) {
			return 0, quoteNotFound(itemID, a, an.closest)
		}
		chunkID, chunkIndex, orphaned = nil, sql.NullInt64{}, now
	}
	// an id never given before (annotation_ids.go)
	id, err := s.nextAnnotationID(ctx, tx)
	if err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO annotations(id, item_id, chunk_id, chunk_index, type, text, actor, confidence, pinned, created_at, quote_prefix, quote_suffix, orphaned_at)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`, id, itemID, chunkID, chunkIndex, a.Type, a.Text, a.Actor, a.Confidence, a.Pinned, now, prefix, suffix, orphaned); err != nil {
		return 0, err
	}
	detail := map[string]any{"type": a.Type, "text": a.Text}
	if a.Confidence != nil {
		detail["confidence"] = *a.Confidence
	}
	if a.Pinned {
		detail["pinned"] = true
	}
	if via != "" {
		detail["via"] = via
	}
	if an.state == anchorMissing {
		detail["anchor"] = record.AnchorUnanchored
	}
	if given != "" {
		detail["given"] = given
	}
	return id, s.event(ctx, tx, itemID, "annotation", fmt.Sprint(id), annotationCreatedEventName, a.Actor, detail)
}

// quoteNotFound is the error of an agent's highlight or lowlight whose
// quote the item's text does not hold, with the closest passage as hint.
func quoteNotFound(itemID string, a record.Annotation, closest string) *record.Error {
	e := &record.Error{Stage: record.StageSave, Code: record.CodeQuoteNotFound,
		Message: fmt.Sprintf("%s %s is not in the text of item %s: an agent quotes the source exactly (nothing was saved)", a.Type, record.Quote(a.Text), itemID)}
	if closest != "" {
		e.Hint = "the closest passage is " + strconv.Quote(closest) + "; quote it as written, or add your own words as a note"
	} else {
		e.Hint = "no passage shares a word with it; add your own words as a note"
	}
	return e
}

func (s *Store) setPinned(ctx context.Context, tx dbtx, itemID string, annID int64, pin bool, actor string) error {
	var a struct {
		Type   string `db:"type"`
		Actor  string `db:"actor"`
		Pinned bool   `db:"pinned"`
	}
	err := tx.GetContext(ctx, &a, `SELECT type, actor, pinned FROM annotations WHERE id = ? AND item_id = ?`, annID, itemID)
	if errors.Is(err, sql.ErrNoRows) {
		return &record.Error{Stage: record.StageSave, Code: record.CodeNotFound, Message: fmt.Sprintf("no annotation %d on item %s", annID, record.Echo(itemID))}
	}
	if err != nil {
		return err
	}
	if a.Type != record.AnnHighlight {
		return badInput("annotation %d is a %s: only highlights are pinned", annID, a.Type)
	}
	if isAgent(actor) && a.Pinned != pin {
		// a person's highlight, or a pin a person set or took off,
		// is a person's decision: an agent does not change it
		byPerson := a.Actor == ActorHuman
		if !byPerson {
			if byPerson, err = humanEvent(ctx, tx, itemID, annID, annotationPinnedEventName, annotationUnpinnedEventName); err != nil {
				return err
			}
		}
		if byPerson {
			return badInput("annotation %d: its pin is a person's decision: %s cannot change it", annID, actor)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE annotations SET pinned = ? WHERE id = ?`, pin, annID); err != nil {
		return err
	}
	action := annotationUnpinnedEventName
	if pin {
		action = annotationPinnedEventName
	}
	return s.event(ctx, tx, itemID, "annotation", fmt.Sprint(annID), action, actor, nil)
}

// enforceCap displaces the lowest-confidence unpinned agent highlights
// beyond the cap (oldest first among equals).
func (s *Store) enforceCap(ctx context.Context, tx dbtx, itemID string, limit int, actor string) ([]int64, error) {
	var n int
	if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM annotations WHERE item_id = ? AND type = 'highlight' AND actor LIKE 'agent:%' AND review IS NOT 'rejected'`, itemID); err != nil {
		return nil, err
	}
	if n <= limit {
		return nil, nil
	}
	type victim struct {
		ID    int64   `db:"id"`
		Text  string  `db:"text"`
		Actor string  `db:"actor"`
		Conf  float64 `db:"conf"`
	}
	var vs []victim
	err := tx.SelectContext(ctx, &vs, `SELECT id, text, actor, coalesce(confidence, 0) AS conf FROM annotations
		WHERE item_id = ? AND type = 'highlight' AND actor LIKE 'agent:%' AND pinned = 0 AND review IS NULL
		ORDER BY coalesce(confidence, 0) ASC, id ASC LIMIT ?`, itemID, n-limit)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, v := range vs {
		if _, err := tx.ExecContext(ctx, `DELETE FROM annotations WHERE id = ?`, v.ID); err != nil {
			return nil, err
		}
		if err := s.event(ctx, tx, itemID, "annotation", fmt.Sprint(v.ID), annotationDisplacedEventName, actor,
			map[string]any{"text": v.Text, "by_actor": v.Actor, "confidence": v.Conf, "cap": limit}); err != nil {
			return nil, err
		}
		ids = append(ids, v.ID)
	}
	return ids, nil
}

func (s *Store) insertArtifact(ctx context.Context, tx dbtx, it *itemRow, a *record.Artifact, actor, now string) error {
	if strings.TrimSpace(a.Summary) == "" && len(a.KeyClaims) == 0 {
		return badInput("artifact: empty summary and key_claims")
	}
	by := a.CreatedBy
	if by == "" {
		by = actor
	}
	claims := a.SupportedClaims() // evidence only
	if claims == nil {
		claims = []string{}
	}
	cj, _ := json.Marshal(claims)
	r, err := tx.ExecContext(ctx, `INSERT INTO artifacts(item_id, summary, key_claims_json, created_by, created_at) VALUES (?,?,?,?,?)`,
		it.ID, strings.TrimSpace(a.Summary), string(cj), by, now)
	if err != nil {
		return err
	}
	id, _ := r.LastInsertId()
	if err := s.event(ctx, tx, it.ID, "artifact", fmt.Sprint(id), artifactCreatedEventName, by, nil); err != nil {
		return err
	}
	if it.IngestStatus == record.StateParsed {
		return s.setState(ctx, tx, it.ID, it.IngestStatus, record.StateEnriched, by)
	}
	return nil
}

func (s *Store) setState(ctx context.Context, tx dbtx, itemID, from, to, actor string) error {
	if from == to {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE items SET ingest_status = ?, updated_at = ? WHERE id = ?`, to, s.nowString(), itemID); err != nil {
		return err
	}
	return s.event(ctx, tx, itemID, "ingest", "", ingestStateChangedEventPrefix+to, actor, map[string]string{"from": from, "to": to})
}

// cleanTags puts tags in their one form (record.TagForm: trimmed,
// lower-cased, white space made hyphens) and de-duplicates them, refusing
// bad ones:
// longer than maxTagBytes, with a comma or a control character, or more
// than MaxTags of them in one record. It is linear in the number of tags
// (a set, not a search of the list for each tag).
func cleanTags(in []string) ([]string, error) {
	var out []string
	seen := make(map[string]bool, min(len(in), MaxTags+1))
	for _, t := range in {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if len(t) > maxTagBytes || strings.ContainsFunc(t, func(r rune) bool { return r == ',' || unicode.IsControl(r) }) {
			return nil, badInput("tag %s: at most %d bytes, no commas or control characters", record.Quote(t), maxTagBytes)
		}
		t = record.TagForm(t)
		if !seen[t] {
			if len(out) == MaxTags {
				return nil, badInput("more than %d tags in one record", MaxTags)
			}
			seen[t] = true
			out = append(out, t)
		}
	}
	return out, nil
}

// maxImportTitleBytes caps a title given to ll-save (an imported bookmark's
// title), as ll-parse caps a page's.
const maxImportTitleBytes = 2048

// pastTime reads an RFC 3339 time given with a record (saved_at, an
// annotation's created_at). It returns it in UTC, or "" when v is empty or
// not before now (a time to come is no saved time: now is used).
func (s *Store) pastTime(field, v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return "", badInput("%s %s: want an RFC 3339 time such as 2024-01-02T03:04:05Z", field, record.Quote(v))
	}
	if !t.Before(s.Now()) {
		return "", nil
	}
	return record.FormatTime(t), nil
}

// validVia reports whether v names an importer: import:<name>, the name
// in lower-case letters, digits, '-' and '_'.
func validVia(v string) bool {
	name, ok := strings.CutPrefix(v, "import:")
	if !ok || name == "" || len(name) > 32 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// importTitle is the title a new item gets from ll-save's input (an
// imported bookmark's), trimmed and cut to maxImportTitleBytes at a rune
// boundary. ll-parse replaces it when the page has a title.
func importTitle(t string) string {
	t = strings.TrimSpace(t)
	if len(t) <= maxImportTitleBytes {
		return t
	}
	t = t[:maxImportTitleBytes]
	for len(t) > 0 && !utf8.ValidString(t) {
		t = t[:len(t)-1]
	}
	return t
}
