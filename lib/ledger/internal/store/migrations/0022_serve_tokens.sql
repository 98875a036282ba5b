-- 0022: the bearer tokens of linkledger serve (docs/several-machines.md),
-- one per device or agent. Only the SHA-256 of a token is kept: the
-- database alone opens nothing. name is the token's name (agent:NAME or
-- human:DEVICE), which says who makes the writes done with it; scope is
-- read, write or admin. Revoking a token deletes its row.
CREATE TABLE IF NOT EXISTS serve_tokens (
	name         TEXT PRIMARY KEY,
	scope        TEXT NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
	secret_hash  TEXT NOT NULL UNIQUE,
	created_at   TEXT NOT NULL,
	last_used_at TEXT NOT NULL DEFAULT ''
);
