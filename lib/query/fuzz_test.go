package query

import (
	"database/sql"
	"strings"
	"testing"

	// The test runs expressions against a real FTS5 table; lib/query itself
	// never touches a database.
	_ "github.com/mattn/go-sqlite3"
)

// openFTS opens an in-memory database with tables shaped like the store's.
func openFTS(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	for _, stmt := range []string{
		`CREATE VIRTUAL TABLE search USING fts5(title, body, annotations, tokenize = 'porter unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE search_cjk USING fts5(title, body, annotations, tokenize = 'trigram')`,
		`INSERT INTO search(rowid, title, body, annotations) VALUES (1, 'Running fast', 'the runners ran in the café', ''), (2, 'Other', 'nothing here 東京の機械学習', 'a note')`,
		`INSERT INTO search_cjk(rowid, title, body, annotations) VALUES (2, 'Other', 'nothing here 東京の機械学習', 'a note')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	return db
}

// run executes q against both indexes and returns the error, if any.
func run(db *sql.DB, q Query) (int, error) {
	n := 0
	count := func(table, expr string) error {
		if expr == "" {
			return nil
		}
		rows, err := db.Query(`SELECT rowid, bm25(`+table+`, 10, 1, 5), snippet(`+table+`, -1, '', '', '…', 24) FROM `+table+` WHERE `+table+` MATCH ? ORDER BY bm25(`+table+`, 10, 1, 5) LIMIT 20`, expr)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			n++
		}
		return rows.Err()
	}
	if err := count("search", q.Match()); err != nil {
		return n, err
	}
	if err := count("search_cjk", q.TrigramMatch()); err != nil {
		return n, err
	}
	for _, r := range q.ShortRuns() {
		var c int
		if err := db.QueryRow(`SELECT count(*) FROM search_cjk WHERE body LIKE ? ESCAPE '\'`, LikePattern(r)).Scan(&c); err != nil {
			return n, err
		}
		n += c
	}
	return n, nil
}

var seeds = []string{
	"", " ", `"`, `""`, `"unbalanced`, "AND", "OR", "NOT", "NEAR", "NEAR(a b)", "a AND", "-", "--", "-x", ":", "title:run",
	"*", "run*", "^start", "(", ")", "((a)", "{title body}: x", "+", "a + b", "'", "\\", "%_", "\x00", "\xff\xfe",
	"café", "CAFÉ", "naïve résumé", "東京", "機械学習", "東京の機械学習", "Go言語", "🚀", "🚀🚀🚀", "a🚀b", "\u0301", "e\u0301",
	"ﷺ", "ǅ", "ß", "İstanbul", "١٢٣", "x\u200by", strings.Repeat("word ", 300), strings.Repeat("x", 5000),
	"what is the effect of sleep on memory consolidation in adults?",
}

func TestExpressionsNeverFail(t *testing.T) {
	db := openFTS(t)
	for _, s := range seeds {
		for _, opts := range []Options{{}, {StopwordsFrom: -1}, {MaxTerms: 1}} {
			if _, err := run(db, Parse(s, opts)); err != nil {
				t.Errorf("Parse(%q): %v (match %q, trigram %q)", s, err, Parse(s, opts).Match(), Parse(s, opts).TrigramMatch())
			}
		}
	}
}

func TestMatchesDespiteMissingWords(t *testing.T) {
	db := openFTS(t)
	for _, s := range []string{"running zebra", "Café", "RAN unicorn", "機械学習", "東京"} {
		n, err := run(db, Parse(s, Options{}))
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Errorf("%q matched nothing", s)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	db := openFTS(f)
	f.Fuzz(func(t *testing.T, s string) {
		q := Parse(s, Options{})
		for _, term := range q.Terms {
			if term == "" || strings.ContainsAny(term, `" `) {
				t.Fatalf("bad term %q", term)
			}
		}
		if _, err := run(db, q); err != nil {
			t.Fatalf("Parse(%q): %v (match %q)", s, err, q.Match())
		}
	})
}
