// Package ledger is linkledger's service layer: what each verb does over
// the store (resolve an item argument, show an item, list tags, remove an
// annotation, archive, delete), as functions that take a *store.Store and
// plain option structs and return records or typed errors.
//
// The CLI verbs (lib/cmd/linkledger) call it today and an MCP server will
// call it later, so it never reads flags, os.Args or the environment and
// never writes to stdout or stderr: the caller decides how a result or an
// error is shown (the errors carry a Hint for the next command to try).
package ledger
