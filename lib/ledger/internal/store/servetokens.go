package store

// The bearer tokens of linkledger serve (migration 0022): rows keyed by
// the token's name, holding the hash of its secret. lib/ledger makes the
// secrets, hashes and compares them; this file stores, lists and deletes
// the rows. Times are RFC 3339 UTC strings ("" for never).

import (
	"context"
	"time"

	"github.com/linkledger/linkledger/lib/record"
)

// ServeToken is one stored token (never its secret).
type ServeToken struct {
	Name       string `db:"name"`
	Scope      string `db:"scope"`
	SecretHash string `db:"secret_hash"`
	CreatedAt  string `db:"created_at"`
	LastUsedAt string `db:"last_used_at"`
}

// AddServeToken stores a token; a name already there is a constraint
// error (the caller checks first, to say so in the user's terms).
func (s *Store) AddServeToken(ctx context.Context, name, scope, secretHash string, now time.Time) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO serve_tokens (name, scope, secret_hash, created_at) VALUES (?, ?, ?, ?)`,
		name, scope, secretHash, record.FormatTime(now))
	return err
}

// ServeTokens lists the tokens by name.
func (s *Store) ServeTokens(ctx context.Context) ([]ServeToken, error) {
	var ts []ServeToken
	err := s.db.SelectContext(ctx, &ts, `SELECT name, scope, secret_hash, created_at, last_used_at FROM serve_tokens ORDER BY name`)
	return ts, err
}

// DeleteServeToken deletes the token name and reports whether it was
// there.
func (s *Store) DeleteServeToken(ctx context.Context, name string) (bool, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM serve_tokens WHERE name = ?`, name)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// TouchServeToken sets the token's last use to now when it was last used
// before now-every (so a busy client writes once a while, not on every
// request).
func (s *Store) TouchServeToken(ctx context.Context, name string, now time.Time, every time.Duration) error {
	_, err := s.db.ExecContext(ctx, `UPDATE serve_tokens SET last_used_at = ? WHERE name = ? AND last_used_at < ?`,
		record.FormatTime(now), name, record.FormatTime(now.Add(-every)))
	return err
}
