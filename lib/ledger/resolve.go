package ledger

import (
	"context"
	"fmt"
	"strings"

	"github.com/linkledger/linkledger/lib/canon"
	"github.com/linkledger/linkledger/lib/record"
)

// IsItemID reports whether s has the form of an item id: ll_ and 16
// lower-case hex digits. (A loop, not a regexp: a regexp compiled at
// package init cost every process start ~80 µs.)
func IsItemID(s string) bool {
	if len(s) != 19 || s[:3] != "ll_" {
		return false
	}
	for i := 3; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ResolveOptions say how an item argument that is not an id is read.
type ResolveOptions struct {
	// Rules canonicalize a URL argument (nil: canon.DefaultRules()). Use
	// the same rules the item was saved with (--rules, LINKLEDGER_RULES).
	Rules *canon.Rules
	// Cwd and Home turn a local path or ~ into its file:// URL, as ll-save
	// does.
	Cwd, Home string
}

// NoItemError says an item argument names no item in the database. Every
// verb returns it for an unknown item, so the message is the same
// everywhere; the CLI reports it as a usage error (exit 2).
type NoItemError struct {
	Arg string // the argument as the user gave it
	DB  string // the database path
}

func (e *NoItemError) Error() string {
	return fmt.Sprintf("no item %q in %s", e.Arg, e.DB)
}

// Hint is the next command to try, for a `hint:` line.
func (e *NoItemError) Hint() string {
	return "find it with: linkledger find WORDS"
}

// ResolveItem turns a user's item argument into the id of an item in st:
// either an id (ll_ + 16 hex) or the item's URL (or local path) in any form
// that canonicalizes to the saved one. It returns a *NoItemError when no
// such item is stored, including when arg is neither an id nor a URL; other
// errors are the database's.
func (l *Ledger) ResolveItem(ctx context.Context, arg string, opt ResolveOptions) (string, error) {
	st := l.st
	a := strings.TrimSpace(arg)
	id := a
	if !IsItemID(a) {
		rules := opt.Rules
		if rules == nil {
			rules = canon.DefaultRules()
		}
		u, err := canon.FromInput(a, opt.Cwd, opt.Home)
		if err != nil {
			return "", &NoItemError{Arg: arg, DB: st.Path()}
		}
		res, err := rules.Canonicalize(u)
		if err != nil {
			return "", &NoItemError{Arg: arg, DB: st.Path()}
		}
		id = record.ItemID(res.URL)
	}
	ok, err := st.ItemExists(ctx, id)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", &NoItemError{Arg: arg, DB: st.Path()}
	}
	return id, nil
}
