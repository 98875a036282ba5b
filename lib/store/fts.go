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
		if _, err := tx.ExecContext(ctx, `INSERT INTO search(rowid, title, body, annotations) VALUES (?, ?, ?, '')`, c.id, title, c.text); err != nil {
			return err
		}
		if titleCJK || hasCJK(c.text) {
			if _, err := tx.ExecContext(ctx, `INSERT INTO search_cjk(rowid, title, body, annotations) VALUES (?, ?, ?, '')`, c.id, title, c.text); err != nil {
				return err
			}
		}
	}
	var ann []string
	if err := tx.SelectContext(ctx, &ann, `SELECT text FROM annotations WHERE item_id = ? AND review IS NOT 'rejected' ORDER BY id`, itemID); err != nil {
		return err
	}
	annText := strings.Join(ann, "\n")
	if _, err := tx.ExecContext(ctx, `INSERT INTO search(rowid, title, body, annotations) VALUES (?, ?, ?, ?)`, -seq, title, withDescription(it.Description, docBody(chunks)), annText); err != nil {
		return err
	}
	if titleCJK || hasCJK(annText) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO search_cjk(rowid, title, body, annotations) VALUES (?, ?, '', ?)`, -seq, title, annText); err != nil {
			return err
		}
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
	insertSearchRow    = rowInsert{head: `INSERT INTO search(rowid, title, body, annotations) VALUES `, row: `(?,?,?,?)`}
	insertSearchCJKRow = rowInsert{head: `INSERT INTO search_cjk(rowid, title, body, annotations) VALUES `, row: `(?,?,'',?)`}
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
