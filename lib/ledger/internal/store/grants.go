package store

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
)

// File grants. A local file item may be read by `linkledger worker` only
// when the user named the file on ll-save's command line: Save then
// records a "file_allowed" event for the item (SaveOptions.NamedByUser),
// and AllowedFiles lists those files for the worker to hand to ll-fetch.
// An item saved from a stdin record (an agent's output, an import file)
// gets no grant, and a grant in a restored history is written inert
// (Restore), so a record can never make linkledger read a file the user
// did not name (docs/security.md). Grants live in the audit log:
// they need no schema change, and they say who allowed what and when.

const fileAllowedEventName = "file_allowed"

// fileGrantDroppedEventName is what a file_allowed event in a restored
// history (linkledger import, an export record on ll-save's stdin)
// becomes. A record may come from anyone, so a grant in it is never
// trusted: Restore writes it under this name, which AllowedFiles does not
// read, with the reason in its detail. The user grants the file again by
// naming it (ll-save PATH) or with --allow-files.
const fileGrantDroppedEventName = "file_grant_dropped"

// droppedGrantReason is the detail's reason of a file_grant_dropped event.
const droppedGrantReason = "a file grant is never restored from a record; name the file to allow it again: ll-save PATH"

// droppedGrantDetail is the detail of a file_grant_dropped event: the
// reason, and the url of the restored grant when it named one.
func droppedGrantDetail(restored []byte) string {
	var was struct {
		URL string `json:"url"`
	}
	json.Unmarshal(restored, &was)
	d := map[string]string{"reason": droppedGrantReason}
	if was.URL != "" {
		d["url"] = was.URL
	}
	b, _ := json.Marshal(d)
	return string(b)
}

// grantFile records that the user named the file of item it, once.
func (s *Store) grantFile(ctx context.Context, tx dbtx, it *itemRow, actor string) error {
	if !strings.HasPrefix(it.CanonicalURL, "file://") {
		return nil
	}
	var n int
	if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM events WHERE item_id = ? AND entity = 'item' AND action = ?`, it.ID, fileAllowedEventName); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	return s.event(ctx, tx, it.ID, "item", it.ID, fileAllowedEventName, actor, map[string]string{"url": it.CanonicalURL})
}

// AllowedFiles returns the paths of the file items the user named on the
// command line (their canonical file:// URLs as paths), sorted.
func (s *Store) AllowedFiles(ctx context.Context) ([]string, error) {
	var urls []string
	err := s.db.SelectContext(ctx, &urls, `SELECT i.canonical_url FROM items i
		WHERE i.canonical_url LIKE 'file://%'
		  AND EXISTS (SELECT 1 FROM events e WHERE e.item_id = i.id AND e.entity = 'item' AND e.action = ?)
		ORDER BY i.canonical_url`, fileAllowedEventName)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(urls))
	for _, u := range urls {
		pu, err := url.Parse(u)
		if err != nil || pu.Path == "" {
			continue
		}
		out = append(out, filepath.FromSlash(pu.Path))
	}
	return out, nil
}
