package ledger

// Memory packs (a brief saved under a name, shown again and refreshed),
// citations (an item used in a task) and usage statistics.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/linkledger/linkledger/lib/brief"
	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// MaxNameLen is the longest pack or task name, in bytes.
const MaxNameLen = 200

// NameError says a pack or task name is empty, too long or holds control
// characters.
type NameError struct {
	What, Name string
}

func (e *NameError) Error() string {
	return fmt.Sprintf("%s name %q: want 1 to %d characters on one line", e.What, e.Name, MaxNameLen)
}

// CheckName checks a pack or task name (what says which, for the message).
func CheckName(what, name string) error {
	if strings.TrimSpace(name) == "" || len(name) > MaxNameLen || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return &NameError{What: what, Name: name}
	}
	return nil
}

// NoPackError says no pack has the name (errors.Is store.ErrNoPack).
type NoPackError struct {
	Name    string
	Version int
}

func (e *NoPackError) Error() string {
	if e.Version > 0 {
		return fmt.Sprintf("pack %q has no version %d", e.Name, e.Version)
	}
	return fmt.Sprintf("no pack %q", e.Name)
}
func (e *NoPackError) Unwrap() error { return store.ErrNoPack }

// Hint is the next command to try.
func (e *NoPackError) Hint() string {
	if e.Version > 0 {
		return "show its latest version with: linkledger pack show " + e.Name
	}
	return "list the packs with: linkledger pack list; save one with: linkledger pack save NAME --query TEXT"
}

// PackExistsError says the name is taken (errors.Is store.ErrPackExists).
type PackExistsError struct{ Name string }

func (e *PackExistsError) Error() string { return fmt.Sprintf("pack %q exists", e.Name) }
func (e *PackExistsError) Unwrap() error { return store.ErrPackExists }

// Hint is the next command to try.
func (e *PackExistsError) Hint() string {
	return "refresh it with: linkledger pack refresh " + e.Name + " (or save over it with --replace)"
}

// DefaultPackOptions are ll-brief's defaults.
func DefaultPackOptions() record.PackOptions {
	return record.PackOptions{MaxTokens: brief.DefaultMaxTokens, MaxItems: brief.DefaultMaxItems, MaxPointers: brief.DefaultMaxPointers}
}

// packBrief builds the brief of query with o, as `ll-brief --query`
// builds it with the same settings (a copy of a text already in the pack
// is skipped; nothing is marked stale), ranked as o.Mode and
// o.SemanticWeight say (o.Mode empty: ll-brief's default) with e
// embedding the query (nil: no endpoint). A semantic side that cannot be
// had leaves the lexical ranking and a warning (SemanticSide). It
// returns the pack and its JSON exactly as ll-brief writes it, and the
// ranking used, as PackInfo says it.
func packBrief(ctx context.Context, st *store.Store, query string, o record.PackOptions, e *embed.Client) (*brief.Pack, string, packRanking, error) {
	pointers := o.MaxPointers
	if pointers == 0 {
		pointers = -1 // a pack saved with no pointers keeps none
	}
	res, err := wrap(st).Brief(ctx, BriefOptions{
		Find: FindOptions{Query: query, Tags: o.Tags, Type: o.Type,
			Mode: o.Mode, SemanticWeight: o.SemanticWeight, Embedder: e},
		MaxItems: o.MaxItems, MaxPointers: pointers, PointerWords: o.PointerWords, MaxTokens: o.MaxTokens,
	})
	if err != nil {
		return nil, "", packRanking{}, err
	}
	var r packRanking
	if res.Mode != spec.ModeLexical || len(res.Warnings) > 0 {
		// (a lexical build without warnings: the record as always)
		r = packRanking{mode: res.Mode, warnings: res.Warnings}
	}
	return res.Pack, res.Text, r, nil
}

// packRanking is how a pack version was ranked (record.PackInfo's Mode
// and Warnings).
type packRanking struct {
	mode     string
	warnings []string
}

func (r packRanking) set(p *record.PackInfo) *record.PackInfo {
	if p != nil {
		p.Mode, p.Warnings = r.mode, r.warnings
	}
	return p
}

// BriefLimits are the sizes of a brief as a face received them (a face
// fills in its defaults first): the token budget, the full items, the
// one-line pointers and the words of each pointer.
type BriefLimits struct {
	MaxTokens, MaxItems, MaxPointers, PointerWords int
}

// CheckBriefLimits checks a brief's sizes, the one rule ll-brief's flags,
// the MCP brief tool and every pack state: a budget of 1 token or more,
// and items, pointers and pointer words within ll-brief's bounds. A bad
// one is a *RequestError naming the field.
func CheckBriefLimits(b BriefLimits) error {
	switch {
	case b.MaxTokens < 1:
		return &RequestError{Field: "max_tokens", Detail: fmt.Sprintf(" %d: want 1 or more", b.MaxTokens)}
	case b.MaxItems < 1 || b.MaxItems > brief.MaxItems:
		return &RequestError{Field: "max_items", Detail: fmt.Sprintf(" %d: want 1..%d", b.MaxItems, brief.MaxItems)}
	case b.MaxPointers < 0 || b.MaxPointers > brief.MaxPointers:
		return &RequestError{Field: "max_pointers", Detail: fmt.Sprintf(" %d: want 0..%d", b.MaxPointers, brief.MaxPointers)}
	case b.PointerWords < 0 || b.PointerWords > brief.MaxPointerWords:
		return &RequestError{Field: "pointer_words", Detail: fmt.Sprintf(" %d: want 0..%d", b.PointerWords, brief.MaxPointerWords)}
	}
	return nil
}

// CheckPackOptions checks the brief settings of a pack to save, the one
// rule every face states (linkledger pack save's flags, the MCP pack_save
// tool, the web app's "save as pack"): its sizes (CheckBriefLimits), the
// type (CheckType), and the ranking: the mode (ParseMode) and the
// semantic weight (0..1). A bad one is a *RequestError naming the field.
func CheckPackOptions(o record.PackOptions) error {
	if err := CheckBriefLimits(BriefLimits{MaxTokens: o.MaxTokens, MaxItems: o.MaxItems, MaxPointers: o.MaxPointers, PointerWords: o.PointerWords}); err != nil {
		return err
	}
	if err := CheckType(o.Type); err != nil {
		return err
	}
	return checkRanking(o.Mode, o.SemanticWeight)
}

// PackWriteOptions are the settings of SavePack and RefreshPack.
type PackWriteOptions struct {
	// Actor is who builds it: human or agent:NAME (default human).
	Actor string
	// Replace lets SavePack save over a pack of the same name (as a new
	// version with the new query and options).
	Replace bool
	// Embedder embeds the query for semantic and hybrid ranking (nil: no
	// endpoint; a pack saved with a mode other than lexical is then
	// built lexically, with a warning).
	Embedder *embed.Client
}

func (o PackWriteOptions) actor() string {
	if o.Actor == "" {
		return spec.ActorHuman
	}
	return o.Actor
}

// SavePack builds the brief of query and saves it as the pack name. A
// taken name fails with a *PackExistsError unless opt.Replace.
func (l *Ledger) SavePack(ctx context.Context, name, query string, o record.PackOptions, opt PackWriteOptions) (*record.PackInfo, error) {
	st := l.st
	if err := CheckName("pack", name); err != nil {
		return nil, err
	}
	if strings.TrimSpace(query) == "" {
		return nil, errors.New("a pack needs a query")
	}
	if err := CheckPackOptions(o); err != nil {
		return nil, err
	}
	p, text, ranking, err := packBrief(ctx, st, query, o, opt.Embedder)
	if err != nil {
		return nil, err
	}
	var before []record.PackMember
	if opt.Replace {
		old, err := st.Pack(ctx, name, 0)
		if err != nil && !errors.Is(err, store.ErrNoPack) {
			return nil, err
		}
		if old != nil {
			if before, err = membersOf(old.Brief); err != nil {
				return nil, err
			}
		}
	}
	entered, left := diff(before, Members(p))
	info, err := st.SavePack(ctx, name, query, o, store.PackVersion{Brief: text, Entered: entered, Left: left}, opt.actor(), opt.Replace)
	if errors.Is(err, store.ErrPackExists) {
		return nil, &PackExistsError{Name: name}
	}
	return ranking.set(info), err
}

// RefreshPack builds the pack name again with its query and options
// (its ranking included: a mode it was saved with is kept, and falls back
// to lexical with a warning when the semantic side cannot be had) and
// stores it as a new version that says what entered and what left.
func (l *Ledger) RefreshPack(ctx context.Context, name string, opt PackWriteOptions) (*record.PackInfo, error) {
	st := l.st
	old, err := st.Pack(ctx, name, 0)
	if errors.Is(err, store.ErrNoPack) {
		return nil, &NoPackError{Name: name}
	}
	if err != nil {
		return nil, err
	}
	before, err := membersOf(old.Brief)
	if err != nil {
		return nil, err
	}
	if err := checkRanking(old.Options.Mode, old.Options.SemanticWeight); err != nil {
		// (a database written by hand: said, not guessed at)
		return nil, fmt.Errorf("pack %q: stored options: %w", name, err)
	}
	p, text, ranking, err := packBrief(ctx, st, old.Query, *old.Options, opt.Embedder)
	if err != nil {
		return nil, err
	}
	entered, left := diff(before, Members(p))
	info, err := st.AddPackVersion(ctx, name, store.PackVersion{Brief: text, Entered: entered, Left: left}, opt.actor())
	if errors.Is(err, store.ErrNoPack) {
		return nil, &NoPackError{Name: name}
	}
	return ranking.set(info), err
}

// ShowPack returns the pack name at version (0: the latest).
func (l *Ledger) ShowPack(ctx context.Context, name string, version int) (*record.PackInfo, error) {
	st := l.st
	p, err := st.Pack(ctx, name, version)
	if errors.Is(err, store.ErrNoPack) {
		return nil, &NoPackError{Name: name, Version: version}
	}
	return p, err
}

// ListPacks returns every pack at its latest version, without briefs.
func (l *Ledger) ListPacks(ctx context.Context) ([]record.PackInfo, error) {
	st := l.st
	return st.Packs(ctx)
}

// Members lists the sources a pack names: its full items, then its
// pointers, in rank order.
func Members(p *brief.Pack) []record.PackMember {
	var ms []record.PackMember
	for _, it := range p.Items {
		ms = append(ms, record.PackMember{Rank: it.Rank, URL: it.URL, Title: it.Title, As: "item"})
	}
	for _, pt := range p.Pointers {
		ms = append(ms, record.PackMember{Rank: pt.Rank, URL: pt.URL, Title: pt.Title, As: "pointer"})
	}
	return ms
}

func membersOf(raw json.RawMessage) ([]record.PackMember, error) {
	var p brief.Pack
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("stored pack: %w", err)
	}
	return Members(&p), nil
}

// diff returns the members of after that are not in before (entered) and
// those of before not in after (left), by URL.
func diff(before, after []record.PackMember) (entered, left []record.PackMember) {
	in := func(ms []record.PackMember, url string) bool {
		for _, m := range ms {
			if m.URL == url {
				return true
			}
		}
		return false
	}
	entered, left = []record.PackMember{}, []record.PackMember{}
	for _, m := range after {
		if !in(before, m.URL) {
			entered = append(entered, m)
		}
	}
	for _, m := range before {
		if !in(after, m.URL) {
			left = append(left, m)
		}
	}
	return entered, left
}

// CiteOptions are the settings of Cite.
type CiteOptions struct {
	Resolve ResolveOptions
	// Task names the piece of work the item was used in (a pack's name
	// is its task).
	Task string
	// Actor is who used it: human or agent:NAME (default human).
	Actor string
}

// Cite records that the item arg names (an id or its URL) was used in a
// task.
func (l *Ledger) Cite(ctx context.Context, arg string, opt CiteOptions) (*record.Citation, error) {
	st := l.st
	if err := CheckName("task", opt.Task); err != nil {
		return nil, err
	}
	id, err := l.ResolveItem(ctx, arg, opt.Resolve)
	if err != nil {
		return nil, err
	}
	actor := opt.Actor
	if actor == "" {
		actor = spec.ActorHuman
	}
	c, err := st.AddCitation(ctx, id, opt.Task, actor)
	return c, notFound(err, arg, st)
}

// StatsOptions are the settings of Stats.
type StatsOptions struct {
	// Since and Until bound the period (Since zero: from the start;
	// Until zero: now).
	Since, Until time.Time
	// Limit is the length of the most reused list (default 10).
	Limit int
}

// Stats measures evidence reuse over a period: the share of tasks that
// reused a stored source (the design's bar: 30%), the items saved and never
// used, and the most reused sources (record.UsageStats).
func (l *Ledger) Stats(ctx context.Context, opt StatsOptions) (*record.UsageStats, error) {
	st := l.st
	if opt.Until.IsZero() {
		opt.Until = st.Now()
	}
	if opt.Limit <= 0 {
		opt.Limit = 10
	}
	return st.Usage(ctx, opt.Since, opt.Until, opt.Limit)
}
