-- 0005: items.content_from_record is 1 when the item's content came in the
-- record itself (text, chunks or a body given to ll-parse/ll-index without
-- ll-fetch: imported notes, corpora): there is no source to fetch, so the
-- stale and pending queues (ll-find --stale, --pending) skip the item and
-- searches never mark it due for revalidation. ll-index sets it on every
-- successful ingest: 1 without a fetch, 0 with one.
ALTER TABLE items ADD COLUMN content_from_record INTEGER NOT NULL DEFAULT 0;

-- Existing items: content stored without any fetch information in meta_json
-- came from the record (ll-index writes fetch_source, http_status and
-- final_url from every fetch).
UPDATE items SET content_from_record = 1
WHERE parsed_at IS NOT NULL
  AND json_extract(meta_json, '$.fetch_source') IS NULL
  AND json_extract(meta_json, '$.http_status') IS NULL
  AND json_extract(meta_json, '$.final_url') IS NULL
  AND EXISTS (SELECT 1 FROM content_chunks c WHERE c.item_id = items.id);

-- Before this marker the stale job re-fetched such items and, having no
-- source, turned them failed with their content intact. They return to
-- their success state (enriched with an artifact, else parsed), with an
-- audit event that says why.
INSERT INTO events(item_id, entity, entity_id, action, actor, at, detail_json)
SELECT id, 'ingest', NULL,
       'state:' || CASE WHEN EXISTS (SELECT 1 FROM artifacts a WHERE a.item_id = items.id) THEN 'enriched' ELSE 'parsed' END,
       'migration', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'),
       json_object('from', 'failed',
                   'to', CASE WHEN EXISTS (SELECT 1 FROM artifacts a WHERE a.item_id = items.id) THEN 'enriched' ELSE 'parsed' END,
                   'reason', 'content came in the record: nothing to fetch; the failure was a re-fetch that should not have run',
                   'error', json(coalesce(error_json, 'null')))
FROM items
WHERE content_from_record = 1 AND ingest_status = 'failed';

UPDATE items SET
    ingest_status = CASE WHEN EXISTS (SELECT 1 FROM artifacts a WHERE a.item_id = items.id) THEN 'enriched' ELSE 'parsed' END,
    error_json = NULL, attempts = 0, next_retry_at = NULL, revalidate_due = 0,
    updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
WHERE content_from_record = 1 AND ingest_status = 'failed';

UPDATE items SET revalidate_due = 0 WHERE content_from_record = 1;
