// Package ledger is linkledger's service layer: what each verb does over
// the store (resolve an item argument, find, related, brief, status, save,
// annotate, tag, pin, show, list tags, remove an annotation, archive,
// delete), as functions that take a *store.Store and plain option structs
// and return records or typed errors.
//
// Both faces call it: the CLI (ll-find, ll-brief, ll-save's input reading,
// the linkledger verbs) and the MCP server (lib/mcp). So it never reads
// flags, os.Args or the environment and never writes to stdout or stderr:
// the caller decides how a result or an error is shown (the errors carry a
// Hint for the next command to try, or a record error code).
package ledger
