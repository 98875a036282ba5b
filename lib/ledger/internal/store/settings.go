package store

// The ledger's stored policies (linkledger config): today the decay
// policy and the embeddings endpoint. They are data of the ledger, kept in the settings table
// (migration 0012), not connection settings (those go in the DSN).

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/record"
)

// SettingDecay is the settings key of the decay policy.
const SettingDecay = "decay"

// DefaultDecay is the documented default decay policy (docs/retrieval.md):
// below the low-confidence line (DefaultWeights.LowConfidenceBelow) and
// older than 90 days.
var DefaultDecay = DecayPolicy{Below: 0.5, After: 90 * 24 * time.Hour}

// decayCond is the SQL condition (on annotations a) for an annotation decayed
// under p at now, with its arguments; "0" when p is off.
func decayCond(p DecayPolicy, now time.Time) (string, []any) {
	if !p.On() {
		return "0", nil
	}
	// cheap column tests first; the cited items are one uncorrelated
	// list (built once per statement), not a lookup per annotation row.
	// Every term is true or false, never NULL (confidence may be NULL,
	// citations.item_id never is), so NOT of it is too.
	return `(a.review IS NULL AND coalesce(a.confidence, 1) < ? AND a.created_at < ? AND a.actor LIKE 'agent:%'
		AND a.item_id NOT IN (SELECT item_id FROM citations))`, []any{p.Below, record.FormatTime(now.Add(-p.After))}
}

// decayJSON is the stored form of a DecayPolicy.
type decayJSON struct {
	Below        float64 `json:"below"`
	AfterSeconds int64   `json:"after_seconds"`
}

// Setting returns the stored setting key, or nil when none is stored.
func (s *Store) Setting(ctx context.Context, key string) (*StoredSetting, error) {
	var st StoredSetting
	err := s.db.GetContext(ctx, &st, `SELECT key, value, updated_at, updated_by FROM settings WHERE key = ?`, key)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &st, nil
}

// ResetSetting deletes the stored setting key (its default applies
// again) and reports whether one was stored.
func (s *Store) ResetSetting(ctx context.Context, key string) (bool, error) {
	r, err := s.db.ExecContext(ctx, `DELETE FROM settings WHERE key = ?`, key)
	if err != nil {
		return false, err
	}
	n, _ := r.RowsAffected()
	return n > 0, nil
}

// openedSetting is the decay setting read at open (Options.ReadPolicies):
// row is nil when none was stored.
type openedSetting struct {
	mu    sync.Mutex
	taken bool
	row   *StoredSetting
}

// take returns the setting read at open, once; false when there is none
// to take (not read at open, or taken already).
func (o *openedSetting) take() (*StoredSetting, bool) {
	if o == nil {
		return nil, false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.taken {
		return nil, false
	}
	o.taken = true
	return o.row, true
}

// StoredDecay returns the stored decay policy and its row, or a nil row
// when none is stored (the caller's default applies).
func (s *Store) StoredDecay(ctx context.Context) (DecayPolicy, *StoredSetting, error) {
	st, ok := s.opened.take()
	var err error
	if !ok {
		st, err = s.Setting(ctx, SettingDecay)
	}
	if err != nil || st == nil {
		return DecayPolicy{}, nil, err
	}
	var v decayJSON
	if err := json.Unmarshal([]byte(st.Value), &v); err != nil {
		return DecayPolicy{}, nil, fmt.Errorf("setting %s: %w", SettingDecay, err)
	}
	p := DecayPolicy{Below: v.Below, After: time.Duration(v.AfterSeconds) * time.Second}
	if err := p.Valid(); err != nil {
		return DecayPolicy{}, nil, fmt.Errorf("setting %s: %w", SettingDecay, err)
	}
	return p, st, nil
}

// SetDecay stores the decay policy (an off policy is stored too: it
// stays off until changed or reset), saying who set it.
func (s *Store) SetDecay(ctx context.Context, p DecayPolicy, actor string) error {
	if err := p.Valid(); err != nil {
		return badInput("%v", err)
	}
	if err := record.CheckActor(actor); err != nil {
		return badInput("%v", err)
	}
	b, err := json.Marshal(decayJSON{Below: p.Below, AfterSeconds: int64(p.After / time.Second)})
	if err != nil {
		return err
	}
	return s.putSetting(ctx, SettingDecay, string(b), actor)
}

// SettingEmbed is the settings key of the embeddings endpoint (linkledger
// config embed; docs/retrieval.md).
const SettingEmbed = "embed"

// StoredEmbed returns the stored embeddings endpoint and its row, or a nil
// row when none is stored.
func (s *Store) StoredEmbed(ctx context.Context) (embed.Endpoint, *StoredSetting, error) {
	st, ok := s.openedEmbed.take()
	var err error
	if !ok {
		st, err = s.Setting(ctx, SettingEmbed)
	}
	if err != nil || st == nil {
		return embed.Endpoint{}, nil, err
	}
	var v embed.Endpoint
	if err := json.Unmarshal([]byte(st.Value), &v); err != nil {
		return embed.Endpoint{}, nil, fmt.Errorf("setting %s: %w", SettingEmbed, err)
	}
	if err := v.Valid(); err != nil {
		return embed.Endpoint{}, nil, fmt.Errorf("setting %s: %w", SettingEmbed, err)
	}
	return v, st, nil
}

// SetEmbed stores the embeddings endpoint (or Off), saying who set it.
func (s *Store) SetEmbed(ctx context.Context, e embed.Endpoint, actor string) error {
	if err := e.Valid(); err != nil {
		return badInput("%v", err)
	}
	if err := record.CheckActor(actor); err != nil {
		return badInput("%v", err)
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return s.putSetting(ctx, SettingEmbed, string(b), actor)
}

// putSetting stores a setting's value, who set it and when.
func (s *Store) putSetting(ctx context.Context, key, value, actor string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO settings(key, value, updated_at, updated_by) VALUES (?,?,?,?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
		key, value, s.nowString(), actor)
	return err
}
