-- 0016: the structured document of an item (docs/records.md "markdown").
--
-- One row per item whose last parse kept the main content's structure
-- (headings, lists, code blocks, tables, figures, quotes) as Markdown.
-- It lives beside the chunks, which stay the text that search and
-- briefs use; the reader and linkledger show --markdown read it. An item
-- without a row (stored before, imported as text, or a kind of page
-- without structure) shows its text as paragraphs. ll-index replaces the
-- row whenever it stores new content for the item, and deletes it when
-- the new parse had no structure.
CREATE TABLE IF NOT EXISTS item_markdown (
	item_id  TEXT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
	markdown TEXT NOT NULL
);
