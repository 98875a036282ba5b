-- 0023: the web app's sessions in served mode (linkledger serve; docs/ui.md
-- "Served mode"): a session a person started by pasting a device token on
-- the sign-in page. It is bound to the token's name (the actor of what the
-- session writes) and to the scope the token had at sign-in; every request
-- re-checks the token by name, so a revoked token's sessions end at the
-- next request. Only the SHA-256 of the session id is stored, never the
-- token. A table of its own, not columns of ui_sessions: a loopback
-- session (linkledger ui) is never a served one, nor the other way round.
-- IF NOT EXISTS: the store's tests roll a database back to an older
-- schema by dropping what later migrations add, and leave these tables.
CREATE TABLE IF NOT EXISTS ui_token_sessions (
    id_hash    TEXT PRIMARY KEY,  -- hex SHA-256 of the session id
    token_name TEXT NOT NULL,     -- the token it was signed in with
    scope      TEXT NOT NULL,     -- that token's scope at sign-in
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
) WITHOUT ROWID;

-- revoking a token ends its sessions: one lookup by name
CREATE INDEX IF NOT EXISTS ui_token_sessions_name ON ui_token_sessions(token_name);
