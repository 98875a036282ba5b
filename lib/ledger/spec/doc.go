// Package spec holds the shapes of the requests and results that the
// service layer (lib/ledger) and its store share: option and result
// structs, the errors a caller tells apart, and the defaults and limits a
// command states in its flags. Each is defined here once, so lib/ledger's
// API and the store use the same names and lib/ledger re-exports none of
// the store's (docs/cli.md, "Three faces").
//
// It depends on the standard library and lib/record only, so any package
// may import it; only lib/ledger imports the store.
package spec
