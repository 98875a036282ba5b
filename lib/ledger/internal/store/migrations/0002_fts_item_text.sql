-- 0002: the item row of the full-text index (rowid = -items.seq) carries
-- the item's whole text (its chunks in order, up to 64 KB) besides its
-- title and annotations, so search ranks an item by its best passage plus
-- the whole document (lib/store/fts.go, docs/retrieval.md). This rebuilds
-- the item rows of existing databases; chunk rows and search_cjk are
-- unchanged.
DELETE FROM search WHERE rowid < 0;
INSERT INTO search(rowid, title, body, annotations)
SELECT -i.seq, i.title,
       coalesce(substr((SELECT group_concat(text, char(10)) FROM
                          (SELECT text FROM content_chunks c WHERE c.item_id = i.id ORDER BY chunk_index)), 1, 65536), ''),
       coalesce((SELECT group_concat(text, char(10)) FROM
                   (SELECT text FROM annotations a WHERE a.item_id = i.id ORDER BY id)), '')
FROM items i
WHERE i.title != ''
   OR EXISTS (SELECT 1 FROM content_chunks c WHERE c.item_id = i.id)
   OR EXISTS (SELECT 1 FROM annotations a WHERE a.item_id = i.id);
