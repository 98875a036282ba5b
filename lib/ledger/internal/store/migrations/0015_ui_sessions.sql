-- 0015: the web app's sessions and sign-in links (linkledger ui,
-- docs/ui.md "Sessions and sign-in").
--
-- A session is what the browser's cookie names; only the SHA-256 of its
-- id is stored, so the database alone opens no session. It is valid on
-- the port it was made on only (the cookie is named after that port, and
-- a server of the same ledger on another port refuses it) until
-- expires_at. A sign-in link (linkledger ui --sign-in-link) is stored the
-- same way and is deleted when it is used or found expired.
-- IF NOT EXISTS: the store's tests roll a database back to an older
-- schema by dropping what later migrations add, and leave these tables.
CREATE TABLE IF NOT EXISTS ui_sessions (
    id_hash    TEXT PRIMARY KEY,  -- hex SHA-256 of the session id
    port       INTEGER NOT NULL,  -- the server port it is valid on
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS ui_sign_ins (
    token_hash TEXT PRIMARY KEY,  -- hex SHA-256 of the link's token
    port       INTEGER NOT NULL,  -- the server port it signs in to
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
) WITHOUT ROWID;
