-- 0012: review of agent tags, and ledger settings (the decay policy).
--
-- A person confirms an agent's tag (review 'confirmed', reviewed_at,
-- reviewed_by) or rejects it: a rejected tag leaves the item (tags) and
-- is remembered in tags_rejected with who added it and who rejected it,
-- so an agent adding it again adds nothing (a human decision stands). A
-- person adding the tag, or confirming it, brings it back.
ALTER TABLE tags ADD COLUMN review TEXT CHECK (review IS NULL OR review = 'confirmed');
ALTER TABLE tags ADD COLUMN reviewed_at TEXT;
ALTER TABLE tags ADD COLUMN reviewed_by TEXT;
CREATE INDEX tags_review ON tags(review, actor);

CREATE TABLE tags_rejected (
    item_id     TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    tag         TEXT NOT NULL,
    actor       TEXT NOT NULL,  -- who had added it
    created_at  TEXT NOT NULL,  -- when it had been added
    rejected_by TEXT NOT NULL,
    rejected_at TEXT NOT NULL,
    PRIMARY KEY (item_id, tag)
) WITHOUT ROWID;

-- settings are the ledger's own policies (data, not connection settings,
-- which go in the DSN): key 'decay' holds the decay policy of ll-find,
-- ll-brief and the MCP tools as JSON {"below":X,"after_seconds":N}.
CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    updated_by TEXT NOT NULL
) WITHOUT ROWID;
