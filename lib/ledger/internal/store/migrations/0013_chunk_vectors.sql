-- 0013: embedding vectors of chunks, in the same file as the text
-- (docs/retrieval.md, "Semantic and hybrid retrieval").
--
-- chunk_vectors holds one vector per chunk: the model that made it, its
-- dimension and the values as little-endian float32, scaled to unit length
-- (so a cosine similarity is a dot product). A chunk has at most one
-- vector: re-embedding with another model replaces it, and a search reads
-- the vectors of one model only, so two models are never mixed in a
-- ranking. The row goes with its chunk (re-indexed text has new chunks
-- and no vectors until it is embedded again) and with its item.
--
-- items.embed_error_json is the last embedding failure (ll-embed's
-- embed.error, or linkledger embed's) of an item indexed without
-- vectors; NULL when none, cleared when vectors are stored.
CREATE TABLE chunk_vectors (
    chunk_id    INTEGER PRIMARY KEY REFERENCES content_chunks(id) ON DELETE CASCADE,
    item_id     TEXT    NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    model       TEXT    NOT NULL,
    dimensions  INTEGER NOT NULL CHECK (dimensions > 0),
    vector      BLOB    NOT NULL CHECK (length(vector) = 4 * dimensions)
);
CREATE INDEX chunk_vectors_model ON chunk_vectors(model, item_id);
ALTER TABLE items ADD COLUMN embed_error_json TEXT;

-- item_vector_bits is what a search scans: per item and model, the sign
-- of every value of every chunk's vector, one bit each (chunk_ids: the
-- chunks, int64 little-endian; bits: per chunk, ceil(dimensions/64)
-- little-endian uint64 words). A search ranks chunks by the Hamming
-- distance of their bits to the query's, then rescores the best ones with
-- their float vectors (docs/retrieval.md, "Storage"). One row per item
-- keeps the scan to one row step per item, not per chunk. It is rebuilt
-- from chunk_vectors whenever an item's vectors are stored, and goes with
-- them (the trigger) and with its item.
-- A rowid table scanned whole (a ledger holds one model's vectors, or two
-- while it moves): its rows of a few KiB stay on their pages, where an
-- index b-tree (WITHOUT ROWID) would spill every row over about 1 KiB to
-- an overflow page.
CREATE TABLE item_vector_bits (
    item_id     TEXT    NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    model       TEXT    NOT NULL,
    dimensions  INTEGER NOT NULL CHECK (dimensions > 0),
    chunk_ids   BLOB    NOT NULL,
    bits        BLOB    NOT NULL CHECK (length(bits) = length(chunk_ids) / 8 * ((dimensions + 63) / 64) * 8),
    UNIQUE (item_id, model)
);
CREATE TRIGGER chunk_vectors_deleted AFTER DELETE ON chunk_vectors BEGIN
    DELETE FROM item_vector_bits WHERE item_id = old.item_id AND model = old.model;
END;
