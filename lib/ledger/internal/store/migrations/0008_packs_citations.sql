-- 0008: memory packs and citations.
--
-- A pack is a brief saved under a name for a recurring task: the query and
-- brief settings it was built with (options_json), and every version it
-- was built as (pack_versions: the pack JSON exactly as ll-brief writes
-- it, who built it and when, and what entered and left since the version
-- before). Refreshing a pack adds a version.
--
-- A citation records that an item was used in a piece of work (a task,
-- named freely; a pack's name is its task). Citations have no foreign key
-- to items: usage history outlives a deleted item (item_url keeps what it
-- was). linkledger stats reads them (lib/store/packs.go).
CREATE TABLE packs (
    name         TEXT PRIMARY KEY,
    query        TEXT NOT NULL,
    options_json TEXT NOT NULL DEFAULT '{}',
    created_at   TEXT NOT NULL,
    created_by   TEXT NOT NULL
);
CREATE TABLE pack_versions (
    pack_name  TEXT    NOT NULL REFERENCES packs(name) ON DELETE CASCADE,
    version    INTEGER NOT NULL,
    pack_json  TEXT    NOT NULL,
    built_at   TEXT    NOT NULL,
    built_by   TEXT    NOT NULL,
    entered_json TEXT  NOT NULL DEFAULT '[]',
    left_json    TEXT  NOT NULL DEFAULT '[]',
    PRIMARY KEY (pack_name, version)
);
CREATE TABLE citations (
    id         INTEGER PRIMARY KEY,
    item_id    TEXT NOT NULL,
    item_url   TEXT NOT NULL,
    task       TEXT NOT NULL,
    actor      TEXT NOT NULL,
    at         TEXT NOT NULL
);
CREATE INDEX citations_item ON citations(item_id);
CREATE INDEX citations_task ON citations(task, at);
CREATE INDEX citations_at   ON citations(at);
