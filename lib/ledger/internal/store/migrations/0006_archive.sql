-- 0006: archiving. An archived item keeps everything (text, annotations,
-- tags, history) and is still ingested and revalidated, but ll-find and
-- ll-brief leave it out unless asked (--archived, --only-archived).
-- archived_at is the RFC 3339 UTC time it was archived, NULL when it is
-- not. The partial index holds archived items only, so "which items are
-- archived" costs about nothing when few are (lib/store/search.go).
ALTER TABLE items ADD COLUMN archived_at TEXT;
CREATE INDEX items_archived ON items(archived_at) WHERE archived_at IS NOT NULL;
