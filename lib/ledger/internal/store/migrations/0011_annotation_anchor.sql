-- 0011: quote anchors of highlights and lowlights (lib/store/anchor.go).
--
-- quote_prefix and quote_suffix are up to 48 characters of the chunk
-- text before and after the annotation's quote where it was last found;
-- NULL when the quote was never found in the item's text (the annotation
-- is then not anchored to a quote, only perhaps to a chunk by index).
-- When ll-index replaces an item's text, each anchored annotation is
-- looked for in the new chunks: found, it moves to the chunk that holds
-- it (chunk_id, chunk_index, context refreshed); not found, orphaned_at
-- says since when, chunk_id and chunk_index are cleared, and the
-- annotation keeps its text. Found again later, orphaned_at is cleared.
ALTER TABLE annotations ADD COLUMN quote_prefix TEXT;
ALTER TABLE annotations ADD COLUMN quote_suffix TEXT;
ALTER TABLE annotations ADD COLUMN orphaned_at TEXT;
CREATE INDEX annotations_orphaned ON annotations(orphaned_at) WHERE orphaned_at IS NOT NULL;

-- Backfill, exact matches only (re-indexing finds the rest with the
-- normalised and fuzzy matchers): a highlight or lowlight without a chunk
-- is anchored to the first chunk that holds its quote...
UPDATE annotations SET chunk_id = (SELECT c.id FROM content_chunks c
		WHERE c.item_id = annotations.item_id AND instr(c.text, annotations.text) > 0
		ORDER BY c.chunk_index LIMIT 1)
	WHERE chunk_id IS NULL AND type IN ('highlight', 'lowlight');
UPDATE annotations SET chunk_index = (SELECT c.chunk_index FROM content_chunks c WHERE c.id = annotations.chunk_id)
	WHERE chunk_id IS NOT NULL AND type IN ('highlight', 'lowlight');
-- ...and every one whose chunk holds its quote gets the context of its
-- first occurrence there (instr, substr and length count characters).
UPDATE annotations SET
	quote_prefix = (SELECT substr(c.text, max(1, instr(c.text, annotations.text) - 48),
			instr(c.text, annotations.text) - max(1, instr(c.text, annotations.text) - 48))
		FROM content_chunks c WHERE c.id = annotations.chunk_id),
	quote_suffix = (SELECT substr(c.text, instr(c.text, annotations.text) + length(annotations.text), 48)
		FROM content_chunks c WHERE c.id = annotations.chunk_id)
	WHERE type IN ('highlight', 'lowlight') AND chunk_id IS NOT NULL
	  AND (SELECT instr(c.text, annotations.text) FROM content_chunks c WHERE c.id = annotations.chunk_id) > 0;
