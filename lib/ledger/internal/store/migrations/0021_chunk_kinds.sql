-- 0021: the kind of a chunk that is not the body of its item's text
-- (docs/records.md "chunks", docs/parse.md "Reference lists").
--
-- One row per such chunk: "references" for a chunk of a page's reference
-- list (References, Bibliography, Notes, Works cited, Further reading,
-- …), which search snippets and briefs rank below the body. A body chunk
-- has no row, so items stored before read as body everywhere. ll-index
-- writes the rows with the chunks; they go with their chunk.
CREATE TABLE IF NOT EXISTS chunk_kinds (
	chunk_id INTEGER PRIMARY KEY REFERENCES content_chunks(id) ON DELETE CASCADE,
	kind     TEXT NOT NULL
);
