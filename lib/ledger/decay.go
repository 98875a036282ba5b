package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// DecayOptions choose the decay of one search (ll-find, ll-brief, the MCP
// find and brief tools). The zero value uses the ledger's policy
// (DecayPolicy). Below or After, when set, replaces that half of the
// policy (the other half comes from the ledger's policy, or from
// store.DefaultDecay when that policy is off); 0 in either turns decay
// off, as Off does.
type DecayOptions struct {
	Off   bool
	Below *float64
	After *time.Duration
}

// DecayPolicy returns the ledger's decay policy: the stored one
// (linkledger config decay), else store.DefaultDecay. stored says which.
func (l *Ledger) DecayPolicy(ctx context.Context) (p spec.DecayPolicy, stored *spec.StoredSetting, err error) {
	st := l.st
	p, stored, err = st.StoredDecay(ctx)
	if err != nil {
		return spec.DecayPolicy{}, nil, err
	}
	if stored == nil {
		p = store.DefaultDecay
	}
	return p, stored, nil
}

// resolve returns the policy o chooses on the ledger st.
func (o DecayOptions) resolve(ctx context.Context, st *store.Store) (spec.DecayPolicy, error) {
	if o.Off {
		return spec.DecayPolicy{}, nil
	}
	if o.Below != nil && o.After != nil {
		return spec.DecayPolicy{Below: *o.Below, After: *o.After}, nil
	}
	p, _, err := wrap(st).DecayPolicy(ctx)
	if err != nil {
		return spec.DecayPolicy{}, err
	}
	if !p.On() && (o.Below != nil || o.After != nil) {
		p = store.DefaultDecay
	}
	if o.Below != nil {
		p.Below = *o.Below
	}
	if o.After != nil {
		p.After = *o.After
	}
	return p, nil
}

// ResolveDecay returns opt with its decay settled on the ledger st: the
// weights carry the policy, and opt.Decay names it exactly (resolving
// again changes nothing). ll-find's modes that call the store directly
// use it; Find, Related and Brief call it themselves.
func (l *Ledger) ResolveDecay(ctx context.Context, opt FindOptions) (FindOptions, error) {
	st := l.st
	p, err := opt.Decay.resolve(ctx, st)
	if err != nil {
		return opt, err
	}
	w := opt.Weights
	w.DecayBelow, w.DecayAfter = 0, 0
	if w == (spec.Weights{}) {
		// zero weights mean the defaults: keep meaning them once the
		// decay is set
		opt.Weights = spec.DefaultWeights
	}
	opt.Weights.DecayBelow, opt.Weights.DecayAfter = p.Below, p.After
	opt.Decay = DecayOptions{Off: !p.On(), Below: &p.Below, After: &p.After}
	return opt, nil
}

// FormatDuration writes d as ParseDuration reads it: whole days as "90d",
// anything else in Go's form ("36h0m0s").
func FormatDuration(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	}
	return d.String()
}

// decayValue is the JSON value of the decay setting in a config record.
type decayValue struct {
	On    bool    `json:"on"`
	Below float64 `json:"below"`
	After string  `json:"after"`
}

// DecaySetting is the ledger's decay policy as a config record.
func (l *Ledger) DecaySetting(ctx context.Context) (*record.Record, error) {
	p, stored, err := l.DecayPolicy(ctx)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(decayValue{On: p.On(), Below: p.Below, After: FormatDuration(p.After)})
	if err != nil {
		return nil, err
	}
	set := &record.Setting{Key: store.SettingDecay, Value: b, Source: "default"}
	if stored != nil {
		set.Source, set.UpdatedAt, set.UpdatedBy = "stored", stored.UpdatedAt, stored.UpdatedBy
	}
	return &record.Record{Setting: set}, nil
}

// SetDecay stores the ledger's decay policy (p off: decay stays off until
// changed) and returns it as a config record.
func (l *Ledger) SetDecay(ctx context.Context, p spec.DecayPolicy, actor string) (*record.Record, error) {
	st := l.st
	if err := st.SetDecay(ctx, p, actor); err != nil {
		return nil, err
	}
	return l.DecaySetting(ctx)
}

// ResetDecay deletes the stored decay policy (store.DefaultDecay applies
// again) and returns the policy now in force as a config record.
func (l *Ledger) ResetDecay(ctx context.Context) (*record.Record, error) {
	st := l.st
	if _, err := st.ResetSetting(ctx, store.SettingDecay); err != nil {
		return nil, fmt.Errorf("reset %s: %w", store.SettingDecay, err)
	}
	return l.DecaySetting(ctx)
}
