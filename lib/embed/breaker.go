package embed

import (
	"fmt"

	"github.com/linkledger/linkledger/lib/record"
)

// MaxFailuresInARow is how many items in a row an endpoint may fail
// before a run stops asking it (Breaker).
const MaxFailuresInARow = 3

// Breaker decides when a run of many items (ll-embed's stream,
// linkledger embed --all) stops asking the endpoint: at once after a
// timeout or a connection failure (each later item would wait the whole
// time bound again), and after MaxFailuresInARow items failed in a row
// for any other reason (a steady HTTP 500, 401, answers refused), each of
// which was already retried as its kind allows. An item that succeeds
// resets the count. docs/retrieval.md, "Endpoint failures".
type Breaker struct {
	inARow int
	down   *record.Error
}

// Note counts one item's outcome (nil: success) and says whether the run
// must stop.
func (b *Breaker) Note(e *record.Error) bool {
	if e == nil {
		b.inARow = 0
		return false
	}
	b.inARow++
	if e.Code == record.CodeTimeout || e.Code == record.CodeConnection || b.inARow >= MaxFailuresInARow {
		b.down = e
	}
	return b.down != nil
}

// Down is the failure that stopped the run (nil: not stopped).
func (b *Breaker) Down() *record.Error { return b.down }

// Reason says why the run stopped, for a diagnostic: "no answer ..." or
// "3 items in a row failed, the last: upstream: ...".
func (b *Breaker) Reason() string {
	if b.down == nil {
		return ""
	}
	if b.inARow >= MaxFailuresInARow && b.down.Code != record.CodeTimeout && b.down.Code != record.CodeConnection {
		return fmt.Sprintf("%d items in a row failed, the last: %s: %s", b.inARow, b.down.Code, b.down.Message)
	}
	return b.down.Code + ": " + b.down.Message
}
