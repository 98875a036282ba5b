package store

// Blocks of codes (migration 0014): the item_vector_codes rows of many
// items of one model packed into one vector_code_blocks row, so that a
// semantic search steps a row per block, not per item.

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"

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

// errBadBlock is a block row whose blobs do not agree with its members.
var errBadBlock = errors.New("store: malformed vector_code_blocks row")

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
		RowID  int64  `db:"rowid"`
		ItemID string `db:"item_id"`
		Dim    int    `db:"dimensions"`
		IDs    []byte `db:"chunk_ids"`
		Codes  []byte `db:"codes"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT rowid, item_id, dimensions, chunk_ids, codes
		FROM item_vector_codes WHERE model = ? AND block IS NULL ORDER BY dimensions, rowid`, model); err != nil {
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
			members = binary.AppendUvarint(members, uint64(len(r.ItemID)))
			members = append(members, r.ItemID...)
			members = binary.AppendUvarint(members, uint64(len(r.IDs)/8))
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

// blockMembers calls fn for each member of a block: its item id and its
// chunks' ids and codes (words uint64 words a chunk), slices of the
// block's own blobs.
func blockMembers(members, ids, codes []byte, words int, fn func(item, ids, codes []byte)) error {
	if len(ids)%8 != 0 || len(codes) != words*len(ids) {
		return errBadBlock
	}
	off := 0
	for len(members) > 0 {
		l, n := binary.Uvarint(members)
		if n <= 0 || uint64(len(members)-n) < l {
			return errBadBlock
		}
		item := members[n : n+int(l)]
		members = members[n+int(l):]
		c, n := binary.Uvarint(members)
		if n <= 0 || c > uint64(len(ids)/8-off) {
			return errBadBlock
		}
		members = members[n:]
		fn(item, ids[8*off:8*(off+int(c))], codes[8*words*off:8*words*(off+int(c))])
		off += int(c)
	}
	if off != len(ids)/8 {
		return errBadBlock
	}
	return nil
}

// scanCodes calls fn for every item with vectors of model and dimension
// dim: its chunks' ids and codes (words uint64 words a chunk), first
// the members of every block, then the rows not packed yet. One statement,
// so one snapshot: a writer packing or dissolving blocks meanwhile cannot
// make it miss a row or read one twice. The slices are valid only during
// the call.
func scanCodes(ctx context.Context, conn *sqlx.Conn, model string, dim, words int, fn func(item, ids, codes []byte)) error {
	rows, err := conn.QueryContext(ctx, `SELECT NULL, members, chunk_ids, codes FROM vector_code_blocks WHERE model = ? AND dimensions = ?
		UNION ALL
		SELECT item_id, NULL, chunk_ids, codes FROM item_vector_codes WHERE model = ? AND dimensions = ? AND block IS NULL`,
		model, dim, model, dim)
	if err != nil {
		return err
	}
	defer rows.Close()
	var item, members, ids, codes sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&item, &members, &ids, &codes); err != nil {
			return err
		}
		if members != nil { // a block
			if err := blockMembers(members, ids, codes, words, fn); err != nil {
				return err
			}
			continue
		}
		if len(ids)%8 != 0 || len(codes) != words*len(ids) {
			continue // the table's CHECK keeps this from happening
		}
		fn(item, ids, codes)
	}
	return rows.Err()
}

// vectorFilter returns the items with vectors of model and dimension dim
// on the smaller side of the filter f: those it passes (allow true) or,
// when f only leaves the archived out, those it does not (the scan reads
// blocks of items whatever their tags or dates, and skips by this set).
func vectorFilter(ctx context.Context, conn *sqlx.Conn, model string, dim int, f Filter) (set map[string]bool, allow bool, err error) {
	fcond, fargs := f.where()
	cond := `coalesce((` + fcond + `), 0)`
	allow = !f.empty()
	if !allow {
		cond = `NOT ` + cond
	}
	rows, err := conn.QueryContext(ctx, `SELECT v.item_id FROM item_vector_codes v JOIN items it ON it.id = v.item_id
		WHERE v.model = ? AND v.dimensions = ? AND `+cond, append([]any{model, dim}, fargs...)...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	set = map[string]bool{}
	var id string
	for rows.Next() {
		if err := rows.Scan(&id); err != nil {
			return nil, false, err
		}
		set[id] = true
	}
	return set, allow, rows.Err()
}

// PackVectorCodes packs the item rows of model's codes that are not in
// a block yet (a ledger upgraded to migration 0014 has them all
// unpacked; items whose block was dissolved wait for the next put), a
// block's worth at a time, in one transaction. linkledger embed calls it
// before embedding, so a ledger gets its blocks without new vectors.
func (s *Store) PackVectorCodes(ctx context.Context, model string) error {
	return s.tx(ctx, func(tx *sqlx.Tx) error { return packCodes(ctx, tx, model) })
}
