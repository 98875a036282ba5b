package e2e

import (
	"context"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/linkledger/linkledger/lib/ledger/ledgertest"
)

// llcheck DB CHUNKS [MIN MAX] checks a store after a crash: PRAGMA
// integrity_check is ok, every item has exactly CHUNKS chunks and CHUNKS+1
// full-text rows (complete, never half-written), and the number of items is
// within MIN..MAX when given.
func llcheck(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("llcheck does not support !")
	}
	if len(args) != 2 && len(args) != 4 {
		ts.Fatalf("usage: llcheck DB CHUNKS [MIN MAX]")
	}
	want, _ := strconv.Atoi(args[1])
	ctx := context.Background()
	db, closeDB, err := ledgertest.DB(ctx, ts.MkAbs(args[0]))
	ts.Check(err)
	defer closeDB()
	res, err := ledgertest.IntegrityCheck(ctx, ts.MkAbs(args[0]))
	ts.Check(err)
	if res != "ok" {
		ts.Fatalf("integrity_check: %s", res)
	}
	var bad []string
	ts.Check(db.Select(&bad, `SELECT i.id FROM items i WHERE
		(SELECT count(*) FROM content_chunks c WHERE c.item_id = i.id) != ?`, want))
	if len(bad) > 0 {
		ts.Fatalf("%d items with a chunk count other than %d, e.g. %s", len(bad), want, bad[0])
	}
	var items, rows int
	ts.Check(db.Get(&items, `SELECT count(*) FROM items`))
	ts.Check(db.Get(&rows, `SELECT count(*) FROM search`))
	if rows != items*(want+1) {
		ts.Fatalf("%d full-text rows for %d items, want %d", rows, items, items*(want+1))
	}
	if len(args) == 4 {
		lo, _ := strconv.Atoi(args[2])
		hi, _ := strconv.Atoi(args[3])
		if items < lo || items > hi {
			ts.Fatalf("%d items, want %d..%d", items, lo, hi)
		}
	}
	ts.Logf("%d items, each complete", items)
}

// llevents DB ID ENTITY:ACTION... checks an item's history: its events, in
// order, are exactly the ENTITY:ACTION pairs given.
func llevents(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: llevents DB ID ENTITY:ACTION...")
	}
	ctx := context.Background()
	db, closeDB, err := ledgertest.DB(ctx, ts.MkAbs(args[0]))
	ts.Check(err)
	defer closeDB()
	var got []string
	ts.Check(db.SelectContext(ctx, &got, `SELECT entity || ':' || action FROM events WHERE item_id = ? ORDER BY id`, args[1]))
	if strings.Join(got, " ") != strings.Join(args[2:], " ") {
		ts.Fatalf("events of %s: %s\nwant: %s", args[1], strings.Join(got, " "), strings.Join(args[2:], " "))
	}
}
