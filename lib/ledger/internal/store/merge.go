package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// FTS5 writes every committed transaction's index data as a new segment
// and merges segments automatically only once several pile up on one
// level, so an index built one item at a time carries a dozen or more
// segments, and every term lookup reads each of them. Merging them into one
// (FTS5's "merge" command with a negative page count: an incremental
// 'optimize') makes cold queries read fewer pages; on the 10k-item
// benchmark store it took ll-find from 16 segments to 1 (docs/benchmarks.md).
//
// MergeIndex does that work in steps of mergeStepPages pages, each in its
// own short write transaction (a concurrent writer waits at most one step;
// a killed process leaves a consistent, partly merged index that the next
// call continues), until the index is fully merged or about maxPages pages
// were written (maxPages < 0: no bound). ll-index calls it at the end of its
// input with a budget proportional to what it indexed, so merging costs
// each item a bounded multiple of its own size and a bulk load ends fully
// merged; `ll-index --optimize` merges everything.

// mergeStepPages is the most work of one merge transaction (~1 MB of
// writes).
const mergeStepPages = 256

// minMergeStepPages is the least work of one merge transaction. A step
// writes its output pages before it frees the input pages they replace,
// so every output page the file's free list cannot hold grows the file.
// mergeStep therefore sizes each step to the free pages there are, at
// least this many, at most mergeStepPages (issue 23: a bulk load ended
// with its 256-page first step, ~1.3% of the file, on the free list for
// good). The smaller steps cost a few steps and a partly filled leaf page
// each, never a different search result.
const minMergeStepPages = 32

// MergeIndex merges the full-text index segments (see above).
func (s *Store) MergeIndex(ctx context.Context, maxPages int) (MergeStats, error) {
	var st MergeStats
	for _, table := range []string{"search", "search_cjk"} {
		done := 0
		for {
			if maxPages >= 0 && done >= maxPages {
				return st, nil
			}
			step := mergeStepPages
			if maxPages >= 0 {
				step = min(step, max(maxPages-done, 1))
			}
			worked, step, err := s.mergeStep(ctx, table, step)
			if err != nil {
				return st, fmt.Errorf("merge %s: %w", table, err)
			}
			if !worked {
				break
			}
			st.Steps++
			done += step
		}
	}
	st.Complete = true
	return st, nil
}

// mergeStep runs one merge command of at most maxPages pages, fewer when
// the file has fewer free pages (but at least minMergeStepPages), and
// reports whether it did any work (FTS5 documents that a no-op merge
// changes total_changes() by less than 2) and the pages it asked for.
func (s *Store) mergeStep(ctx context.Context, table string, maxPages int) (bool, int, error) {
	worked := false
	pages := maxPages
	err := s.tx(ctx, func(tx *sqlx.Tx) error {
		var before, after, free int64
		if err := tx.GetContext(ctx, &free, `PRAGMA freelist_count`); err != nil {
			return err
		}
		pages = int(min(int64(maxPages), max(free, minMergeStepPages)))
		if err := tx.GetContext(ctx, &before, `SELECT total_changes()`); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+table+`(`+table+`, rank) VALUES ('merge', ?)`, -pages); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &after, `SELECT total_changes()`); err != nil {
			return err
		}
		worked = after-before >= 2
		return nil
	})
	return worked, pages, err
}
