package query

import (
	"fmt"
	"strings"
	"testing"
)

// checkQuoted returns an error unless expr is "" or FTS5 strings joined
// by " OR ": outside the double quotes there is nothing a user typed.
func checkQuoted(expr string) error {
	for i := 0; i < len(expr); {
		if i > 0 {
			if !strings.HasPrefix(expr[i:], " OR ") {
				return fmt.Errorf("at %d: %q outside quotes", i, expr[i:])
			}
			i += len(" OR ")
		}
		if i >= len(expr) || expr[i] != '"' {
			return fmt.Errorf("at %d: want a quoted string", i)
		}
		i++
		for {
			j := strings.IndexByte(expr[i:], '"')
			if j < 0 {
				return fmt.Errorf("unterminated string")
			}
			i += j + 1
			if i < len(expr) && expr[i] == '"' {
				i++ // a doubled quote inside the string
				continue
			}
			break
		}
	}
	return nil
}

func TestCheckQuoted(t *testing.T) {
	for _, s := range []string{``, `"a"`, `"a" OR "b"`, `"a""b"`, `"""" OR "x"`} {
		if err := checkQuoted(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	for _, s := range []string{`a`, `"a" b`, `"a" AND "b"`, `"a`, `"a" OR`, `"a"*`, `NEAR("a")`, `"a" OR b`} {
		if checkQuoted(s) == nil {
			t.Errorf("%s: accepted", s)
		}
	}
}

// FuzzMatchSyntax checks that the FTS5 expressions built from any text
// hold only quoted strings and OR: no user text reaches query syntax. It
// needs no database, so it runs far faster than FuzzParse.
func FuzzMatchSyntax(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Parse(s, Options{})
		for _, expr := range []string{q.Match(), q.TrigramMatch()} {
			if err := checkQuoted(expr); err != nil {
				t.Fatalf("Parse(%q): %s: %v", s, expr, err)
			}
		}
	})
}
