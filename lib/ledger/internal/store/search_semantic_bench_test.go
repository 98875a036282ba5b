package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/record"
)

// fillVectors adds items with 10 chunks each, every chunk with a random
// unit vector of dim values (model "bench"), directly (no full-text rows:
// only the semantic side is measured).
func fillVectors(b testing.TB, s *Store, chunks, dim int) {
	b.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	tx := s.DB().MustBegin()
	for i := 0; i < chunks/10; i++ {
		id := record.ItemID(fmt.Sprintf("https://bench.test/%d", i))
		tx.MustExec(`INSERT INTO items(id, seq, canonical_url, original_url, source_type, title, saved_at, updated_at, ingest_status) VALUES (?,?,?,?,?,?,?,?,?)`,
			id, i+1, fmt.Sprintf("https://bench.test/%d", i), fmt.Sprintf("https://bench.test/%d", i), "article", "t", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "parsed")
		for k := 0; k < 10; k++ {
			res := tx.MustExec(`INSERT INTO content_chunks(item_id, chunk_index, text, tokens) VALUES (?,?,?,?)`, id, k, "x", 1)
			cid, _ := res.LastInsertId()
			v := make([]float32, dim)
			for j := range v {
				v[j] = float32(r.NormFloat64())
			}
			tx.MustExec(`INSERT INTO chunk_vectors(chunk_id, item_id, model, dimensions, vector) VALUES (?,?,?,?,?)`,
				cid, id, "bench", dim, embed.Bytes(unit(v)))
		}
		if err := rebuildCodes(context.Background(), tx, id); err != nil {
			b.Fatal(err)
		}
		if err := packCodes(context.Background(), tx, "bench"); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	// into the database file: a search of a ledger at rest reads no WAL
	s.DB().MustExec(`PRAGMA wal_checkpoint(TRUNCATE)`)
}

// BenchmarkSemanticRank: the semantic side alone (code scan and
// float rescoring) at 10k and 100k chunks of 768 dimensions.
func BenchmarkSemanticRank(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := context.Background()
			s, err := Open(ctx, filepath.Join(b.TempDir(), "ll.db"), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			fillVectors(b, s, n, 768)
			q := make([]float32, 768)
			for i := range q {
				q[i] = float32(i%7) - 3
			}
			sem := &Semantic{Vector: q, Model: "bench", Mode: ModeSemantic}
			conn, err := s.db.Connx(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			opts := searchOpts{}.withDefaults()
			opts.archived = archivedNone
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, _, err := s.semanticRank(ctx, conn, sem, opts, 80); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
