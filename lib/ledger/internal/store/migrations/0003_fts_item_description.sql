-- 0003: the item row of the full-text index also carries the item's
-- description (a video's description, a page's meta description) before its
-- text, unless the text already contains it (lib/store/fts.go
-- withDescription). This rebuilds the item rows of existing databases.
DELETE FROM search WHERE rowid < 0;
WITH d AS (
    SELECT i.seq, i.title, trim(i.description) AS descr,
           coalesce(substr((SELECT group_concat(text, char(10)) FROM
                              (SELECT text FROM content_chunks c WHERE c.item_id = i.id ORDER BY chunk_index)), 1, 65536), '') AS doc,
           coalesce((SELECT group_concat(text, char(10)) FROM
                       (SELECT text FROM annotations a WHERE a.item_id = i.id ORDER BY id)), '') AS ann
    FROM items i
    WHERE i.title != '' OR i.description != ''
       OR EXISTS (SELECT 1 FROM content_chunks c WHERE c.item_id = i.id)
       OR EXISTS (SELECT 1 FROM annotations a WHERE a.item_id = i.id)
)
INSERT INTO search(rowid, title, body, annotations)
SELECT -seq, title,
       CASE WHEN descr != '' AND instr(doc, descr) = 0 THEN descr || char(10) || doc ELSE doc END,
       ann
FROM d;
