-- Indexes that let ll-find count the items a filter passes cheaply: it
-- applies a filter few items pass as a set of rows, built once per query
-- (lib/store/search.go rank), and checks how many pass first.
-- --type gets an index; --actor's index also covers the item id.
CREATE INDEX IF NOT EXISTS items_type ON items(source_type);
DROP INDEX IF EXISTS annotations_actor;
CREATE INDEX annotations_actor ON annotations(actor, item_id);
