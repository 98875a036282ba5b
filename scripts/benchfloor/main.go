// Command benchfloor is the smallest program that does what one ll-save or
// one ll-find process does with SQLite, and nothing else: no record
// parsing, no canonicalization, no CLI framework, no jq. make bench times it
// next to the real binaries, so their numbers can be read against what this
// machine costs for "start a cgo process, open the file, do one statement".
//
// It imports the SQLite driver directly (elsewhere only lib/ledger/internal/store does) on
// purpose: it must not share linkledger's code to measure the floor under it.
//
//	benchfloor write DB N     one INSERT in a new IMMEDIATE transaction, then
//	                          close (the table is created with N rows first
//	                          if it is missing)
//	benchfloor find DB TEXT   one FTS5 query on linkledger's search table:
//	                          the words of TEXT OR-ed, ORDER BY rank LIMIT 10
//	benchfloor load DB [PER]  the raw full-text load under ll-index: NDJSON
//	                          records {url, title, text} on stdin, each
//	                          record's title and text one row of one FTS5
//	                          table (linkledger's tokenizer: porter unicode61
//	                          remove_diacritics 2), all in one transaction,
//	                          or PER records per transaction
package main

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"

	_ "github.com/mattn/go-sqlite3"
)

// dsn uses the settings of lib/ledger/internal/store's DSN.
func dsn(path string, ro bool) string {
	d := "file:" + path + "?_journal_mode=WAL&_busy_timeout=30000&_foreign_keys=on&_synchronous=NORMAL&_txlock=immediate"
	if ro {
		d += "&mode=ro"
	}
	return d
}

func main() {
	if len(os.Args) >= 3 && len(os.Args) <= 4 && os.Args[1] == "load" {
		per := 0
		if len(os.Args) == 4 {
			per, _ = strconv.Atoi(os.Args[3])
		}
		if err := load(os.Args[2], per); err != nil {
			fmt.Fprintln(os.Stderr, "benchfloor:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: benchfloor write DB N | benchfloor find DB TEXT | benchfloor load DB [PER] < records")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "write":
		err = write(os.Args[2], os.Args[3])
	case "find":
		err = find(os.Args[2], os.Args[3])
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchfloor:", err)
		os.Exit(1)
	}
}

func write(path, rows string) error {
	n, err := strconv.Atoi(rows)
	if err != nil {
		return err
	}
	db, err := sql.Open("sqlite3", dsn(path, false))
	if err != nil {
		return err
	}
	defer db.Close()
	var exists int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'floor'`).Scan(&exists); err != nil {
		return err
	}
	if exists == 0 {
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`CREATE TABLE floor (id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, saved_at TEXT NOT NULL)`); err != nil {
			return err
		}
		for i := range n {
			if _, err := tx.Exec(`INSERT INTO floor (url, saved_at) VALUES (?, ?)`, fmt.Sprintf("https://floor.example/%d", i), time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
				return err
			}
		}
		return tx.Commit()
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT OR IGNORE INTO floor (url, saved_at) VALUES (?, ?)`, fmt.Sprintf("https://floor.example/new/%d", time.Now().UnixNano()), time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
		return err
	}
	return tx.Commit()
}

func find(path, text string) error {
	var terms []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		terms = append(terms, `"`+w+`"`)
	}
	if len(terms) == 0 {
		return nil
	}
	db, err := sql.Open("sqlite3", dsn(path, true))
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT rowid FROM search WHERE search MATCH ? ORDER BY rank LIMIT 10`, strings.Join(terms, " OR "))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
	}
	return rows.Err()
}

// load reads records line by line and writes each record's title and text
// as one row of an FTS5 table, per records per transaction (0: all in one).
func load(path string, per int) error {
	db, err := sql.Open("sqlite3", dsn(path, false))
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE VIRTUAL TABLE IF NOT EXISTS floor_text USING fts5(title, body, tokenize = 'porter unicode61 remove_diacritics 2')`); err != nil {
		return err
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	var tx *sql.Tx
	n := 0
	for sc.Scan() {
		var rec struct {
			Title string `json:"title"`
			Text  string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return err
		}
		if tx == nil {
			if tx, err = db.Begin(); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(`INSERT INTO floor_text(title, body) VALUES (?, ?)`, rec.Title, rec.Text); err != nil {
			tx.Rollback()
			return err
		}
		if n++; per > 0 && n%per == 0 {
			if err := tx.Commit(); err != nil {
				return err
			}
			tx = nil
		}
	}
	if err := sc.Err(); err != nil {
		if tx != nil {
			tx.Rollback()
		}
		return err
	}
	if tx != nil {
		return tx.Commit()
	}
	return nil
}
