package store

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The full-text index has one row per chunk (rowid = chunk id: title and
// chunk text) and one row per item (rowid = -items.seq: title, the item's
// whole text (its chunks in order, at most docBodyBytes) and the text of
// its annotations and notes). Search ranks an item by its best chunk (the
// passage) plus a share of its item row (the whole document): passage and
// document evidence together rank better than either (docs/retrieval.md).
// search_cjk holds chunk rows and item rows (title and annotations only),
// but only those containing CJK text, under the trigram tokenizer.
//
// Every write that changes an item's title, chunks or annotations calls
// deleteFTS/insertFTS (or refreshFTS) in the same transaction.

// deleteFTS removes an item's rows. Call it before deleting chunk rows.
func deleteFTS(ctx context.Context, tx dbtx, seq int64, itemID string) error {
	if err := writeDeferredFTS(ctx, tx); err != nil {
		return err
	}
	for _, table := range []string{"search", "search_cjk"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE rowid IN (SELECT id FROM content_chunks WHERE item_id = ?)`, itemID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE rowid = ?`, -seq); err != nil {
			return err
		}
	}
	return nil
}

// insertFTS writes an item's rows from the current tables.
func insertFTS(ctx context.Context, tx dbtx, seq int64, itemID string) error {
	if err := writeDeferredFTS(ctx, tx); err != nil {
		return err
	}
	var rows ftsRows
	if err := rows.addItem(ctx, tx, seq, itemID); err != nil {
		return err
	}
	return rows.write(ctx, tx)
}

// ftsRow is one row of search or search_cjk.
type ftsRow struct {
	rowid                    int64
	title, body, annotations string
}

// ftsRows are search rows to delete and to write: an item's, or (in an
// index batch, see deferredFTS) all the batch's items'.
type ftsRows struct {
	del       []int64 // rowids to delete from both tables, before the writes
	search    []ftsRow
	searchCJK []ftsRow
}

// addItem adds the rows of an item, read from the current tables.
func (r *ftsRows) addItem(ctx context.Context, tx dbtx, seq int64, itemID string) error {
	var it struct {
		Title       string `db:"title"`
		Description string `db:"description"`
	}
	if err := tx.GetContext(ctx, &it, `SELECT title, description FROM items WHERE seq = ?`, seq); err != nil {
		return err
	}
	title := it.Title
	titleCJK := hasCJK(title)
	rows, err := tx.QueryxContext(ctx, `SELECT id, text FROM content_chunks WHERE item_id = ? ORDER BY chunk_index`, itemID)
	if err != nil {
		return err
	}
	var chunks []struct {
		id   int64
		text string
	}
	for rows.Next() {
		var r struct {
			id   int64
			text string
		}
		if err := rows.Scan(&r.id, &r.text); err != nil {
			rows.Close()
			return err
		}
		chunks = append(chunks, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range chunks {
		r.search = append(r.search, ftsRow{c.id, title, c.text, ""})
		if titleCJK || hasCJK(c.text) {
			r.searchCJK = append(r.searchCJK, ftsRow{c.id, title, c.text, ""})
		}
	}
	var ann []string
	if err := tx.SelectContext(ctx, &ann, `SELECT text FROM annotations WHERE item_id = ? AND review IS NOT 'rejected' ORDER BY id`, itemID); err != nil {
		return err
	}
	annText := strings.Join(ann, "\n")
	r.search = append(r.search, ftsRow{-seq, title, withDescription(it.Description, docBody(chunks)), annText})
	if titleCJK || hasCJK(annText) {
		r.searchCJK = append(r.searchCJK, ftsRow{-seq, title, "", annText})
	}
	return nil
}

// addDelete adds the deletion of an item's current rows (its chunks' and
// its own), to be written before any row.
func (r *ftsRows) addDelete(ctx context.Context, tx dbtx, seq int64, itemID string) error {
	var ids []int64
	if err := tx.SelectContext(ctx, &ids, `SELECT id FROM content_chunks WHERE item_id = ?`, itemID); err != nil {
		return err
	}
	r.del = append(append(r.del, ids...), -seq)
	return nil
}

// ftsRowsPerInsert is how many rows one INSERT writes at most.
const ftsRowsPerInsert = 256

// ftsIDsPerDelete is how many rowids one DELETE names at most.
const ftsIDsPerDelete = 500

// write deletes, then writes, the rows, many to a statement, and empties
// r. Every statement that writes an FTS5 table inside a transaction makes
// FTS5 write the terms it holds in memory as a new index segment
// (xSavepoint), so fewer statements mean fewer, larger segments and less
// merging.
func (r *ftsRows) write(ctx context.Context, tx dbtx) error {
	for del := r.del; len(del) > 0; {
		n := min(len(del), ftsIDsPerDelete)
		args := make([]any, n)
		for i, id := range del[:n] {
			args[i] = id
		}
		in := strings.Repeat("?,", n)
		in = in[:len(in)-1]
		for _, table := range []string{"search", "search_cjk"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE rowid IN (`+in+`)`, args...); err != nil {
				return err
			}
		}
		del = del[n:]
	}
	for _, t := range []struct {
		ins  rowInsert
		rows []ftsRow
	}{{insertSearchRow, r.search}, {insertSearchCJKRows, r.searchCJK}} {
		for rows := t.rows; len(rows) > 0; {
			n := min(len(rows), ftsRowsPerInsert)
			args := make([]any, 0, 4*n)
			for _, row := range rows[:n] {
				args = append(args, row.rowid, row.title, row.body, row.annotations)
			}
			if _, err := tx.ExecContext(ctx, t.ins.sql(n), args...); err != nil {
				return err
			}
			rows = rows[n:]
		}
	}
	*r = ftsRows{}
	return nil
}

// deferredFTS returns the search rows an index batch holds back until its
// end (stmtTx.fts), or nil when tx writes them as it goes.
func deferredFTS(tx dbtx) *ftsRows {
	if t, ok := tx.(*stmtTx); ok {
		return t.fts
	}
	return nil
}

// writeDeferredFTS writes the rows held back so far, before a statement
// that reads or writes the search tables directly.
func writeDeferredFTS(ctx context.Context, tx dbtx) error {
	if r := deferredFTS(tx); r != nil && (len(r.del) > 0 || len(r.search) > 0 || len(r.searchCJK) > 0) {
		return r.write(ctx, tx)
	}
	return nil
}

// docBodyBytes caps the whole-text body of an item row: enough for an
// article or a paper's first pages; a 500-page PDF still ranks by its
// chunks.
const docBodyBytes = 64 << 10

// docBody joins the chunk texts (they overlap by a few sentences, which
// barely moves bm25) up to docBodyBytes, cut on a rune boundary.
func docBody(chunks []struct {
	id   int64
	text string
}) string {
	var b strings.Builder
	for _, c := range chunks {
		if b.Len()+len(c.text)+1 > docBodyBytes {
			rest := docBodyBytes - b.Len()
			for rest > 0 && rest < len(c.text) && !utf8.RuneStart(c.text[rest]) {
				rest--
			}
			if rest > 0 {
				b.WriteString(c.text[:min(rest, len(c.text))])
			}
			break
		}
		b.WriteString(c.text)
		b.WriteByte('\n')
	}
	return b.String()
}

// refreshFTS rebuilds an item's rows.
func refreshFTS(ctx context.Context, tx dbtx, seq int64, itemID string) error {
	if err := deleteFTS(ctx, tx, seq, itemID); err != nil {
		return err
	}
	return insertFTS(ctx, tx, seq, itemID)
}

// newItemFTS writes the search rows of an item created in this
// transaction, as insertFTS would, without reading them back: a new item
// has no description, no chunks and no rows yet (every delete of an item
// deletes its rows first), and its annotations are anns, in order. It
// spares an import a delete and three queries per link.
func newItemFTS(ctx context.Context, tx dbtx, seq int64, title string, anns []string) error {
	annText := strings.Join(anns, "\n")
	if err := insertRow(ctx, tx, insertSearchRow, -seq, title, withDescription("", docBody(nil)), annText); err != nil {
		return err
	}
	if hasCJK(title) || hasCJK(annText) {
		return insertRow(ctx, tx, insertSearchCJKRow, -seq, title, annText)
	}
	return nil
}

var (
	insertSearchRow     = rowInsert{head: `INSERT INTO search(rowid, title, body, annotations) VALUES `, row: `(?,?,?,?)`}
	insertSearchCJKRow  = rowInsert{head: `INSERT INTO search_cjk(rowid, title, body, annotations) VALUES `, row: `(?,?,'',?)`}
	insertSearchCJKRows = rowInsert{head: `INSERT INTO search_cjk(rowid, title, body, annotations) VALUES `, row: `(?,?,?,?)`}
)

// hasCJK reports whether s contains Han, Hiragana, Katakana or Hangul.
func hasCJK(s string) bool {
	for _, r := range s {
		if r < 0x2E80 {
			continue
		}
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			return true
		}
	}
	return false
}

// withDescription puts the item's description (a video's description, a
// page's meta description) before its text in the item row, so it is
// searchable even when the text does not contain it (a YouTube video with
// a transcript).
func withDescription(desc, body string) string {
	desc = strings.TrimSpace(desc)
	if desc == "" || strings.Contains(body, desc) {
		return body
	}
	return desc + "\n" + body
}
