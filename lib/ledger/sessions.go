package ledger

// Sessions of the web app (docs/ui.md, "Sessions and sign-in"): a
// session id is 32 random bytes the browser keeps in a cookie; the ledger
// keeps only its SHA-256, with the port it is valid on and its expiry, so
// sessions survive a restart of the server and of the browser, and the
// database alone opens none. A sign-in link's token is kept the same way
// and signs in once.

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"time"

	"github.com/linkledger/linkledger/lib/record"
)

// SessionTTL is how long a session lasts after its sign-in.
const SessionTTL = 30 * 24 * time.Hour

// SignInTTL is how long a sign-in link made by NewSignIn stays valid.
const SignInTTL = 10 * time.Minute

// maxSecret bounds a secret a request presents before it is hashed.
const maxSecret = 128

// newSecret is 32 random bytes, base64url without padding (43 characters).
func newSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func secretHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// NewSession starts a session valid on port until now+SessionTTL and
// returns its id (for the cookie only: the ledger keeps its hash) and its
// expiry. Expired sessions and sign-in links are deleted.
func (l *Ledger) NewSession(ctx context.Context, port int, now time.Time) (id string, expires time.Time, err error) {
	id = newSecret()
	expires = now.Add(SessionTTL).UTC().Truncate(time.Second)
	if err := l.st.AddUISession(ctx, secretHash(id), port, now, expires); err != nil {
		return "", time.Time{}, err
	}
	return id, expires, nil
}

// SessionValid reports whether id is a session made on port that has not
// expired at now.
func (l *Ledger) SessionValid(ctx context.Context, id string, port int, now time.Time) (bool, error) {
	if id == "" || len(id) > maxSecret {
		return false, nil
	}
	return l.st.UISessionValid(ctx, secretHash(id), port, now)
}

// EndSession ends the session id (sign-out).
func (l *Ledger) EndSession(ctx context.Context, id string) error {
	if id == "" || len(id) > maxSecret {
		return nil
	}
	return l.st.DeleteUISession(ctx, secretHash(id))
}

// NewSignIn makes a sign-in token for the server on port, valid once
// until now+SignInTTL (linkledger ui --sign-in-link).
func (l *Ledger) NewSignIn(ctx context.Context, port int, now time.Time) (string, error) {
	tok := newSecret()
	if err := l.st.AddUISignIn(ctx, secretHash(tok), port, now, now.Add(SignInTTL)); err != nil {
		return "", err
	}
	return tok, nil
}

// UseSignIn reports whether tok is a sign-in token for port, valid at now,
// and uses it up.
func (l *Ledger) UseSignIn(ctx context.Context, tok string, port int, now time.Time) (bool, error) {
	if tok == "" || len(tok) > maxSecret {
		return false, nil
	}
	return l.st.UseUISignIn(ctx, secretHash(tok), port, now)
}

// NewTokenSession starts a served-mode session (linkledger serve, docs/ui.md
// "Served mode") for a person who signed in with the device token name of
// scope, valid until now+SessionTTL; it returns the session id (for the
// cookie only: the ledger keeps its hash) and its expiry. The token itself
// is not stored here. Expired served sessions are deleted.
func (l *Ledger) NewTokenSession(ctx context.Context, name, scope string, now time.Time) (id string, expires time.Time, err error) {
	if name == "" || scope == "" {
		return "", time.Time{}, &InputError{Code: record.CodeBadInput, Message: "a token session needs the token's name and scope"}
	}
	id = newSecret()
	expires = now.Add(SessionTTL).UTC().Truncate(time.Second)
	if err := l.st.AddUITokenSession(ctx, secretHash(id), name, scope, now, expires); err != nil {
		return "", time.Time{}, err
	}
	return id, expires, nil
}

// TokenSession returns the token name and scope a served-mode session was
// signed in with, and false when id is no such session or it has expired
// at now. A loopback session (NewSession) is not one.
func (l *Ledger) TokenSession(ctx context.Context, id string, now time.Time) (name, scope string, ok bool, err error) {
	if id == "" || len(id) > maxSecret {
		return "", "", false, nil
	}
	return l.st.UITokenSession(ctx, secretHash(id), now)
}

// EndTokenSession ends the served-mode session id (sign-out).
func (l *Ledger) EndTokenSession(ctx context.Context, id string) error {
	if id == "" || len(id) > maxSecret {
		return nil
	}
	return l.st.DeleteUITokenSession(ctx, secretHash(id))
}

// EndTokenSessions ends every served-mode session signed in with the token
// name (the web app calls it when it finds the token revoked; revoking a
// token may call it too) and returns how many it ended.
func (l *Ledger) EndTokenSessions(ctx context.Context, name string) (int64, error) {
	return l.st.DeleteUITokenSessions(ctx, name)
}
