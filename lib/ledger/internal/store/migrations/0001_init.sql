-- 0001: the initial schema. Times are RFC 3339 UTC text.

CREATE TABLE items (
    seq            INTEGER PRIMARY KEY,           -- internal, stable key for FTS rows
    id             TEXT    NOT NULL UNIQUE,       -- ll_ + 16 hex of sha256(canonical_url)
    canonical_url  TEXT    NOT NULL UNIQUE,
    original_url   TEXT    NOT NULL,
    source_type    TEXT    NOT NULL CHECK (source_type IN ('article','x','youtube','pdf','text')),
    title          TEXT    NOT NULL DEFAULT '',
    author         TEXT    NOT NULL DEFAULT '',
    published_at   TEXT,
    site_name      TEXT    NOT NULL DEFAULT '',
    lang           TEXT    NOT NULL DEFAULT '',
    excerpt        TEXT    NOT NULL DEFAULT '',
    description    TEXT    NOT NULL DEFAULT '',
    meta_json      TEXT    NOT NULL DEFAULT '{}', -- parse info: adapter, source, no_text_reason, duration_s, ...
    saved_at       TEXT    NOT NULL,
    updated_at     TEXT    NOT NULL,
    fetched_at     TEXT,
    parsed_at      TEXT,
    ingest_status  TEXT    NOT NULL DEFAULT 'saved'
                   CHECK (ingest_status IN ('saved','fetched','parsed','enriched','failed')),
    checksum       TEXT,
    duplicate_of   TEXT    REFERENCES items(id) ON DELETE SET NULL,
    etag           TEXT,
    last_modified  TEXT,
    error_json     TEXT,                          -- last error object, NULL when none
    attempts       INTEGER NOT NULL DEFAULT 0,    -- failed ingest attempts since the last success
    next_retry_at  TEXT,
    revalidate_due INTEGER NOT NULL DEFAULT 0     -- set when find/brief returned it past the stale threshold
);
CREATE INDEX items_status   ON items(ingest_status, next_retry_at);
CREATE INDEX items_fetched  ON items(fetched_at);
CREATE INDEX items_saved    ON items(saved_at);
CREATE INDEX items_checksum ON items(checksum);

CREATE TABLE content_chunks (
    id          INTEGER PRIMARY KEY,
    item_id     TEXT    NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    chunk_index INTEGER NOT NULL,
    text        TEXT    NOT NULL,
    tokens      INTEGER NOT NULL,
    start_s     REAL,
    page        INTEGER
);
CREATE UNIQUE INDEX content_chunks_item ON content_chunks(item_id, chunk_index);

CREATE TABLE annotations (
    id          INTEGER PRIMARY KEY,
    item_id     TEXT    NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    chunk_id    INTEGER REFERENCES content_chunks(id) ON DELETE SET NULL,
    chunk_index INTEGER,                          -- survives re-indexing; chunk_id is re-linked from it
    type        TEXT    NOT NULL CHECK (type IN ('highlight','lowlight','note')),
    text        TEXT    NOT NULL,
    actor       TEXT    NOT NULL,
    confidence  REAL    CHECK (confidence IS NULL OR (confidence >= 0 AND confidence <= 1)),
    pinned      INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT    NOT NULL
);
CREATE INDEX annotations_item ON annotations(item_id, type, created_at);
CREATE INDEX annotations_actor ON annotations(actor);

CREATE TABLE tags (
    item_id    TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    tag        TEXT NOT NULL,
    actor      TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (item_id, tag)
) WITHOUT ROWID;
CREATE INDEX tags_tag ON tags(tag, item_id);

CREATE TABLE artifacts (
    id              INTEGER PRIMARY KEY,
    item_id         TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    summary         TEXT NOT NULL DEFAULT '',
    key_claims_json TEXT NOT NULL DEFAULT '[]',
    created_by      TEXT NOT NULL,
    created_at      TEXT NOT NULL
);
CREATE INDEX artifacts_item ON artifacts(item_id, created_at);

-- events is the audit log: every change of an annotation, tag, note or
-- ingest state, with who and when.
CREATE TABLE events (
    id          INTEGER PRIMARY KEY,
    item_id     TEXT NOT NULL,
    entity      TEXT NOT NULL CHECK (entity IN ('item','annotation','tag','ingest','artifact')),
    entity_id   TEXT,
    action      TEXT NOT NULL,
    actor       TEXT NOT NULL,
    at          TEXT NOT NULL,
    detail_json TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX events_item ON events(item_id, at);

-- search is the full-text index. One row per chunk (rowid = chunk id:
-- title + chunk text) and one row per item (rowid = -items.seq: title +
-- annotation and note text). lib/store/fts.go keeps it in sync inside the
-- same transaction as every write.
CREATE VIRTUAL TABLE search USING fts5(
    title, body, annotations,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- search_cjk is a trigram side index with the same rows, used for queries
-- in scripts without spaces between words (CJK).
CREATE VIRTUAL TABLE search_cjk USING fts5(
    title, body, annotations,
    tokenize = 'trigram'
);
