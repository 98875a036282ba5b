// Package ledger is linkledger's service layer: what each verb does over
// the store (resolve an item argument, find, related, brief, status, save,
// annotate, tag, pin, show, list tags, remove an annotation, archive,
// delete), as methods of one *Ledger (the open database) that take plain
// option structs and return records or typed errors. It is the only door
// to the store (lib/ledger/internal/store): one method per operation, no
// package function taking the store beside it.
//
// Every face and filter calls it: the ll-* filters, the linkledger verbs,
// the MCP server (lib/mcp) and the web app (lib/web). So it never reads
// flags, os.Args or the environment and never writes to stdout or stderr:
// the caller decides how a result or an error is shown (the errors carry a
// Hint for the next command to try, or a record error code).
package ledger
