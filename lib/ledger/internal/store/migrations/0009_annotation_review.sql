-- 0009: review state of annotations (linkledger review).
--
-- A person confirms or rejects an agent's annotation. review is NULL
-- (not reviewed), 'confirmed' or 'rejected'; reviewed_at and reviewed_by
-- say when and who. A rejected annotation is kept (the table and the
-- history keep its text, and confirming it again restores it) but stops
-- counting: it leaves the item's full-text row, find's hit highlights and
-- scoring, and briefs. An agent saving or suggesting the same text again
-- finds the rejected row and adds nothing, so a human decision stands.
ALTER TABLE annotations ADD COLUMN review TEXT CHECK (review IS NULL OR review IN ('confirmed','rejected'));
ALTER TABLE annotations ADD COLUMN reviewed_at TEXT;
ALTER TABLE annotations ADD COLUMN reviewed_by TEXT;
CREATE INDEX annotations_review ON annotations(review, actor);
