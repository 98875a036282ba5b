package mcp

import (
	"errors"
	"fmt"
	"time"

	"github.com/linkledger/linkledger/lib/brief"
	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
)

// Error codes of tool errors (docs/agents.md). The record error codes
// (bad_input, bad_url, unsupported_scheme, not_found) keep their meaning.
const (
	CodeUsage    = "usage"     // an argument out of range or of the wrong form
	CodeNotFound = "not_found" // no such item or annotation
	CodeBusy     = "busy"      // another process held the write lock too long
	CodeBudget   = "budget"    // max_tokens too small for even an empty pack
	CodeInternal = "internal"  // a database or server failure
	// CodeForbidden: the caller's token may not do this (linkledger
	// serve: a read token calling a tool that writes)
	CodeForbidden = "forbidden"
)

// ToolError is a tool's failure as the agent sees it: a code, the message
// the CLI would print for the same failure, and the next thing to try.
type ToolError struct {
	Code    string
	Message string
	Hint    string
}

// Error is the tool error's text: "CODE: MESSAGE" and a "hint:" line.
func (e *ToolError) Error() string {
	s := e.Code + ": " + e.Message
	if e.Hint != "" {
		s += "\nhint: " + e.Hint
	}
	return s
}

func usage(format string, args ...any) error {
	return &ToolError{Code: CodeUsage, Message: fmt.Sprintf(format, args...)}
}

// toolError turns a service-layer error into a ToolError with the CLI's
// message and hint.
func toolError(err error, db string, wait time.Duration) error {
	var te *ToolError
	if err == nil || errors.As(err, &te) {
		return err
	}
	var ne *ledger.NoItemError
	var nae *ledger.NoAnnotationError
	var ie *ledger.InputError
	var re *record.Error
	var h cli.Hinter
	switch {
	case errors.As(err, &ne):
		return &ToolError{Code: CodeNotFound, Message: ne.Error(), Hint: "find it with the find tool, or save it first"}
	case errors.As(err, &nae):
		return &ToolError{Code: CodeNotFound, Message: nae.Error(), Hint: "list the item's annotations with the show tool"}
	case errors.As(err, &ie):
		return &ToolError{Code: ie.Code, Message: ie.Message}
	case errors.As(err, &re):
		return &ToolError{Code: re.Code, Message: re.Message, Hint: re.Hint}
	case ledger.IsBusy(err):
		return &ToolError{Code: CodeBusy, Message: cli.BusyError(db, wait, "nothing was written; calling again is safe").Error(),
			Hint: "wait for the other process (an import or a worker) and call again"}
	case errors.Is(err, brief.ErrBudget):
		return &ToolError{Code: CodeBudget, Message: err.Error(), Hint: "raise max_tokens"}
	case errors.As(err, &h):
		return &ToolError{Code: CodeInternal, Message: err.Error(), Hint: h.Hint()}
	}
	return &ToolError{Code: CodeInternal, Message: err.Error()}
}
