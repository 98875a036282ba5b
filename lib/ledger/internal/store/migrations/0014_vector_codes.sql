-- 0014: what a semantic search scans becomes short codes of a random
-- rotation, packed many items to a row (docs/retrieval.md, "Storage";
-- docs/benchmarks.md, "Hybrid ll-find at 100k chunks").
--
-- item_vector_codes replaces item_vector_bits: per item and model, the
-- code of every chunk's vector (lib/store/vectorcode.go: the signs of a
-- fixed random rotation, at most 768 bits; chunk_ids: the chunks, int64
-- little-endian; codes: per chunk, codeWords(dimensions) little-endian
-- uint64 words). The raw signs 0013 stored estimate angles badly for a
-- model with a few large dimensions or a query with few nonzero values;
-- the codes are derived data, rebuilt in Go from chunk_vectors right
-- after this script (store.rebuildAllCodes, same transaction).
--
-- vector_code_blocks packs the rows of many items of one model and
-- dimension, so that a search steps a row per block, not per item:
-- members lists the items in order (per item: its items.seq and the
-- count of its chunks, two little-endian int64); chunk_ids and codes are the
-- members' own blobs one after another. item_vector_codes stays the
-- source: its block column names the block that holds the row, NULL
-- while it is not packed yet. A search reads every block and every
-- unpacked row in one read transaction, through ll_nearest (an aggregate
-- function in C that lib/store registers: lib/store/vectorscan.go).
--
-- The writer packs unpacked rows into a new block once a block's worth
-- has gathered (lib/store/vectorblocks.go). When a packed row goes (its
-- item re-embedded, re-indexed or deleted) the trigger dissolves its
-- block: the block row is deleted and its other members become unpacked,
-- to be packed with the next ones. So a block never holds a row that is
-- gone, and a search never reads a row twice.
-- chunk_vectors_item: an item's vectors are read whenever its codes are
-- rebuilt; chunk_vectors_model (model, item_id) made that a scan of the
-- whole index per item.
CREATE INDEX chunk_vectors_item ON chunk_vectors(item_id);
DROP TRIGGER chunk_vectors_deleted;
DROP TABLE item_vector_bits;
CREATE TABLE item_vector_codes (
    item_id     TEXT    NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    model       TEXT    NOT NULL,
    dimensions  INTEGER NOT NULL CHECK (dimensions > 0),
    chunk_ids   BLOB    NOT NULL,
    codes       BLOB    NOT NULL,
    block       INTEGER,
    UNIQUE (item_id, model)
);
CREATE INDEX item_vector_codes_block ON item_vector_codes(model, block);
CREATE TABLE vector_code_blocks (
    model       TEXT    NOT NULL,
    block       INTEGER NOT NULL,
    dimensions  INTEGER NOT NULL CHECK (dimensions > 0),
    members     BLOB    NOT NULL,
    chunk_ids   BLOB    NOT NULL,
    codes       BLOB    NOT NULL,
    PRIMARY KEY (model, block)
);
CREATE TRIGGER chunk_vectors_deleted AFTER DELETE ON chunk_vectors BEGIN
    DELETE FROM item_vector_codes WHERE item_id = old.item_id AND model = old.model;
END;
CREATE TRIGGER item_vector_codes_unpacked AFTER DELETE ON item_vector_codes WHEN old.block IS NOT NULL BEGIN
    DELETE FROM vector_code_blocks WHERE model = old.model AND block = old.block;
    UPDATE item_vector_codes SET block = NULL WHERE model = old.model AND block = old.block;
END;
