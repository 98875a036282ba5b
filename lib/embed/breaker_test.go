package embed

import (
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/record"
)

func TestBreaker(t *testing.T) {
	e500 := &record.Error{Code: record.CodeUpstream, Message: "answered HTTP 500"}
	timeout := &record.Error{Code: record.CodeTimeout, Message: "no answer"}
	var b Breaker
	// two failures, a success, two failures: never three in a row
	for i, e := range []*record.Error{e500, e500, nil, e500, e500} {
		if b.Note(e) {
			t.Fatalf("stopped at item %d", i)
		}
	}
	if !b.Note(e500) || b.Down() != e500 {
		t.Fatalf("not stopped after %d failures in a row", MaxFailuresInARow)
	}
	if r := b.Reason(); !strings.HasPrefix(r, "3 items in a row failed, the last: upstream: answered HTTP 500") {
		t.Errorf("reason %q", r)
	}
	// a timeout stops at once
	var b2 Breaker
	if !b2.Note(timeout) || b2.Reason() != "timeout: no answer" {
		t.Errorf("timeout: down %v, reason %q", b2.Down(), b2.Reason())
	}
}
