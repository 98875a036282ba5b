package store

// Blocks of codes (migration 0014): the item_vector_codes rows of many
// items of one model packed into one vector_code_blocks row, so that a
// semantic search steps a row per block, not per item.

import (
	"context"
	"encoding/binary"

	"github.com/jmoiron/sqlx"
)

// Block sizes: a block is written once blockItems unpacked rows (or
// blockBytes of their codes) have gathered; fewer stay unpacked, read row
// by row. 128 items of 10 chunks of 768 bits is 120 KiB of codes; the
// byte cap bounds a block of long items (a book's thousands of chunks).
const (
	blockItems = 128
	blockBytes = 1 << 20
)

// packCodes packs the unpacked item_vector_codes rows of model into new
// blocks of one dimension each, when a full block's worth has gathered.
func packCodes(ctx context.Context, tx *sqlx.Tx, model string) error {
	var pending struct {
		N     int   `db:"n"`
		Bytes int64 `db:"bytes"`
	}
	if err := tx.GetContext(ctx, &pending, `SELECT count(*) AS n, coalesce(sum(length(codes)), 0) AS bytes
		FROM item_vector_codes WHERE model = ? AND block IS NULL`, model); err != nil {
		return err
	}
	if pending.N < blockItems && pending.Bytes < blockBytes {
		return nil
	}
	var rows []struct {
		RowID int64  `db:"rowid"`
		Seq   int64  `db:"seq"`
		Dim   int    `db:"dimensions"`
		IDs   []byte `db:"chunk_ids"`
		Codes []byte `db:"codes"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT v.rowid, it.seq, v.dimensions, v.chunk_ids, v.codes
		FROM item_vector_codes v JOIN items it ON it.id = v.item_id
		WHERE v.model = ? AND v.block IS NULL ORDER BY v.dimensions, v.rowid`, model); err != nil {
		return err
	}
	var next int64
	if err := tx.GetContext(ctx, &next, `SELECT coalesce(max(block), 0) + 1 FROM vector_code_blocks WHERE model = ?`, model); err != nil {
		return err
	}
	for start := 0; start < len(rows); {
		dim := rows[start].Dim
		var members, ids, codes []byte
		end := start
		for ; end < len(rows) && rows[end].Dim == dim && end-start < blockItems && len(codes) < blockBytes; end++ {
			r := rows[end]
			members = binary.LittleEndian.AppendUint64(members, uint64(r.Seq))
			members = binary.LittleEndian.AppendUint64(members, uint64(len(r.IDs)/8))
			ids = append(ids, r.IDs...)
			codes = append(codes, r.Codes...)
		}
		if end-start < blockItems && len(codes) < blockBytes {
			start = end // not a full block: stays unpacked
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO vector_code_blocks(model, block, dimensions, members, chunk_ids, codes) VALUES (?,?,?,?,?,?)`,
			model, next, dim, members, ids, codes); err != nil {
			return err
		}
		for _, r := range rows[start:end] {
			if _, err := tx.ExecContext(ctx, `UPDATE item_vector_codes SET block = ? WHERE rowid = ?`, next, r.RowID); err != nil {
				return err
			}
		}
		next++
		start = end
	}
	return nil
}

// vectorFilter returns the items (their seq, ascending) on the smaller
// side of the filter f: those it passes (allow true) or, when f only
// leaves the archived out, the archived ones (read from their partial
// index). The first pass reads blocks of items whatever their tags or
// dates, and keeps or skips by this set; an item in it without vectors
// changes nothing.
func vectorFilter(ctx context.Context, conn *sqlx.Conn, f Filter) (seqs []int64, allow bool, err error) {
	if filterEmpty(f) {
		err = conn.SelectContext(ctx, &seqs, `SELECT seq FROM items WHERE archived_at IS NOT NULL ORDER BY seq`)
		return seqs, false, err
	}
	fcond, fargs := filterWhere(f, nil)
	err = conn.SelectContext(ctx, &seqs, `SELECT it.seq FROM items it WHERE `+fcond+` ORDER BY it.seq`, fargs...)
	return seqs, true, err
}

// PackVectorCodes packs the item rows of model's codes that are not in
// a block yet (the members of a block dissolved by deletes wait for the
// next put), a block's worth at a time, in one transaction. linkledger
// embed calls it before embedding, so a ledger gets its blocks without
// new vectors.
func (s *Store) PackVectorCodes(ctx context.Context, model string) error {
	return s.tx(ctx, func(tx *sqlx.Tx) error { return packCodes(ctx, tx, model) })
}
