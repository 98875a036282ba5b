package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// Batches of ll-index (issue 23): a transaction's commit is where SQLite
// and FTS5 pay most per item (FTS5 writes its pending terms as a new
// segment and merges segments at every commit), and database/sql with
// mattn/go-sqlite3 prepares every statement anew. IndexBatch writes
// several content records in one transaction whose statements are
// prepared once, and which a kill leaves committed or untouched as a
// whole: every item is still complete or untouched.

// batchable reports whether Index would store rec as new content and
// nothing else (no failure, no 304, no stored chunks, no enrichment): the
// records IndexBatch writes together. The others go through Index alone.
// Keep it in step with Index: a record for which Index stores anything
// more than its content (vectors or an embedding failure once ll-embed's
// rec.Embed exists) must not be batchable.
func batchable(rec *record.Record) bool {
	return rec.Error == nil && !(rec.Fetch != nil && rec.Fetch.NotModified) && !FromStore(rec) &&
		(rec.Text != nil || len(rec.Chunks) > 0) && rec.Artifact == nil && rec.Enrich == nil && rec.Embed == nil
}

// IndexBatch indexes recs in order as Index does, each with the same
// result: runs of content records (batchable) in one transaction, any
// other record in its own. A record refused before any write (Index's
// checks) gets its error alone. When a batch's transaction fails it is
// rolled back whole and its records are indexed again one by one (each
// then meets its own error, as with Index); a busy database (another
// writer held the lock past the timeout) is not tried again: every record
// of the batch gets that error. It returns early, with the results so far
// (nil after them), only when ctx is done; results of records indexed
// before that are kept (committed).
func (s *Store) IndexBatch(ctx context.Context, recs []*record.Record, opts IndexOptions) []IndexResult {
	out := make([]IndexResult, len(recs))
	for i := 0; i < len(recs); {
		if ctx.Err() != nil {
			return out
		}
		if !batchable(recs[i]) || checkIndex(recs[i], indexDefaults(opts)) != nil {
			out[i].Res, out[i].Err = s.Index(ctx, recs[i], opts)
			i++
			continue
		}
		// a run names each item once: its search rows are written at the
		// run's end (deferredFTS)
		ids := map[string]bool{recs[i].ID: true}
		j := i + 1
		for j < len(recs) && batchable(recs[j]) && !ids[recs[j].ID] && checkIndex(recs[j], indexDefaults(opts)) == nil {
			ids[recs[j].ID] = true
			j++
		}
		if j-i == 1 {
			out[i].Res, out[i].Err = s.Index(ctx, recs[i], opts)
			i++
			continue
		}
		res, err := s.indexContentBatch(ctx, recs[i:j])
		switch {
		case err == nil:
			for k, r := range res {
				out[i+k].Res = r
			}
		case ctx.Err() != nil:
			return out
		case IsBusy(err):
			for k := i; k < j; k++ {
				out[k].Err = err
			}
		default:
			for k := i; k < j; k++ {
				out[k].Res, out[k].Err = s.Index(ctx, recs[k], opts)
			}
		}
		i = j
	}
	return out
}

// checkIndex checks a record before Index or IndexBatch opens a
// transaction for it: what it refuses, nothing of it is written.
func checkIndex(rec *record.Record, opts IndexOptions) error {
	if rec.ID == "" {
		return errors.New("record has no id")
	}
	if err := CheckID(rec); err != nil {
		return err
	}
	if err := checkSourceType(rec, record.StageIndex); err != nil {
		return err
	}
	for i, c := range rec.Chunks {
		if c.Tokens < 0 {
			return &record.Error{Stage: record.StageIndex, Code: record.CodeBadInput,
				Message: fmt.Sprintf("chunk %d: tokens %d: want 0 or more", i, c.Tokens)}
		}
	}
	if rec.Error == nil {
		if err := checkEnrichment(rec); err != nil {
			return err
		}
		if err := checkEmbedding(rec); err != nil {
			return err
		}
	}
	if err := spec.CheckAgentHighlightCap(opts.AgentHighlightCap); err != nil {
		return err
	}
	return nil
}

// indexContentBatch writes content records (batchable, checked) in one
// transaction, as Index writes each.
func (s *Store) indexContentBatch(ctx context.Context, recs []*record.Record) ([]*record.IndexResult, error) {
	res := make([]*record.IndexResult, len(recs))
	// The statements run to their end (the driver would start a goroutine
	// per statement to watch a cancellable context); ctx is checked
	// between records, and a cancelled batch is rolled back whole.
	wctx := context.WithoutCancel(ctx)
	err := s.tx(wctx, func(sqltx *sqlx.Tx) error {
		tx := newStmtTx(sqltx)
		tx.fts = &ftsRows{}
		defer tx.close()
		for i, rec := range recs {
			if err := ctx.Err(); err != nil {
				return err
			}
			it, created, err := s.ensureItem(wctx, tx, rec, eventActorIndex, "", "")
			if err == nil && created {
				err = refuseDeleted(wctx, tx, rec)
			}
			if err == nil {
				err = releaseClaim(wctx, tx, it.ID)
			}
			if err != nil {
				return err
			}
			if res[i], err = s.indexContent(wctx, tx, it, rec); err != nil {
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := writeDeferredFTS(wctx, tx); err != nil {
			return err
		}
		return tx.flush(wctx)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// insertChunkRow writes one content_chunks row.
var insertChunkRow = rowInsert{head: `INSERT INTO content_chunks(item_id, chunk_index, text, tokens, start_s, page) VALUES `, row: `(?,?,?,?,?,?)`}

// insertChunks writes an item's chunk rows: in a batch (stmtTx) held and
// written many to a statement, else with one statement prepared for them.
func insertChunks(ctx context.Context, tx dbtx, itemID string, chunks []record.Chunk) error {
	page := func(c record.Chunk) any {
		if c.Page > 0 {
			return c.Page
		}
		return nil
	}
	if _, batch := tx.(*stmtTx); batch {
		for i, c := range chunks {
			if err := insertRow(ctx, tx, insertChunkRow, itemID, i, c.Text, c.Tokens, c.StartS, page(c)); err != nil {
				return fmt.Errorf("chunk %d: %w", i, err)
			}
		}
		return insertChunkKinds(ctx, tx, itemID, chunks)
	}
	stmt, err := tx.(*sqlx.Tx).PreparexContext(ctx, insertChunkRow.sql(1))
	if err != nil {
		return err
	}
	defer stmt.Close()
	for i, c := range chunks {
		if _, err := stmt.ExecContext(ctx, itemID, i, c.Text, c.Tokens, c.StartS, page(c)); err != nil {
			return fmt.Errorf("chunk %d: %w", i, err)
		}
	}
	return insertChunkKinds(ctx, tx, itemID, chunks)
}

// syncChunkKinds sets the kinds of an item's stored chunks to those of
// chunks where a stored chunk has the same index and text (the text is
// unchanged, the chunks kept).
func syncChunkKinds(ctx context.Context, tx dbtx, itemID string, chunks []record.Chunk) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM chunk_kinds WHERE chunk_id IN (SELECT id FROM content_chunks WHERE item_id = ?)`, itemID); err != nil {
		return err
	}
	for i, c := range chunks {
		if !storedKind(c.Kind) {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO chunk_kinds(chunk_id, kind) SELECT id, ? FROM content_chunks WHERE item_id = ? AND chunk_index = ? AND text = ?`,
			c.Kind, itemID, i, c.Text); err != nil {
			return fmt.Errorf("chunk %d kind: %w", i, err)
		}
	}
	return nil
}

// storedKind reports whether a chunk's kind is one this ledger keeps:
// only record.ChunkReferences. The kind comes from a record stream or an
// import file; any other string (empty: body) is body, never stored.
func storedKind(k string) bool { return k == record.ChunkReferences }

// insertChunkKinds writes the kinds of an item's chunks that are not
// body (chunk_kinds), once their rows are written: a batch's held rows
// are written before the statement runs.
func insertChunkKinds(ctx context.Context, tx dbtx, itemID string, chunks []record.Chunk) error {
	for i, c := range chunks {
		if !storedKind(c.Kind) {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO chunk_kinds(chunk_id, kind) SELECT id, ? FROM content_chunks WHERE item_id = ? AND chunk_index = ?`,
			c.Kind, itemID, i); err != nil {
			return fmt.Errorf("chunk %d kind: %w", i, err)
		}
	}
	return nil
}
