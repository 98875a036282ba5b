package store

// What a brief reads to choose its sentences: the full items' stored
// text, chunk by chunk, and how rare each query term is in the word index.

import (
	"context"
	"math"
)

// ChunkText is one stored chunk of an item's text.
type ChunkText struct {
	Index int    `db:"chunk_index"`
	Text  string `db:"text"`
	Kind  string `db:"kind"` // record.Chunk's Kind
}

// ItemChunks returns the stored chunks of the item id, in order, whole
// chunks while their text adds up to at most maxBytes (0: no bound): a
// prefix of the item's text. An unknown item has none.
func (s *Store) ItemChunks(ctx context.Context, id string, maxBytes int) ([]ChunkText, error) {
	rows, err := s.db.QueryxContext(ctx, `SELECT chunk_index, text, `+chunkKindCol+` FROM content_chunks WHERE item_id = ? ORDER BY chunk_index`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ChunkText
	n := 0
	for rows.Next() {
		var c ChunkText
		if err := rows.StructScan(&c); err != nil {
			return nil, err
		}
		if maxBytes > 0 && n+len(c.Text) > maxBytes {
			break
		}
		n += len(c.Text)
		out = append(out, c)
	}
	return out, rows.Err()
}

// TermRarity returns, for each term, the inverse document frequency of
// the rows of the word index it matches, ln((rows+1)/(matches+0.5)), with
// matches counted up to limit (a bounded scan per term: past it a term is
// common, and weighs what limit matches weigh).
func (s *Store) TermRarity(ctx context.Context, terms []string, limit int64) ([]float64, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	conn, err := s.db.Connx(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var total int64
	if err := conn.GetContext(ctx, &total, `SELECT coalesce(max(id), 0) + (SELECT count(*) FROM items) FROM content_chunks`); err != nil {
		return nil, err
	}
	ns, err := countTerms(ctx, conn, terms, nil, limit)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(terms))
	for i, n := range ns {
		out[i] = math.Log(float64(total+1) / (float64(n) + 0.5))
	}
	return out, nil
}
