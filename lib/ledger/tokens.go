package ledger

// Bearer tokens of linkledger serve (docs/several-machines.md, "Tokens"):
// one per device or agent. A token's secret is "llt_" and 32 random bytes
// in base64url; the ledger keeps only its SHA-256, so the database alone
// lets no one in. CheckToken reads the tokens afresh on every call (a
// revoked token fails on the next request) and compares the hash with
// every stored one in constant time.
//
// A token's name says who acts with it: agent:NAME is the actor
// agent:NAME; human:DEVICE is the person (actor human) on that device
// (TokenActor).

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// ErrBadToken is the error of CheckToken for a secret no token has (never
// made, or revoked).
var ErrBadToken = errors.New("unknown or revoked token")

// Token scopes, each allowing what the one before allows: read (find,
// brief, show, status, ...), write (save, annotate, tag, pin, cite, packs)
// and admin (token management).
const (
	ScopeRead  = "read"
	ScopeWrite = "write"
	ScopeAdmin = "admin"
)

// TokenPrefix starts every token secret (so one is easy to spot in a file
// or a log, and to tell from the web app's session ids).
const TokenPrefix = "llt_"

// tokenTouchEvery is how often a token's last use is written.
const tokenTouchEvery = time.Minute

// Token is one token as listed: never its secret.
type Token struct {
	Name     string
	Scope    string
	Created  time.Time
	LastUsed time.Time // zero: never used
}

// Actor is who acts with the token (TokenActor of its name).
func (t Token) Actor() string { return TokenActor(t.Name) }

func scopeRank(s string) int {
	switch s {
	case ScopeRead:
		return 1
	case ScopeWrite:
		return 2
	case ScopeAdmin:
		return 3
	}
	return 0
}

// ValidScope reports whether s is read, write or admin.
func ValidScope(s string) bool { return scopeRank(s) > 0 }

// ScopeAllows reports whether a token of scope have may do what needs
// scope need (read < write < admin). An unknown scope allows nothing.
func ScopeAllows(have, need string) bool {
	h, n := scopeRank(have), scopeRank(need)
	return h > 0 && n > 0 && h >= n
}

// ValidTokenName checks a token's name: agent:NAME or human:DEVICE, the
// name or device being 1 to 64 of A-Z a-z 0-9 . _ - starting with a
// letter or digit (an actor's name).
func ValidTokenName(name string) error {
	if dev, ok := strings.CutPrefix(name, "human:"); ok {
		if record.ValidActor("agent:" + dev) {
			return nil
		}
	} else if strings.HasPrefix(name, "agent:") && record.ValidActor(name) {
		return nil
	}
	return &InputError{Code: "bad_input", Message: fmt.Sprintf("token name %q: want agent:NAME (an agent) or human:DEVICE (you, on a device); NAME and DEVICE are 1 to 64 of A-Z a-z 0-9 . _ - starting with a letter or digit", name)}
}

// TokenActor is the actor of the writes made with the token name: the
// name itself for agent:NAME, human for human:DEVICE.
func TokenActor(name string) string {
	if strings.HasPrefix(name, "human:") {
		return spec.ActorHuman
	}
	return name
}

// TokenExistsError is AddToken's error for a name already taken.
type TokenExistsError struct{ Name string }

func (e *TokenExistsError) Error() string { return fmt.Sprintf("token %q exists", e.Name) }

// Hint says what to do instead.
func (e *TokenExistsError) Hint() string {
	return "revoke it first (linkledger token revoke " + e.Name + "), or choose another name"
}

// NoTokenError is RevokeToken's error for a name no token has.
type NoTokenError struct{ Name string }

func (e *NoTokenError) Error() string { return fmt.Sprintf("no token %q", e.Name) }

// Hint says where to see the names.
func (e *NoTokenError) Hint() string { return "list the tokens with linkledger token list" }

func tokenHash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// AddToken makes a token named name with scope and returns its secret,
// which is shown once: only its hash is kept. The database file (and its
// -wal and -shm) are made readable by their owner only (mode 0600).
func (l *Ledger) AddToken(ctx context.Context, name, scope string) (string, error) {
	if err := ValidTokenName(name); err != nil {
		return "", err
	}
	if !ValidScope(scope) {
		return "", &InputError{Code: "bad_input", Message: fmt.Sprintf("scope %q: want read, write or admin", scope)}
	}
	ts, err := l.st.ServeTokens(ctx)
	if err != nil {
		return "", err
	}
	for _, t := range ts {
		if t.Name == name {
			return "", &TokenExistsError{Name: name}
		}
	}
	secret := TokenPrefix + newSecret()
	if err := l.st.AddServeToken(ctx, name, scope, hex.EncodeToString(tokenHash(secret)), time.Now()); err != nil {
		return "", err
	}
	if err := ownerOnly(l.Path()); err != nil {
		return "", fmt.Errorf("token %q was added, but %w", name, err)
	}
	return secret, nil
}

// ownerOnly sets the database file and its -wal and -shm (those there)
// to mode 0600.
func ownerOnly(path string) error {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("making %s readable by its owner only: %w", p, err)
		}
	}
	return nil
}

// CheckToken returns the token whose secret is secret, or an error
// wrapping ErrBadToken. Every stored hash is compared (in constant time),
// read afresh, so a revoked token fails at once. The token's last use is
// written at most once a minute, in the background: a write lock held by
// another process never slows the check, and a failure to write it is no
// failure of the check.
func (l *Ledger) CheckToken(ctx context.Context, secret string) (Token, error) {
	if secret == "" || len(secret) > maxSecret {
		return Token{}, ErrBadToken
	}
	ts, err := l.st.ServeTokens(ctx)
	if err != nil {
		return Token{}, err
	}
	want := tokenHash(secret)
	found := -1
	for i, t := range ts {
		h, err := hex.DecodeString(t.SecretHash)
		if err != nil || len(h) != len(want) {
			continue
		}
		if subtle.ConstantTimeCompare(h, want) == 1 {
			found = i
		}
	}
	if found < 0 {
		return Token{}, ErrBadToken
	}
	tok := storedToken(ts[found])
	now := time.Now()
	if now.Sub(tok.LastUsed) >= tokenTouchEvery {
		// written beside the request, never in its way: the write lock
		// may be held by an ingest for seconds; one write per token at
		// a time
		if _, busy := touching.LoadOrStore(l.Path()+"\x00"+tok.Name, true); !busy {
			go func(name string) {
				defer touching.Delete(l.Path() + "\x00" + name)
				l.st.TouchServeToken(context.Background(), name, now, tokenTouchEvery)
			}(tok.Name)
		}
		tok.LastUsed = now.UTC().Truncate(time.Second)
	}
	return tok, nil
}

// touching holds the tokens whose last use is being written (by
// database path and name).
var touching sync.Map

// Tokens lists the tokens by name.
func (l *Ledger) Tokens(ctx context.Context) ([]Token, error) {
	ts, err := l.st.ServeTokens(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Token, len(ts))
	for i, t := range ts {
		out[i] = storedToken(t)
	}
	return out, nil
}

// RevokeToken deletes the token name: the next request with it fails.
// The web app's sessions signed in with it end too, at once: a session
// left behind would come back to life if a token of the same name were
// added later (a lost phone's cookie, after its token was revoked and a
// new phone got one of the same name).
func (l *Ledger) RevokeToken(ctx context.Context, name string) error {
	ok, err := l.st.DeleteServeToken(ctx, name)
	if err != nil {
		return err
	}
	if !ok {
		return &NoTokenError{Name: name}
	}
	if _, err := l.EndTokenSessions(ctx, name); err != nil {
		return fmt.Errorf("token %q revoked, but its web sessions could not be ended: %w", name, err)
	}
	return nil
}

func storedToken(t store.ServeToken) Token {
	tok := Token{Name: t.Name, Scope: t.Scope}
	tok.Created, _ = time.Parse(time.RFC3339, t.CreatedAt)
	tok.LastUsed, _ = time.Parse(time.RFC3339, t.LastUsedAt)
	return tok
}
