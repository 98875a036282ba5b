// Package findflags is the search interface ll-find and ll-brief share in
// the command layer: the ranking and filter flags, reading them into a
// ledger.FindOptions (whose mapping to the store's options lives in
// lib/ledger), opening the store for a search, and the no-match message.
package findflags

import (
	"errors"
	"math"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// SearchFlags are the ranking and filter flags ll-find and ll-brief share
// (ll-brief has --max-items instead of --limit and --offset).
func SearchFlags(paging bool) []ucli.Flag {
	w := spec.DefaultWeights
	flags := append(FilterFlags(), []ucli.Flag{
		&ucli.BoolFlag{Name: "archived", Usage: "include archived items (left out by default)"},
		&ucli.BoolFlag{Name: "only-archived", Usage: "only archived items"},
		&ucli.FloatFlag{Name: "w-title", Value: w.Title, Usage: "bm25 weight of the title field"},
		&ucli.FloatFlag{Name: "w-body", Value: w.Body, Usage: "bm25 weight of the body (chunk text) field"},
		&ucli.FloatFlag{Name: "w-annotations", Value: w.Annotations, Usage: "bm25 weight of the annotations (highlights, notes) field"},
		&ucli.FloatFlag{Name: "pinned-boost", Value: w.PinnedBoost, Usage: "added to the score of items with a pinned highlight"},
		&ucli.FloatFlag{Name: "low-confidence-penalty", Value: w.LowConfidencePenalty, Usage: "subtracted (times their share) when low-confidence agent annotations matched"},
		&ucli.FloatFlag{Name: "low-confidence-below", Value: w.LowConfidenceBelow, Usage: "agent annotations below this confidence are low-confidence"},
		&ucli.FloatFlag{Name: "w-chunk-sum", Value: w.SumBonus, Usage: "share of an item's other matching chunks added to its best chunk"},
		&ucli.IntFlag{Name: "scan-rows", Value: spec.DefaultScanRows, Usage: "rank at most about `N` matching rows per query, leaving out the most common words first (-1: no bound)"},
		&ucli.FloatFlag{Name: "w-doc", Value: w.Doc, Usage: "share of the item's whole-text row added to its best chunk"},
		&ucli.IntFlag{Name: "snippets", Value: 2, Usage: "snippets per item (0 for none)"},
		&ucli.BoolFlag{Name: "expand-chunks", Usage: "add the full matching chunks to each item"},
		&ucli.FloatFlag{Name: "decay-below", Usage: "decay: unconfirmed agent annotations below this confidence on uncited items stop counting (0: no decay; default: the ledger's policy, see linkledger config decay)"},
		&ucli.StringFlag{Name: "decay-after", Usage: "decay: ... once older than `DURATION` (e.g. 90d; 0: no decay; default: the ledger's policy)"},
		&ucli.BoolFlag{Name: "no-decay", Usage: "no decay for this search: every annotation not rejected counts"},
		&ucli.StringFlag{Name: "stale-after", Value: "30d", Usage: "mark items fetched longer ago than `DURATION` as due for revalidation (0 to never)"},
		&ucli.FloatFlag{Name: "cut", Value: spec.DefaultCut, Usage: "leave out weak matches: items scoring below this share of the best item's score (0: every match)"},
		&ucli.BoolFlag{Name: "all-matches", Usage: "every match, however weak (--cut 0)"},
		&ucli.BoolFlag{Name: "all-copies", Usage: "show every copy of the same text (saved under other URLs) as its own item; by default copies are one item listing the others under \"copies\""},
	}...)
	flags = append(flags, RankingFlags()...)
	if paging {
		flags = append(flags,
			&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 10, Usage: "at most `N` items"},
			&ucli.IntFlag{Name: "offset", Usage: "skip the first `N` items"})
	}
	return flags
}

// RankingFlags are --mode and --semantic-weight: the ranking of ll-find,
// ll-brief and linkledger pack save (read by Ranking).
func RankingFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "mode", Usage: "ranking `MODE`: lexical, semantic or hybrid (default: hybrid when an embeddings endpoint is configured and the ledger holds its model's vectors, else lexical; docs/retrieval.md)"},
		&ucli.FloatFlag{Name: "semantic-weight", Value: spec.DefaultSemanticWeight, Usage: "hybrid: the semantic side's share `W` in the fused score, 0..1 (0.5: equal)"},
	}
}

// Ranking reads --mode and --semantic-weight: the mode ("" when not
// given) and the weight (nil when not given), as typed: the find request
// (ledger.FindRequest.Options) or the pack's options
// (ledger.CheckPackOptions) check them.
func Ranking(c *ucli.Command) (mode string, weight *float64) {
	fv := cli.Flags(c)
	if fv.IsSet("semantic-weight") {
		w := fv.Float("semantic-weight")
		weight = &w
	}
	return fv.String("mode"), weight
}

// FilterFlags are the item filters ll-find, ll-brief and linkledger export
// share: tags, type, since, until, actor, status (the archived flags differ:
// a search leaves archived items out, an export keeps them).
func FilterFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringSliceFlag{Name: "tags", Aliases: []string{"tag", "t"}, Usage: "only items with all of these tags (comma-separated, repeatable)"},
		&ucli.StringFlag{Name: "type", Usage: "only items of source `TYPE` (article, x, youtube, pdf, text)"},
		&ucli.StringFlag{Name: "since", Usage: "only items saved at or after `WHEN` (RFC 3339, YYYY-MM-DD, today, yesterday, or a span ago: 12h, 30d, 2w, 3mo, 1y)"},
		&ucli.StringFlag{Name: "until", Usage: "only items saved before `WHEN` (same forms as --since)"},
		&ucli.StringFlag{Name: "actor", Usage: "only items with annotations by `ACTOR` (human or agent:<name>)"},
		&ucli.StringFlag{Name: "status", Usage: "only items in ingest `STATE` (saved, fetched, parsed, enriched, failed)"},
	}
}

// Request reads FilterFlags' values into the find request every face
// shares (everything but the archived choice, which each command spells).
func Request(c *ucli.Command) ledger.FindRequest {
	fv := cli.Flags(c)
	r := ledger.FindRequest{Type: fv.String("type"), Since: fv.String("since"), Until: fv.String("until"),
		Actor: fv.String("actor"), Status: fv.String("status")}
	for _, v := range fv.StringSlice("tags") {
		for _, t := range strings.Split(v, ",") {
			// the form tags are stored in: --tags "C Libraries" finds c-libraries
			if t = record.TagForm(t); t != "" {
				r.Tags = append(r.Tags, t)
			}
		}
	}
	return r
}

// RequestError is err as a usage error: a *ledger.RequestError names its
// field as the flag (--since: ...), so each face says the same words.
func RequestError(err error) error {
	var re *ledger.RequestError
	if errors.As(err, &re) {
		return cli.Usage("--%s%s", re.Flag(), re.Detail)
	}
	return err
}

// Filter reads FilterFlags' values with the archived choice archived
// (ledger.ParseArchived's spelling), read and checked by the find request.
func Filter(c *ucli.Command, now time.Time, archived string) (spec.Filter, error) {
	r := Request(c)
	r.Archived = archived
	f, err := r.Filter(now)
	return f, RequestError(err)
}

// SearchOptions reads the shared flags into the store's search options
// (FindOptions mapped by ledger.FindOptions.SearchOptions). limit is used
// when the command has no --limit.
func SearchOptions(c *ucli.Command, now time.Time, limit int) (spec.SearchOptions, error) {
	o, err := FindOptions(c, now, limit)
	if err != nil {
		return spec.SearchOptions{}, err
	}
	return o.SearchOptions(), nil
}

// FindOptions reads the shared flags. limit is used when the command has
// no --limit.
func FindOptions(c *ucli.Command, now time.Time, limit int) (ledger.FindOptions, error) {
	fv := cli.Flags(c)
	var o ledger.FindOptions
	o.Limit = limit
	if fv.IsSet("limit") || fv.Int("limit") > 0 {
		o.Limit = fv.Int("limit")
	}
	if o.Limit < 1 {
		return o, cli.Usage("--limit %d: want 1 or more", o.Limit)
	}
	o.Offset = fv.Int("offset")
	if o.Offset < 0 {
		return o, cli.Usage("--offset %d: want 0 or more", o.Offset)
	}
	o.Weights = spec.Weights{
		Title: fv.Float("w-title"), Body: fv.Float("w-body"), Annotations: fv.Float("w-annotations"),
		PinnedBoost: fv.Float("pinned-boost"), LowConfidencePenalty: fv.Float("low-confidence-penalty"),
		LowConfidenceBelow: fv.Float("low-confidence-below"), SumBonus: fv.Float("w-chunk-sum"), Doc: fv.Float("w-doc"),
	}
	// NaN and infinities reach SQL arithmetic (bm25 weights, score
	// terms) as NULL or garbage: they are usage errors here
	for _, f := range []string{"w-title", "w-body", "w-annotations", "pinned-boost", "low-confidence-penalty", "low-confidence-below", "w-chunk-sum", "w-doc"} {
		if v := fv.Float(f); math.IsNaN(v) || math.IsInf(v, 0) {
			return o, cli.Usage("--%s %v: want a finite number", f, v)
		}
	}
	for _, f := range []string{"w-title", "w-body", "w-annotations"} {
		if fv.Float(f) < 0 {
			return o, cli.Usage("--%s %v: want 0 or more", f, fv.Float(f))
		}
	}
	o.Snippets = fv.Int("snippets")
	if o.Snippets == 0 {
		o.Snippets = -1
	}
	o.ExpandChunks = fv.Bool("expand-chunks")
	o.AllCopies = fv.Bool("all-copies")
	o.Cut = fv.Float("cut")
	if math.IsNaN(o.Cut) || o.Cut < 0 || o.Cut > 1 {
		return o, cli.Usage("--cut %v: want a share from 0 to 1", o.Cut)
	}
	if fv.Bool("all-matches") {
		if fv.IsSet("cut") && o.Cut != 0 {
			return o, cli.Usage("--all-matches and --cut %v: give one of them", o.Cut)
		}
		o.Cut = 0
	}
	if o.Cut == 0 {
		o.Cut = ledger.EveryMatch // (0 is the default share)
	}
	o.ScanRows = fv.Int("scan-rows")
	if o.ScanRows == 0 || o.ScanRows < -1 {
		return o, cli.Usage("--scan-rows %d: want 1 or more, or -1", o.ScanRows)
	}
	var err error
	if o.Decay, err = Decay(c); err != nil {
		return o, err
	}
	d, err := ledger.ParseDuration(fv.String("stale-after"))
	if err != nil {
		return o, cli.Usage("--stale-after: %v", err)
	}
	o.StaleAfter = d
	r := Request(c)
	r.Mode, r.SemanticWeight = Ranking(c)
	switch {
	case fv.Bool("archived") && fv.Bool("only-archived"):
		return o, cli.Usage("--archived and --only-archived: give one")
	case fv.Bool("archived"):
		r.Archived = "any"
	case fv.Bool("only-archived"):
		r.Archived = "only"
	}
	o, err = r.Options(o, now)
	return o, RequestError(err)
}

// Decay reads --decay-below, --decay-after and --no-decay: a flag given
// replaces its half of the ledger's decay policy (ledger.DecayOptions);
// none given, the policy applies.
func Decay(c *ucli.Command) (ledger.DecayOptions, error) {
	fv := cli.Flags(c)
	var o ledger.DecayOptions
	if v := fv.Float("decay-below"); math.IsNaN(v) || v < 0 || v > 1 {
		return o, cli.Usage("--decay-below %v: want a confidence from 0 to 1", v)
	}
	if fv.IsSet("decay-below") {
		v := fv.Float("decay-below")
		o.Below = &v
	}
	if fv.IsSet("decay-after") {
		d, err := ledger.ParseDuration(fv.String("decay-after"))
		if err != nil {
			return o, cli.Usage("--decay-after: %v", err)
		}
		o.After = &d
	}
	if fv.Bool("no-decay") {
		if o.Below != nil || o.After != nil {
			return o, cli.Usage("--no-decay with --decay-below or --decay-after: give one")
		}
		o.Off = true
	}
	return o, nil
}
