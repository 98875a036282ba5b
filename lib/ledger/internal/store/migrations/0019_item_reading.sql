-- 0019: a person's reading state of an item (issue 30, "A library"):
-- starred (a favourite; starring and unstarring are journalled as events),
-- read (read_at; set when the reader opens it, by archiving, or by hand;
-- NULL is unread) and how far it was read (progress, 0..1 of the page's
-- height, with the part of a long item it was in, and when).
--
-- A row of its own rather than columns of items: most items have none,
-- a save or an index never touches it, and it cascades with the item.
-- IF NOT EXISTS: the store's tests roll a database back to an older
-- schema by dropping what later migrations add, and leave this table.
CREATE TABLE IF NOT EXISTS item_reading (
    item_id     TEXT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
    starred_at  TEXT,               -- RFC 3339 UTC; NULL: not starred
    starred_by  TEXT,               -- who starred it
    read_at     TEXT,               -- RFC 3339 UTC; NULL: unread
    progress    REAL NOT NULL DEFAULT 0 CHECK (progress >= 0 AND progress <= 1),
    part        INTEGER NOT NULL DEFAULT 0, -- the reader's part (?part=N) the progress is in
    progress_at TEXT                -- when progress was last reported
) WITHOUT ROWID;

-- "which items are starred / read" cost about the number of such items
CREATE INDEX IF NOT EXISTS item_reading_starred ON item_reading(starred_at) WHERE starred_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS item_reading_read ON item_reading(read_at) WHERE read_at IS NOT NULL;
