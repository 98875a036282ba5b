package e2e

import (
	"database/sql"
	"fmt"
	"os"
	"time"

	_ "github.com/mattn/go-sqlite3"
)

// testLock is the ll-testlock program of the scripts: ll-testlock DB
// LOCKED RELEASE takes DB's write lock (BEGIN IMMEDIATE and a write),
// creates the file LOCKED, and holds the lock until the file RELEASE
// exists (at most a minute); then it rolls back. It stands for another
// process that holds the database longer than --busy-timeout.
func testLock() int {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: ll-testlock DB LOCKED RELEASE")
		return 2
	}
	db, err := sql.Open("sqlite3", "file:"+os.Args[1]+"?_busy_timeout=5000")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{"BEGIN IMMEDIATE", "UPDATE items SET updated_at = updated_at"} {
		if _, err := db.Exec(q); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", q, err)
			return 1
		}
	}
	if err := os.WriteFile(os.Args[2], nil, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(os.Args[3]); err == nil {
			break
		}
	}
	if _, err := db.Exec("ROLLBACK"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
