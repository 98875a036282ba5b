package e2e

import (
	"archive/zip"
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/linkledger/linkledger/lib/ledger/ledgertest"
)

// mkzip ZIP NAME[=FILE]... writes a zip of the files (an export zip for
// the import tests): NAME is the path inside the zip, FILE the file in
// $WORK (NAME when not given).
func mkzip(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: mkzip ZIP NAME[=FILE]...")
	}
	f, err := os.Create(ts.MkAbs(args[0]))
	ts.Check(err)
	zw := zip.NewWriter(f)
	for _, a := range args[1:] {
		name, file, ok := strings.Cut(a, "=")
		if !ok {
			file = name
		}
		b, err := os.ReadFile(ts.MkAbs(file))
		ts.Check(err)
		w, err := zw.Create(name)
		ts.Check(err)
		_, err = w.Write(b)
		ts.Check(err)
	}
	ts.Check(zw.Close())
	ts.Check(f.Close())
}

// llsql DB QUERY prints the rows of a read query, one per line, columns
// separated by '|' (to look at what no command shows, such as the history).
func llsql(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: llsql DB QUERY")
	}
	ctx := context.Background()
	db, closeDB, err := ledgertest.DB(ctx, ts.MkAbs(args[0]))
	ts.Check(err)
	defer closeDB()
	rows, err := db.QueryxContext(ctx, args[1])
	ts.Check(err)
	defer rows.Close()
	for rows.Next() {
		vals, err := rows.SliceScan()
		ts.Check(err)
		var parts []string
		for _, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			parts = append(parts, fmt.Sprint(v))
		}
		fmt.Fprintln(ts.Stdout(), strings.Join(parts, "|"))
	}
	ts.Check(rows.Err())
}

// sqlexec DB FILE runs the SQL script FILE on a database of any schema
// (a Firefox places.sqlite for the import tests), creating it.
func sqlexec(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sqlexec DB FILE")
	}
	db, err := sql.Open("sqlite3", "file:"+ts.MkAbs(args[0]))
	ts.Check(err)
	defer db.Close()
	script, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	_, err = db.Exec(string(script))
	ts.Check(err)
}
