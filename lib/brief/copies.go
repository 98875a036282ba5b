package brief

import (
	"encoding/json"

	"github.com/linkledger/linkledger/lib/record"
)

// Copies remembers the texts a pack already holds, so that it never spends
// budget on a second copy of one text (the same page saved under another
// URL). ll-find makes copies one hit by default; records from
// `ll-find --all-copies` (or any other source) name their copies under
// "copies", index.duplicate_of or ingest.duplicate_of, or carry the text's
// checksum, and any of these links a record to one taken before. The
// zero value is ready to use.
type Copies struct {
	keys map[string]bool
}

// Seen reports whether r is a copy of a record seen before; either way
// r's links are remembered, so copies of copies are caught too.
func (c *Copies) Seen(r *record.Record) bool {
	if c.keys == nil {
		c.keys = map[string]bool{}
	}
	keys := copyKeys(r)
	seen := false
	for _, k := range keys {
		seen = seen || c.keys[k]
	}
	for _, k := range keys {
		c.keys[k] = true
	}
	return seen
}

// copyKeys lists what identifies r's text: its id, its copies' ids, the
// item it duplicates, its checksum.
func copyKeys(r *record.Record) []string {
	var keys []string
	id := func(s string) {
		if s != "" {
			keys = append(keys, "id:"+s)
		}
	}
	id(r.ID)
	for _, cp := range r.Copies {
		id(cp.ID)
	}
	if r.Index != nil {
		id(r.Index.DuplicateOf)
	}
	if raw, ok := r.Extra["ingest"]; ok {
		var in struct {
			DuplicateOf string `json:"duplicate_of"`
		}
		if json.Unmarshal(raw, &in) == nil {
			id(in.DuplicateOf)
		}
	}
	if r.Checksum != "" {
		keys = append(keys, "sum:"+r.Checksum)
	}
	return keys
}
