package store

// The semantic side of a search and its fusion with the lexical side
// (docs/retrieval.md, "Semantic and hybrid retrieval").
//
// The semantic side reads the code (vectorcode.go) of every stored vector
// of the query's model (and dimension) that the filters pass, keeps the
// chunks nearest the query in Hamming distance (in SQLite: vectorscan.go),
// scores those by their cosine
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
	"context"
	"database/sql"
	"errors"
	"sort"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/record"
)

// rrfK is the rank constant of reciprocal rank fusion (the usual 60).
const rrfK = 60

// adjustScale turns the pinned boost and low-confidence penalty into
// fused-score units: the default boost (2) adds 0.01, about what a first
// place on one side is worth (0.5/61).
const adjustScale = 0.005

// semanticRun is the semantic side of one search, ranked on its own
// connection and goroutine while the lexical side ranks on the search's
// (a read of its own: a write committed between the two can show in one
// side and not the other, as between two searches).
type semanticRun struct {
	sem      *Semantic
	depth    int
	embedded chan struct{} // closed once the query's vector is had or failed
	done     chan struct{}
	items    []*scoredItem
	sims     []float64
	err      error // reading the store
	// embedErr is the query's embedding failure: the search is lexical
	embedErr error
	used     bool // items were handed out
}

// startSemantic starts ranking the semantic side as deep as depth.
// opts.archived need not be known yet: the run reads it.
func (s *Store) startSemantic(ctx context.Context, sem *Semantic, opts searchOpts, depth int) *semanticRun {
	r := &semanticRun{sem: sem, depth: depth, embedded: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		if len(sem.Vector) == 0 {
			// the query is embedded while the connection opens
			go func() {
				defer close(r.embedded)
				v, err := sem.Embed(ctx)
				if err == nil && len(v) == 0 {
					err = errors.New("no vector")
				}
				if err != nil {
					r.embedErr = err
					return
				}
				r.sem = &Semantic{Vector: v, Model: sem.Model, Mode: sem.Mode, Weight: sem.Weight}
			}()
		} else {
			close(r.embedded)
		}
		conn, err := s.semDB.Connx(ctx)
		if err != nil {
			if <-r.embedded; r.embedErr == nil {
				r.err = err
			}
			return
		}
		defer conn.Close()
		opts.archived, err = anyArchived(ctx, conn)
		if <-r.embedded; r.embedErr != nil {
			return // the search is lexical: nothing else matters
		}
		if err != nil {
			r.err = err
			return
		}
		r.items, r.sims, r.err = s.semanticRank(ctx, conn, r.sem, opts, depth)
	}()
	return r
}

// anyArchived says whether any item is archived.
func anyArchived(ctx context.Context, conn *sqlx.Conn) (archivedState, error) {
	var n int
	if err := conn.GetContext(ctx, &n, `SELECT EXISTS (SELECT 1 FROM items WHERE archived_at IS NOT NULL)`); err != nil {
		return archivedUnknown, err
	}
	if n != 0 {
		return archivedSome, nil
	}
	return archivedNone, nil
}

// embedFailed waits for the query's vector and says whether it failed.
func (r *semanticRun) embedFailed() bool {
	<-r.embedded
	return r.embedErr != nil
}

// wait waits for the run to end (nil: no run).
func (r *semanticRun) wait() {
	if r != nil {
		<-r.done
	}
}

// ranked returns the semantic side as deep as o.Candidates: the run's
// own ranking when it went that deep, else a new one on conn (a deeper
// tier of rankPage, rare).
func (r *semanticRun) ranked(ctx context.Context, s *Store, conn *sqlx.Conn, o searchOpts) ([]*scoredItem, []float64, error) {
	r.wait()
	if r.err != nil || r.embedErr != nil {
		return nil, nil, r.err
	}
	if !r.used && o.Candidates <= r.depth {
		// once: fusing changes the items
		r.used = true
		n := min(len(r.items), o.Candidates)
		return r.items[:n:n], r.sims[:n:n], nil
	}
	return s.semanticRank(ctx, conn, r.sem, o, o.Candidates)
}

// rescoreMin and rescoreFactor size the semantic side's first pass: the
// rescoreFactor × depth chunks (at least rescoreMin) nearest the query by
// the Hamming distance of their codes are rescored with their float
// vectors. A ledger with fewer chunks than that is ranked exactly.
const (
	rescoreMin       = 500
	rescoreFactorSem = 10
)

// semanticRank ranks the items with vectors of sem's model by their best
// chunk's similarity to the query, best first, at most depth items. The
// first pass (ll_nearest, in SQLite: vectorscan.go) reads the code of
// every chunk, the blocks of many items and then the items not packed
// yet, in one read transaction, and keeps the chunks nearest the query in
// Hamming distance; those are rescored by cosine similarity from their
// float vectors.
func (s *Store) semanticRank(ctx context.Context, conn *sqlx.Conn, sem *Semantic, opts searchOpts, depth int) ([]*scoredItem, []float64, error) {
	qv := unit(sem.Vector)
	qcode := appendCode(nil, qv)
	mode, set := nearestEvery, []byte{}
	if !filterEmpty(opts.Filter) || opts.Filter.Archived == NotArchived && opts.archived != archivedNone {
		seqs, allow, err := vectorFilter(ctx, conn, opts.Filter)
		if err != nil {
			return nil, nil, err
		}
		mode = nearestButSet
		if allow {
			mode = nearestOnlySet
		}
		set = appendSeqs(set, seqs)
	}
	keep := max(rescoreMin, rescoreFactorSem*depth)
	// one read transaction: the blocks, the rows not packed yet and the
	// vectors are read in one snapshot (a writer packing meanwhile cannot
	// make a row missed or read twice)
	if _, err := conn.ExecContext(ctx, `BEGIN`); err != nil {
		return nil, nil, err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`)
	var near []nearest
	for _, q := range []string{
		`SELECT coalesce(ll_nearest(NULL, members, chunk_ids, codes, ?, ?, ?, ?), x'') FROM vector_code_blocks WHERE model = ? AND dimensions = ?`,
		`SELECT coalesce(ll_nearest(it.seq, NULL, v.chunk_ids, v.codes, ?, ?, ?, ?), x'') FROM item_vector_codes v JOIN items it ON it.id = v.item_id
			WHERE v.model = ? AND v.dimensions = ? AND v.block IS NULL`,
	} {
		var kept []byte
		if err := conn.GetContext(ctx, &kept, q, qcode, keep, mode, set, sem.Model, len(qv)); err != nil {
			return nil, nil, err
		}
		n, err := decodeNearest(kept)
		if err != nil {
			return nil, nil, err
		}
		near = append(near, n...)
	}
	if len(near) == 0 {
		return nil, nil, nil
	}
	// the keep nearest of both, by distance then chunk id
	sort.Slice(near, func(i, j int) bool {
		if near[i].dist != near[j].dist {
			return near[i].dist < near[j].dist
		}
		return near[i].chunk < near[j].chunk
	})
	near = near[:min(len(near), keep)]
	chunkIDs := make([]int64, len(near))
	for i, c := range near {
		chunkIDs[i] = c.chunk
	}
	byItem, err := rescore(ctx, conn, sem.Model, embed.Bytes(qv), chunkIDs)
	if err != nil {
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

// best is an item's best chunk by similarity.
type best struct {
	chunk int64
	sim   float64
}

// rescore returns each item's best chunk of chunkIDs by the dot product of
// its vector of model with qv (ll_dot: the vectors stay in SQLite).
func rescore(ctx context.Context, conn *sqlx.Conn, model string, qv []byte, chunkIDs []int64) (map[string]*best, error) {
	byItem := map[string]*best{}
	// +model: looked up by chunk id, the model only checked (an index on
	// model would scan all of the model's rows)
	qs, qargs, err := sqlx.In(`SELECT chunk_id, item_id, ll_dot(vector, ?) FROM chunk_vectors WHERE chunk_id IN (?) AND +model = ?`, qv, chunkIDs, model)
	if err != nil {
		return nil, err
	}
	var (
		id  int64
		it  string
		dot sql.NullFloat64
	)
	rows, err := conn.QueryContext(ctx, qs, qargs...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(&id, &it, &dot); err != nil {
			return nil, err
		}
		if !dot.Valid {
			continue // another dimension
		}
		sim := dot.Float64
		if b := byItem[it]; b == nil {
			byItem[it] = &best{id, sim}
		} else if sim > b.sim || sim == b.sim && id < b.chunk {
			b.chunk, b.sim = id, sim
		}
	}
	return byItem, rows.Err()
}

// withSemantic fuses the semantic side of run, as deep as the
// candidates, with the lexical ranking lex (nil: semantic alone). When
// the query could not be embedded the lexical ranking is returned as it
// is (run.embedErr says why).
func (s *Store) withSemantic(ctx context.Context, conn *sqlx.Conn, lex []*scoredItem, run *semanticRun, o searchOpts) ([]*scoredItem, error) {
	si, sims, err := run.ranked(ctx, s, conn, o)
	if err != nil {
		return nil, err
	}
	if run.embedErr != nil {
		return lex, nil
	}
	return s.fuse(ctx, conn, lex, si, sims, run.sem, o.Weights)
}

// fusedScore is an item's weighted reciprocal rank fusion score (see the
// top of this file): ws the semantic side's share, each rank from 1 (0:
// that side did not find the item), the pinned boost and low-confidence
// penalty in the lexical side's units.
func fusedScore(ws float64, lexicalRank, semanticRank int, pinnedBoost, lowPenalty float64) float64 {
	var fused float64
	if lexicalRank > 0 {
		fused += (1 - ws) / float64(rrfK+lexicalRank)
	}
	if semanticRank > 0 {
		fused += ws / float64(rrfK+semanticRank)
	}
	return fused + adjustScale*(pinnedBoost-lowPenalty)
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
		fused := fusedScore(ws, f.LexicalRank, f.SemanticRank, it.why.PinnedBoost, it.why.LowConfidencePenalty)
		f.FusedScore = round(fused)
		it.score = fused
		it.why.RankingScore = f.FusedScore
	}
	sortItems(items)
	return items, nil
}
