package ledger

import (
	"context"

	"github.com/linkledger/linkledger/lib/brief"
	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/record"
)

// BriefOptions are the settings of Brief.
type BriefOptions struct {
	// Find chooses the candidates (its Limit is set from MaxItems and
	// MaxPointers).
	Find FindOptions
	// MaxItems is the number of full entries (brief.DefaultMaxItems when 0,
	// at most brief.MaxItems).
	MaxItems int
	// MaxPointers is the number of further candidates given as one-line
	// pointers in the budget left (brief.DefaultMaxPointers when 0; a
	// negative value: none).
	MaxPointers int
	// PointerWords gives each pointer its best sentence, at most this many
	// words (0: none).
	PointerWords int
	// MaxTokens is the pack's budget (brief.DefaultMaxTokens when 0).
	MaxTokens int
	// LowConfidence: agent highlights below it are dropped before whole
	// items (brief.DefaultLowConfidence when 0).
	LowConfidence float64
	// Format is brief.FormatJSON (default) or brief.FormatMD.
	Format string
	// Skipped, when set, is told of each record left out as a copy of one
	// already in the pack (for a -v diagnostic).
	Skipped func(*record.Record)
}

// BriefResult is an evidence pack, with its text exactly as counted.
type BriefResult struct {
	Pack *brief.Pack
	// Text is the pack as written: JSON, or Markdown for FormatMD.
	Text string
	// MarkErr is why marking stale items was skipped (see FindResult).
	MarkErr error
	// Mode and Warnings: the ranking used and why it is not the one
	// asked for (see FindResult).
	Mode     string
	Warnings []string
}

// Brief searches for opt.Find.Query and packs the best items, one per
// group of copies, with their evidence under opt.MaxTokens. A budget too
// small for even an empty pack is brief.ErrBudget.
func (l *Ledger) Brief(ctx context.Context, opt BriefOptions) (*BriefResult, error) {
	fo := opt.Find
	fo.Limit = opt.maxItems() + opt.maxPointers()
	fo.Detailed = opt.Detailed()
	res, err := l.Find(ctx, fo)
	if err != nil {
		return nil, err
	}
	pack, text, err := l.PackFrom(ctx, res.Hits, fo, opt)
	if err != nil {
		return nil, err
	}
	return &BriefResult{Pack: pack, Text: text, MarkErr: res.MarkErr, Mode: res.Mode, Warnings: res.Warnings}, nil
}

// Detailed is how many search hits the pack needs in detail (snippets,
// matched terms): the full items; pointers show only rank, URL and title
// unless they have a sentence (0: all).
func (o BriefOptions) Detailed() int {
	if o.PointerWords > 0 {
		return 0
	}
	return o.maxItems()
}

func (o BriefOptions) maxItems() int {
	if o.MaxItems <= 0 {
		return brief.DefaultMaxItems
	}
	return o.MaxItems
}

func (o BriefOptions) maxPointers() int {
	switch {
	case o.MaxPointers < 0:
		return 0
	case o.MaxPointers == 0:
		return brief.DefaultMaxPointers
	}
	return o.MaxPointers
}

// Pack builds the evidence pack of records already found (ll-find
// records, search hits): copies of an item already taken are skipped
// unless fo.AllCopies; at most opt.MaxItems full entries are taken, then
// at most opt.MaxPointers pointers.
func Pack(recs []*record.Record, fo FindOptions, opt BriefOptions) (*brief.Pack, string, error) {
	var l *Ledger
	return l.PackFrom(context.Background(), recs, fo, opt)
}

// rarityScan bounds the rows counted per query term to weigh it (see
// store.TermRarity): past it a term is common.
const rarityScan = 5000

// PackFrom is Pack with the store the records came from: the full
// entries' passages are chosen from their stored text (a record that
// carries its chunks uses those), and the query's terms are weighed by
// their rarity in the ledger. A nil ledger (Pack, ll-brief reading
// records from stdin): records without chunks keep their snippets. A store that cannot be read leaves the snippets too: the
// brief is still made.
func (l *Ledger) PackFrom(ctx context.Context, recs []*record.Record, fo FindOptions, opt BriefOptions) (*brief.Pack, string, error) {
	var st *store.Store
	if l != nil {
		st = l.st
	}
	var copies brief.Copies
	var items []brief.Item
	for _, r := range recs {
		if !fo.AllCopies && copies.Seen(r) {
			if opt.Skipped != nil {
				opt.Skipped(r)
			}
			continue
		}
		items = append(items, brief.FromRecord(r))
	}
	var rarity map[string]float64
	if st != nil {
		for i := range items[:min(len(items), opt.maxItems())] {
			it := &items[i]
			if len(it.Text) > 0 || it.NotFetched() {
				continue
			}
			cs, err := st.ItemChunks(ctx, it.ID, brief.MaxTextBytes)
			if err != nil {
				break
			}
			for _, c := range cs {
				it.Text = append(it.Text, brief.Chunk{Index: c.Index, Text: c.Text, Kind: c.Kind})
			}
		}
		if terms := brief.QueryTerms(fo.Query); len(terms) > 0 {
			if ws, err := st.TermRarity(ctx, terms, rarityScan); err == nil {
				rarity = map[string]float64{}
				for i, t := range terms {
					rarity[t] = ws[i]
				}
			}
		}
	}
	maxTokens := opt.MaxTokens
	if maxTokens <= 0 {
		maxTokens = brief.DefaultMaxTokens
	}
	low := opt.LowConfidence
	if low == 0 {
		low = brief.DefaultLowConfidence
	}
	format := opt.Format
	if format == "" {
		format = brief.FormatJSON
	}
	return brief.Build(items, brief.Options{Query: fo.Query, MaxTokens: maxTokens, MaxItems: opt.maxItems(), MaxPointers: opt.maxPointers(), PointerWords: opt.PointerWords, Format: format, LowConfidence: low, Rarity: rarity})
}
