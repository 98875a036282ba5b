package store

// The semantic side of a search and its fusion with the lexical side
// (docs/retrieval.md, "Semantic and hybrid retrieval").
//
// The semantic side reads the sign bits of every stored vector of the
// query's model (and dimension) that the filters pass, keeps the chunks
// nearest the query in Hamming distance, scores those by their cosine
// similarity to the query (vectors are stored at unit length: a dot
// product), and ranks items by their best chunk. It sees every item with
// vectors, so it brings in items the lexical side never matched.
//
// Fusion is weighted reciprocal rank fusion:
//
//	fused = (1-w)/(k+lexical_rank) + w/(k+semantic_rank) + adjustScale × (pinned_boost - low_confidence_penalty)
//
// a side that did not find the item adds nothing; w is Semantic.Weight,
// k is rrfK. The lexical rank already counts pins and penalties; the last
// term makes them count for items only the semantic side found too.

import (
	"container/heap"
	"context"
	"database/sql"
	"encoding/binary"
	"math"
	mbits "math/bits"
	"sort"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/record"
)

// Ranking modes (ll-find --mode).
const (
	ModeLexical  = "lexical"
	ModeSemantic = "semantic"
	ModeHybrid   = "hybrid"
)

// DefaultSemanticWeight is the semantic side's share in hybrid fusion:
// equal weights, which serve a modern embedding model (published BEIR
// SciFact figures: BM25 0.686, bge-base 0.741, their RRF 0.744). A weak
// embedder should get less (docs/retrieval.md).
const DefaultSemanticWeight = 0.5

// rrfK is the rank constant of reciprocal rank fusion (the usual 60).
const rrfK = 60

// adjustScale turns the pinned boost and low-confidence penalty into
// fused-score units: the default boost (2) adds 0.01, about what a first
// place on one side is worth (0.5/61).
const adjustScale = 0.005

// Semantic is the semantic side of a search: the query's vector, the
// model that made it (only that model's vectors are read, never two
// models in one ranking), the mode and the fusion weight.
type Semantic struct {
	Vector []float32
	Model  string
	Mode   string  // ModeSemantic or ModeHybrid
	Weight float64 // hybrid: the semantic side's share, 0..1
}

// rescoreMin and rescoreFactor size the semantic side's first pass: the
// rescoreFactor × depth chunks (at least rescoreMin) nearest the query by
// the Hamming distance of their sign bits are rescored with their float
// vectors. A ledger with fewer chunks than that is ranked exactly.
const (
	rescoreMin       = 500
	rescoreFactorSem = 10
)

// semanticRank ranks the items with vectors of sem's model by their best
// chunk's similarity to the query, best first, at most depth items. It
// scans item_vector_bits (one row per item: every chunk's sign bits),
// keeps the chunks nearest the query in Hamming distance and rescores
// them by cosine similarity from their float vectors.
func (s *Store) semanticRank(ctx context.Context, conn *sqlx.Conn, sem *Semantic, opts SearchOptions, depth int) ([]*scoredItem, []float64, error) {
	qv := unit(sem.Vector)
	qbits := signBits(qv)
	words := len(qbits) / 8
	qw := make([]uint64, words)
	for i := range qw {
		qw[i] = binary.LittleEndian.Uint64(qbits[8*i:])
	}
	q := `SELECT v.item_id, v.chunk_ids, v.bits FROM item_vector_bits v WHERE v.model = ? AND v.dimensions = ?`
	args := []any{sem.Model, len(qv)}
	if !opts.Filter.empty() || opts.Filter.Archived == NotArchived && opts.archived != archivedNone {
		fcond, fargs := opts.Filter.where()
		q = `SELECT v.item_id, v.chunk_ids, v.bits FROM item_vector_bits v JOIN items it ON it.id = v.item_id
			WHERE v.model = ? AND v.dimensions = ? AND ` + fcond
		args = append(args, fargs...)
	}
	keep := max(rescoreMin, rescoreFactorSem*depth)
	near := &chunkHeap{}
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, nil, err
	}
	var (
		itemID    string
		ids, bits sql.RawBytes
	)
	for rows.Next() {
		if err := rows.Scan(&itemID, &ids, &bits); err != nil {
			rows.Close()
			return nil, nil, err
		}
		n := len(ids) / 8
		if len(bits) != n*words*8 {
			continue
		}
		for c := 0; c < n; c++ {
			d := 0
			for w := 0; w < words; w++ {
				d += mbits.OnesCount64(qw[w] ^ binary.LittleEndian.Uint64(bits[8*(c*words+w):]))
			}
			if near.Len() < keep || d < (*near)[0].dist {
				ch := nearChunk{dist: d, chunk: int64(binary.LittleEndian.Uint64(ids[8*c:])), item: itemID}
				if near.Len() < keep {
					heap.Push(near, ch)
				} else {
					(*near)[0] = ch
					heap.Fix(near, 0)
				}
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if near.Len() == 0 {
		return nil, nil, nil
	}
	owner := make(map[int64]string, near.Len())
	chunkIDs := make([]int64, 0, near.Len())
	for _, c := range *near {
		owner[c.chunk] = c.item
		chunkIDs = append(chunkIDs, c.chunk)
	}
	type best struct {
		chunk int64
		sim   float64
	}
	byItem := map[string]*best{}
	qs, qargs, err := sqlx.In(`SELECT chunk_id, vector FROM chunk_vectors WHERE chunk_id IN (?)`, chunkIDs)
	if err != nil {
		return nil, nil, err
	}
	var (
		id   int64
		blob sql.RawBytes
	)
	vrows, err := conn.QueryContext(ctx, qs, qargs...)
	if err != nil {
		return nil, nil, err
	}
	defer vrows.Close()
	for vrows.Next() {
		if err := vrows.Scan(&id, &blob); err != nil {
			return nil, nil, err
		}
		if len(blob) != 4*len(qv) {
			continue
		}
		var dot float32
		for i, x := range qv {
			dot += x * math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:]))
		}
		sim := float64(dot)
		it := owner[id]
		if b := byItem[it]; b == nil {
			byItem[it] = &best{id, sim}
		} else if sim > b.sim || sim == b.sim && id < b.chunk {
			b.chunk, b.sim = id, sim
		}
	}
	if err := vrows.Err(); err != nil {
		return nil, nil, err
	}
	items := make([]*scoredItem, 0, len(byItem))
	sims := map[*scoredItem]float64{}
	for iid, b := range byItem {
		it := &scoredItem{id: iid, rows: []*candidate{{rowid: b.chunk, porter: true, semantic: true, item: iid}}}
		sims[it] = b.sim
		items = append(items, it)
	}
	sort.Slice(items, func(i, j int) bool {
		if a, b := sims[items[i]], sims[items[j]]; a != b {
			return a > b
		}
		return items[i].id < items[j].id
	})
	items = items[:min(len(items), depth)]
	out := make([]float64, len(items))
	for i, it := range items {
		out[i] = sims[it]
	}
	return items, out, nil
}

// nearChunk is a chunk of the semantic side's first pass.
type nearChunk struct {
	dist  int // Hamming distance of its sign bits to the query's
	chunk int64
	item  string
}

// chunkHeap keeps the nearest chunks: a max-heap by distance (the root is
// the farthest kept, replaced by a nearer one).
type chunkHeap []nearChunk

func (h chunkHeap) Len() int { return len(h) }
func (h chunkHeap) Less(i, j int) bool {
	if h[i].dist != h[j].dist {
		return h[i].dist > h[j].dist
	}
	return h[i].chunk > h[j].chunk
}
func (h chunkHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *chunkHeap) Push(x any)   { *h = append(*h, x.(nearChunk)) }
func (h *chunkHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// withSemantic ranks the semantic side as deep as the candidates and
// fuses it with the lexical ranking lex (nil: semantic alone).
func (s *Store) withSemantic(ctx context.Context, conn *sqlx.Conn, lex []*scoredItem, sem *Semantic, o SearchOptions) ([]*scoredItem, error) {
	si, sims, err := s.semanticRank(ctx, conn, sem, o, o.Candidates)
	if err != nil {
		return nil, err
	}
	return s.fuse(ctx, conn, lex, si, sims, sem, o.Weights)
}

// fuse merges the lexical ranking (best first, scored) with the semantic
// one (best first, with their similarities) by weighted reciprocal rank
// fusion, and records each side's rank and score in why_ranked.fusion.
func (s *Store) fuse(ctx context.Context, conn *sqlx.Conn, lex, sem []*scoredItem, sims []float64, sm *Semantic, w Weights) ([]*scoredItem, error) {
	ws := sm.Weight
	if sm.Mode == ModeSemantic {
		ws = 1
	}
	byID := make(map[string]*scoredItem, len(lex)+len(sem))
	var items []*scoredItem
	for i, it := range lex {
		score := it.why.RankingScore
		it.why.Fusion = &record.Fusion{Mode: sm.Mode, LexicalRank: i + 1, LexicalScore: &score}
		byID[it.id] = it
		items = append(items, it)
	}
	var only []*scoredItem // found by the semantic side alone
	for i, si := range sem {
		sim := round(sims[i])
		it := byID[si.id]
		if it == nil {
			it = si
			it.why.Fusion = &record.Fusion{Mode: sm.Mode}
			byID[it.id] = it
			items = append(items, it)
			only = append(only, it)
		} else {
			it.rows = append(it.rows, si.rows...)
		}
		it.why.Fusion.SemanticRank = i + 1
		it.why.Fusion.SemanticSimilarity = &sim
	}
	if len(only) > 0 {
		// pins and penalties of the items the lexical side did not score
		if err := s.adjust(ctx, conn, only, nil, w); err != nil {
			return nil, err
		}
	}
	for _, it := range items {
		f := it.why.Fusion
		var fused float64
		if f.LexicalRank > 0 {
			fused += (1 - ws) / float64(rrfK+f.LexicalRank)
		}
		if f.SemanticRank > 0 {
			fused += ws / float64(rrfK+f.SemanticRank)
		}
		fused += adjustScale * (it.why.PinnedBoost - it.why.LowConfidencePenalty)
		f.FusedScore = round(fused)
		it.score = fused
		it.why.RankingScore = f.FusedScore
	}
	sortItems(items)
	return items, nil
}
