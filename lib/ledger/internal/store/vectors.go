package store

// Vectors: the chunks' embeddings (migration 0013, docs/retrieval.md
// "Semantic and hybrid retrieval"). A chunk has at most one vector, of
// one model; vectors are stored at unit length, so a cosine similarity is
// a dot product.

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/record"
)

// embedFailedEventName is the history event of an embedding failure.
const embedFailedEventName = "embed_failed"

// maxVectorModel bounds the model a record's vectors are stored under: a
// name with a document prefix folded in (embed.Identity; the quoted
// prefix is at most 4 bytes a byte).
const maxVectorModel = embed.MaxModelName + 3 + 4*embed.MaxPrefixBytes

// checkEmbedding refuses vectors ll-index cannot store: a record whose
// embed names no model, or whose chunks' embeddings do not decode, are
// missing, or disagree with embed.dimensions. Nothing is then stored.
func checkEmbedding(rec *record.Record) *record.Error {
	bad := func(format string, a ...any) *record.Error {
		return &record.Error{Stage: record.StageIndex, Code: record.CodeBadInput, Message: fmt.Sprintf(format, a...)}
	}
	e := rec.Embed
	any := false
	for _, c := range rec.Chunks {
		any = any || c.Embedding != ""
	}
	if e == nil || e.Error != nil {
		if any {
			return bad("chunks carry embeddings but the record has no embed.model: nothing stored")
		}
		return nil
	}
	if !any {
		return nil
	}
	if e.Model == "" || len(e.Model) > maxVectorModel {
		return bad("embed.model: want a model name of 1..%d bytes", maxVectorModel)
	}
	if e.Dimensions < 1 || e.Dimensions > embed.MaxDimensions {
		return bad("embed.dimensions %d: want 1..%d", e.Dimensions, embed.MaxDimensions)
	}
	for i, c := range rec.Chunks {
		if c.Embedding == "" {
			return bad("chunk %d has no embedding while others do: nothing stored", i)
		}
		v, err := embed.Decode(c.Embedding)
		if err != nil {
			return bad("chunk %d: %v", i, err)
		}
		if len(v) != e.Dimensions {
			return bad("chunk %d: embedding has %d dimensions, embed.dimensions says %d", i, len(v), e.Dimensions)
		}
	}
	return nil
}

// unit returns v scaled to length 1 (v itself when it is all zeros).
func unit(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return v
	}
	n = math.Sqrt(n)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out
}

// checkSize refuses vs unless every vector has size want (0: the size of
// the model's vectors stored on other items, if any).
func checkSize(ctx context.Context, tx *sqlx.Tx, itemID, model string, want int, vs []ChunkVector) error {
	if len(vs) == 0 {
		return nil
	}
	stored := false
	if want <= 0 {
		// chunk_vectors_model (model, item_id): one row read
		err := tx.GetContext(ctx, &want, `SELECT dimensions FROM chunk_vectors WHERE model = ? AND item_id != ? LIMIT 1`, model, itemID)
		if errors.Is(err, sql.ErrNoRows) {
			want = len(vs[0].Vector)
		} else if err != nil {
			return err
		}
		stored = err == nil
	}
	for _, v := range vs {
		if len(v.Vector) != want {
			return &DimensionError{Model: model, Got: len(v.Vector), Want: want, Stored: stored}
		}
	}
	return nil
}

// putVectors stores vs (of model) on the item's chunks of the same index
// and text, replacing their vectors of any model, and clears the item's
// last embedding failure. It returns how many were stored. Vectors of
// another size than size (0: than the model's vectors stored on other
// items) are refused whole (*DimensionError).
func putVectors(ctx context.Context, tx *sqlx.Tx, itemID, model string, size int, vs []ChunkVector) (int, error) {
	if err := checkSize(ctx, tx, itemID, model, size, vs); err != nil {
		return 0, err
	}
	type row struct {
		ID    int64  `db:"id"`
		Index int    `db:"chunk_index"`
		Text  string `db:"text"`
	}
	var rows []row
	if err := tx.SelectContext(ctx, &rows, `SELECT id, chunk_index, text FROM content_chunks WHERE item_id = ?`, itemID); err != nil {
		return 0, err
	}
	byIndex := make(map[int]row, len(rows))
	for _, r := range rows {
		byIndex[r.Index] = r
	}
	stmt, err := tx.PreparexContext(ctx, `INSERT INTO chunk_vectors(chunk_id, item_id, model, dimensions, vector) VALUES (?,?,?,?,?)
		ON CONFLICT(chunk_id) DO UPDATE SET model = excluded.model, dimensions = excluded.dimensions, vector = excluded.vector`)
	if err != nil {
		return 0, err
	}
	defer stmt.Close()
	n := 0
	for _, v := range vs {
		r, ok := byIndex[v.Index]
		if !ok || r.Text != v.Text {
			continue
		}
		if _, err := stmt.ExecContext(ctx, r.ID, itemID, model, len(v.Vector), embed.Bytes(unit(v.Vector))); err != nil {
			return n, err
		}
		n++
	}
	if n > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE items SET embed_error_json = NULL WHERE id = ? AND embed_error_json IS NOT NULL`, itemID); err != nil {
			return n, err
		}
		if err := rebuildCodes(ctx, tx, itemID); err != nil {
			return n, err
		}
		if err := packCodes(ctx, tx, model); err != nil {
			return n, err
		}
	}
	return n, nil
}

// rebuildCodes writes the item's rows of item_vector_codes (one per
// model) from its chunk_vectors, unpacked (packCodes packs them).
func rebuildCodes(ctx context.Context, tx *sqlx.Tx, itemID string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM item_vector_codes WHERE item_id = ?`, itemID); err != nil {
		return err
	}
	rows, err := tx.QueryxContext(ctx, `SELECT chunk_id, model, dimensions, vector FROM chunk_vectors WHERE item_id = ? ORDER BY model, chunk_id`, itemID)
	if err != nil {
		return err
	}
	type code struct {
		model      string
		dim        int
		ids, codes []byte
	}
	var out []*code
	for rows.Next() {
		var (
			id    int64
			model string
			dim   int
			blob  []byte
		)
		if err := rows.Scan(&id, &model, &dim, &blob); err != nil {
			rows.Close()
			return err
		}
		if len(out) == 0 || out[len(out)-1].model != model {
			out = append(out, &code{model: model, dim: dim})
		}
		c := out[len(out)-1]
		if dim != c.dim {
			continue // one dimension per model and item: the first
		}
		v, err := embed.FromBytes(blob)
		if err != nil {
			rows.Close()
			return err
		}
		c.ids = binary.LittleEndian.AppendUint64(c.ids, uint64(id))
		c.codes = appendCode(c.codes, v)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range out {
		if _, err := tx.ExecContext(ctx, `INSERT INTO item_vector_codes(model, item_id, dimensions, chunk_ids, codes) VALUES (?,?,?,?,?)`,
			c.model, itemID, c.dim, c.ids, c.codes); err != nil {
			return err
		}
	}
	return nil
}

// rebuildAllCodes writes the codes of every item with vectors and packs
// them: migration 0014's Go half (the codes are derived data that SQL
// cannot compute), run in the migration's transaction.
func rebuildAllCodes(ctx context.Context, tx *sqlx.Tx) error {
	var items []string
	if err := tx.SelectContext(ctx, &items, `SELECT DISTINCT item_id FROM chunk_vectors ORDER BY item_id`); err != nil {
		return err
	}
	for _, id := range items {
		if err := rebuildCodes(ctx, tx, id); err != nil {
			return err
		}
	}
	var models []string
	if err := tx.SelectContext(ctx, &models, `SELECT DISTINCT model FROM item_vector_codes ORDER BY model`); err != nil {
		return err
	}
	for _, m := range models {
		if err := packCodes(ctx, tx, m); err != nil {
			return err
		}
	}
	return nil
}

// noteEmbedding stores what ll-embed left on an indexed record: its
// vectors (checked by checkEmbedding), or its failure, kept on the item
// as the last embedding error and an embed_failed event.
func (s *Store) noteEmbedding(ctx context.Context, tx *sqlx.Tx, itemID string, rec *record.Record) error {
	e := rec.Embed
	if e == nil {
		return nil
	}
	if e.Error != nil {
		return s.noteEmbedError(ctx, tx, itemID, e.Error)
	}
	var vs []ChunkVector
	for _, c := range rec.Chunks {
		if c.Embedding == "" {
			return nil
		}
		v, err := embed.Decode(c.Embedding)
		if err != nil {
			return err // checkEmbedding refused it before
		}
		vs = append(vs, ChunkVector{Index: c.Index, Text: c.Text, Vector: v})
	}
	_, err := putVectors(ctx, tx, itemID, e.Model, 0, vs)
	var de *DimensionError
	if errors.As(err, &de) {
		// the text is indexed; the vectors are refused and the item
		// keeps the reason, as for a failed embedding
		embed.Fail(rec, e.Model, de.RecordError())
		return s.noteEmbedError(ctx, tx, itemID, rec.Embed.Error)
	}
	return err
}

func (s *Store) noteEmbedError(ctx context.Context, tx *sqlx.Tx, itemID string, e *record.Error) error {
	ee := *e
	ee.Stage = record.StageEmbed
	ee.Message = cutMessage(ee.Message, maxEnrichErrorMessage)
	ej, err := json.Marshal(&ee)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE items SET embed_error_json = ? WHERE id = ?`, string(ej), itemID); err != nil {
		return err
	}
	return s.event(ctx, tx, itemID, "ingest", "", embedFailedEventName, eventActorIndex, &ee)
}

// VectorSize returns the size of a stored vector of model (0: none): of
// any, when (as stored before sizes were checked) they have several.
func (s *Store) VectorSize(ctx context.Context, model string) (int, error) {
	var n int
	err := s.db.GetContext(context.WithoutCancel(ctx), &n, `SELECT coalesce((SELECT dimensions FROM chunk_vectors WHERE model = ? LIMIT 1), 0)`, model)
	return n, err
}

// HasVectorsOfSize reports whether the ledger holds vectors of model of
// size dimensions.
func (s *Store) HasVectorsOfSize(ctx context.Context, model string, size int) (bool, error) {
	var n int
	err := s.db.GetContext(context.WithoutCancel(ctx), &n, `SELECT EXISTS (SELECT 1 FROM chunk_vectors WHERE model = ? AND dimensions = ?)`, model, size)
	return n != 0, err
}

// VectorSizes returns, for each model whose stored vectors have more
// than one size, how many chunks have each size.
func (s *Store) VectorSizes(ctx context.Context) (map[string]map[int]int, error) {
	var rows []struct {
		Model string `db:"model"`
		Dim   int    `db:"dimensions"`
		N     int    `db:"n"`
	}
	if err := s.db.SelectContext(ctx, &rows, `SELECT model, dimensions, count(*) AS n FROM chunk_vectors
		WHERE model IN (SELECT model FROM chunk_vectors GROUP BY model HAVING min(dimensions) != max(dimensions))
		GROUP BY model, dimensions`); err != nil {
		return nil, err
	}
	out := map[string]map[int]int{}
	for _, r := range rows {
		if out[r.Model] == nil {
			out[r.Model] = map[int]int{}
		}
		out[r.Model][r.Dim] = r.N
	}
	return out, nil
}

// HasVectors reports whether the ledger holds vectors of model.
func (s *Store) HasVectors(ctx context.Context, model string) (bool, error) {
	var n int
	err := s.db.GetContext(context.WithoutCancel(ctx), &n, `SELECT EXISTS (SELECT 1 FROM chunk_vectors WHERE model = ?)`, model)
	return n != 0, err
}

// ItemsToEmbed returns up to limit items (ids after the id after, in id
// order, archived or not) with a chunk that has no vector of model; with
// ids, only those items. Each comes with all its chunks.
func (s *Store) ItemsToEmbed(ctx context.Context, model string, ids []string, after string, limit int) ([]ItemToEmbed, error) {
	return s.ItemsToEmbedOfSize(ctx, model, 0, ids, after, limit)
}

// ItemsToEmbedOfSize is ItemsToEmbed where a chunk whose vector of model
// has another size than size (when size > 0) counts as having none
// (linkledger embed --resize).
func (s *Store) ItemsToEmbedOfSize(ctx context.Context, model string, size int, ids []string, after string, limit int) ([]ItemToEmbed, error) {
	q := `SELECT DISTINCT c.item_id FROM content_chunks c LEFT JOIN chunk_vectors v ON v.chunk_id = c.id
		WHERE (v.chunk_id IS NULL OR v.model != ? OR ? > 0 AND v.dimensions != ?) AND c.item_id > ?`
	args := []any{model, size, size, after}
	if len(ids) > 0 {
		var err error
		q, args, err = sqlx.In(q+` AND c.item_id IN (?)`, model, size, size, after, ids)
		if err != nil {
			return nil, err
		}
	}
	q += ` ORDER BY c.item_id LIMIT ?`
	args = append(args, limit)
	var todo []string
	if err := s.db.SelectContext(ctx, &todo, q, args...); err != nil {
		return nil, err
	}
	out := make([]ItemToEmbed, 0, len(todo))
	for _, id := range todo {
		var rows []struct {
			Index int    `db:"chunk_index"`
			Text  string `db:"text"`
		}
		if err := s.db.SelectContext(ctx, &rows, `SELECT chunk_index, text FROM content_chunks WHERE item_id = ? ORDER BY chunk_index`, id); err != nil {
			return nil, err
		}
		it := ItemToEmbed{ID: id}
		for _, r := range rows {
			it.Chunks = append(it.Chunks, ChunkVector{Index: r.Index, Text: r.Text})
		}
		out = append(out, it)
	}
	return out, nil
}

// PutVectors stores an item's vectors of model in one transaction (see
// putVectors: chunks whose text changed since are skipped) and returns
// how many were stored. Vectors of another size than the model's stored
// ones are refused (*DimensionError).
func (s *Store) PutVectors(ctx context.Context, itemID, model string, vs []ChunkVector) (int, error) {
	return s.PutVectorsOfSize(ctx, itemID, model, 0, vs)
}

// PutVectorsOfSize is PutVectors refusing vectors of another size than
// size (0: than the model's stored ones; linkledger embed --resize sets
// the endpoint's new size, so the model's vectors move to it).
func (s *Store) PutVectorsOfSize(ctx context.Context, itemID, model string, size int, vs []ChunkVector) (int, error) {
	if model == "" || len(model) > maxVectorModel {
		return 0, fmt.Errorf("model name: want 1..%d bytes", maxVectorModel)
	}
	n := 0
	err := s.tx(ctx, func(tx *sqlx.Tx) error {
		var err error
		n, err = putVectors(ctx, tx, itemID, model, size, vs)
		return err
	})
	return n, err
}

// NoteEmbedError keeps an embedding failure on the item (last embed error
// and an embed_failed event).
func (s *Store) NoteEmbedError(ctx context.Context, itemID string, e *record.Error) error {
	return s.tx(ctx, func(tx *sqlx.Tx) error { return s.noteEmbedError(ctx, tx, itemID, e) })
}

// VectorCounts returns how many chunks hold a vector, by model.
func (s *Store) VectorCounts(ctx context.Context) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT model, count(*) FROM chunk_vectors GROUP BY model`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var m string
		var n int
		if err := rows.Scan(&m, &n); err != nil {
			return nil, err
		}
		out[m] = n
	}
	return out, rows.Err()
}
