-- 0018: the images of an item's structured document (docs/fetch.md
-- "Images", docs/records.md "images").
--
-- One row per image the item's last parse listed (record.Image), at its
-- position n (1, 2, ...): its address as the Markdown names it, alt
-- text, caption, and the stored copy (content_type, data) that ll-index
-- fetched, or why there is none (error, data NULL). The reader and
-- export --vault show the stored copy and never the address; an image
-- without one shows its alt text and caption. ll-index rewrites the rows
-- whenever it stores the item's content; an image whose new fetch failed
-- keeps the copy stored before. Items stored before have no rows and
-- show as they did.
CREATE TABLE IF NOT EXISTS item_images (
	item_id      TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
	url          TEXT NOT NULL,
	n            INTEGER NOT NULL,
	alt          TEXT NOT NULL DEFAULT '',
	caption      TEXT NOT NULL DEFAULT '',
	content_type TEXT,
	data         BLOB,
	error        TEXT,
	PRIMARY KEY (item_id, url)
);
CREATE INDEX IF NOT EXISTS item_images_n ON item_images(item_id, n);
