-- 0017: claims of pending items by an ingest loop (docs/store.md "Claims").
--
-- `ll-find --pending --claim` (what linkledger worker, worker --watch and
-- the background worker of ui and mcp run) claims the items it writes:
-- one row per item, held until `until` (the lease). Another claiming
-- loop skips an item whose claim has not expired, so two loops on one
-- ledger do not fetch a page twice. ll-index deletes the row when it
-- stores the item's result (indexed or failed); a loop killed mid-pass
-- leaves rows that expire, and the items are then claimed again. A plain
-- ll-find --pending reads the queue and ignores claims.
CREATE TABLE IF NOT EXISTS ingest_claims (
	item_id TEXT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
	until   TEXT NOT NULL
);
