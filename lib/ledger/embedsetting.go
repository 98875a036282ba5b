package ledger

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/record"
)

// embedValue is the JSON value of the embed setting in a config record:
// the stored endpoint's base URL and model, or on false (none stored, or
// stored off), and the task prefixes in force for the model (stored, or
// the model's default; absent: none). The key is never stored, so never
// shown.
type embedValue struct {
	On          bool   `json:"on"`
	URL         string `json:"url,omitempty"`
	Model       string `json:"model,omitempty"`
	DocPrefix   string `json:"doc_prefix,omitempty"`
	QueryPrefix string `json:"query_prefix,omitempty"`
}

// EmbedSetting is the ledger's stored embeddings endpoint as a config
// record (source "default": none stored, no endpoint unless the
// environment names one).
func (l *Ledger) EmbedSetting(ctx context.Context) (*record.Record, error) {
	st := l.st
	e, stored, err := st.StoredEmbed(ctx)
	if err != nil {
		return nil, err
	}
	v := embedValue{On: stored != nil && !e.Off, URL: e.URL, Model: e.Model}
	if v.On {
		v.DocPrefix, v.QueryPrefix = e.Prefixes()
	}
	// a prefix is shown as typed (no HTML escaping of < > &)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	set := &record.Setting{Key: store.SettingEmbed, Value: bytes.TrimSuffix(buf.Bytes(), []byte("\n")), Source: "default"}
	if stored != nil {
		set.Source, set.UpdatedAt, set.UpdatedBy = "stored", stored.UpdatedAt, stored.UpdatedBy
	}
	return &record.Record{Setting: set}, nil
}

// SetEmbed stores the ledger's embeddings endpoint (or e.Off: none, until
// changed) and returns it as a config record.
func (l *Ledger) SetEmbed(ctx context.Context, e embed.Endpoint, actor string) (*record.Record, error) {
	st := l.st
	if err := st.SetEmbed(ctx, e, actor); err != nil {
		return nil, err
	}
	return l.EmbedSetting(ctx)
}

// ResetEmbed deletes the stored embeddings endpoint and returns the
// setting now in force as a config record.
func (l *Ledger) ResetEmbed(ctx context.Context) (*record.Record, error) {
	st := l.st
	if _, err := st.ResetSetting(ctx, store.SettingEmbed); err != nil {
		return nil, fmt.Errorf("reset %s: %w", store.SettingEmbed, err)
	}
	return l.EmbedSetting(ctx)
}
