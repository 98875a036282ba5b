package store

// The web app's sessions and sign-in links (migration 0015): rows keyed
// by the hash of a secret the browser or the sign-in link holds.
// lib/ledger makes the secrets and hashes them; this file stores, checks
// and deletes the rows. Times are RFC 3339 UTC strings, compared as
// strings (one format, so their order is the times' order).

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/linkledger/linkledger/lib/record"
)

// AddUISession stores a session (by the hash of its id) valid on port
// until expires, and deletes the sessions and sign-in links that have
// expired by now.
func (s *Store) AddUISession(ctx context.Context, idHash string, port int, now, expires time.Time) error {
	n := record.FormatTime(now)
	if _, err := s.db.ExecContext(ctx, `DELETE FROM ui_sessions WHERE expires_at <= ?`, n); err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, `DELETE FROM ui_sign_ins WHERE expires_at <= ?`, n); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO ui_sessions (id_hash, port, created_at, expires_at) VALUES (?, ?, ?, ?)`,
		idHash, port, n, record.FormatTime(expires))
	return err
}

// UISessionValid reports whether the session of idHash exists, was made
// for port and has not expired at now.
func (s *Store) UISessionValid(ctx context.Context, idHash string, port int, now time.Time) (bool, error) {
	var one int
	err := s.db.GetContext(ctx, &one, `SELECT 1 FROM ui_sessions WHERE id_hash = ? AND port = ? AND expires_at > ?`,
		idHash, port, record.FormatTime(now))
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// DeleteUISession deletes the session of idHash (signing out); deleting
// one that is not there is no error.
func (s *Store) DeleteUISession(ctx context.Context, idHash string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM ui_sessions WHERE id_hash = ?`, idHash)
	return err
}

// AddUISignIn stores a sign-in link's token (by its hash) for port until
// expires.
func (s *Store) AddUISignIn(ctx context.Context, tokenHash string, port int, now, expires time.Time) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO ui_sign_ins (token_hash, port, created_at, expires_at) VALUES (?, ?, ?, ?)`,
		tokenHash, port, record.FormatTime(now), record.FormatTime(expires))
	return err
}

// UseUISignIn deletes the sign-in link of tokenHash and reports whether
// it was there for port and had not expired at now: a link signs in
// once. A link of another port is left as it is.
func (s *Store) UseUISignIn(ctx context.Context, tokenHash string, port int, now time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM ui_sign_ins WHERE token_hash = ? AND port = ? AND expires_at > ?`,
		tokenHash, port, record.FormatTime(now))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// AddUITokenSession stores a served-mode session (by the hash of its id)
// signed in with the token name of scope, valid until expires, and
// deletes the served sessions that have expired by now (migration 0023).
func (s *Store) AddUITokenSession(ctx context.Context, idHash, name, scope string, now, expires time.Time) error {
	n := record.FormatTime(now)
	if _, err := s.db.ExecContext(ctx, `DELETE FROM ui_token_sessions WHERE expires_at <= ?`, n); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO ui_token_sessions (id_hash, token_name, scope, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
		idHash, name, scope, n, record.FormatTime(expires))
	return err
}

// UITokenSession returns the token name and scope of the served session
// of idHash, and false when there is none or it has expired at now.
func (s *Store) UITokenSession(ctx context.Context, idHash string, now time.Time) (name, scope string, ok bool, err error) {
	var row struct {
		Name  string `db:"token_name"`
		Scope string `db:"scope"`
	}
	err = s.db.GetContext(ctx, &row, `SELECT token_name, scope FROM ui_token_sessions WHERE id_hash = ? AND expires_at > ?`,
		idHash, record.FormatTime(now))
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, err
	}
	return row.Name, row.Scope, true, nil
}

// DeleteUITokenSession deletes the served session of idHash (signing
// out); deleting one that is not there is no error.
func (s *Store) DeleteUITokenSession(ctx context.Context, idHash string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM ui_token_sessions WHERE id_hash = ?`, idHash)
	return err
}

// DeleteUITokenSessions deletes every served session signed in with the
// token name (its token was revoked) and returns how many there were.
func (s *Store) DeleteUITokenSessions(ctx context.Context, name string) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM ui_token_sessions WHERE token_name = ?`, name)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
