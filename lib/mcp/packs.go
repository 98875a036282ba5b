package mcp

// The reuse tools: cite and stats, and the memory-pack tools pack_save,
// pack_show, pack_refresh and pack_list (one tool per action, as the
// item tools are: each has its own required arguments and its own
// read-only or write annotation).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/linkledger/linkledger/lib/brief"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
)

// Size caps of the reuse and pack results (docs/agents.md).
const (
	// MaxStatsLimit is the longest most_reused list stats returns.
	MaxStatsLimit = 20
	// PackCapTokens bounds a pack_save, pack_refresh or pack_show result:
	// the brief's pointers, then its items, are left out from the bottom
	// until it fits (truncated: true).
	PackCapTokens = 12000
	// PackListCapTokens bounds a pack_list result: packs past it are left
	// out from the end (truncated: true).
	PackListCapTokens = 4000
)

// CiteInput is the cite tool's input.
type CiteInput struct {
	Item  string `json:"item" jsonschema:"item id or URL"`
	Task  string `json:"task" jsonschema:"the work it was used in (a draft, an answer; a pack's name), one line"`
	Actor string `json:"actor,omitempty" jsonschema:"agent:NAME (default agent:CLIENT)"`
}

// CiteOutput is the cite tool's result.
type CiteOutput struct {
	Citation *record.Citation `json:"citation" jsonschema:"the citation recorded: id, item_id, url, title, task, actor, at"`
}

// StatsInput is the stats tool's input.
type StatsInput struct {
	Since string `json:"since,omitempty" jsonschema:"period start: RFC 3339, YYYY-MM-DD, today, yesterday, a span ago (12h, 30d, 2w, 3mo, 1y) or all (default 30d)"`
	Until string `json:"until,omitempty" jsonschema:"period end, same forms (default now)"`
	Limit int    `json:"limit,omitempty" jsonschema:"most reused sources, 1 to 20 (default 10)"`
}

// StatsOutput is the stats tool's result.
type StatsOutput struct {
	Stats *record.UsageStats `json:"stats" jsonschema:"evidence reuse over the period, as linkledger stats: tasks, tasks_reusing, reuse_share (goal reuse_goal), citations, items_saved, items_never_used, most_reused"`
}

// PackSaveInput is the pack_save tool's input.
type PackSaveInput struct {
	Name         string   `json:"name" jsonschema:"the pack's name (its task), one line"`
	Query        string   `json:"query" jsonschema:"the topic or task, in plain words"`
	MaxTokens    int      `json:"max_tokens,omitempty" jsonschema:"token budget, 1 to 8000 (default 2000)"`
	MaxItems     int      `json:"max_items,omitempty" jsonschema:"full items, 1 to 20 (default 5)"`
	MaxPointers  *int     `json:"max_pointers,omitempty" jsonschema:"one-line pointers, 0 to 100 (default 24)"`
	PointerWords int      `json:"pointer_words,omitempty" jsonschema:"words of each pointer's best sentence, 0 to 60 (default 0)"`
	Tags         []string `json:"tags,omitempty" jsonschema:"items with all these tags"`
	Type         string   `json:"type,omitempty" jsonschema:"source type: article, x, youtube, pdf or text"`
	Mode         string   `json:"mode,omitempty" jsonschema:"lexical, semantic or hybrid, kept for pack_refresh (default: as find, at each build)"`
	// SemanticWeight is the CLI's --semantic-weight.
	SemanticWeight *float64 `json:"semantic_weight,omitempty" jsonschema:"hybrid: the semantic share, 0 to 1 (default 0.5)"`
	Replace        bool     `json:"replace,omitempty" jsonschema:"save as the next version of a taken name"`
	Actor          string   `json:"actor,omitempty" jsonschema:"agent:NAME (default agent:CLIENT)"`
}

// PackShowInput is the pack_show tool's input.
type PackShowInput struct {
	Name    string `json:"name" jsonschema:"the pack's name"`
	Version int    `json:"version,omitempty" jsonschema:"version (default the latest)"`
}

// PackRefreshInput is the pack_refresh tool's input.
type PackRefreshInput struct {
	Name  string `json:"name" jsonschema:"the pack's name"`
	Actor string `json:"actor,omitempty" jsonschema:"agent:NAME (default agent:CLIENT)"`
}

// PackListInput is the pack_list tool's input (none).
type PackListInput struct{}

// PackOutput is the result of pack_save, pack_refresh and pack_show.
type PackOutput struct {
	Pack      *record.PackInfo `json:"pack" jsonschema:"the pack as linkledger pack show prints it: name, query, options, version, built_at, built_by, entered and left since the version before, and brief (the evidence pack as ll-brief writes it)"`
	Truncated bool             `json:"truncated,omitempty" jsonschema:"true when the brief's pointers or items were left out to stay under the size cap"`
}

// PackListOutput is the pack_list tool's result.
type PackListOutput struct {
	Packs     []record.PackInfo `json:"packs" jsonschema:"every pack by name at its latest version, without its brief"`
	Truncated bool              `json:"truncated,omitempty" jsonschema:"true when packs were left out to stay under the size cap"`
}

func (s *Server) addPackTools() {
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true}
	add := func(name, title, desc string, ann *sdk.ToolAnnotations, out any) *sdk.Tool {
		t := &sdk.Tool{Name: name, Title: title, Description: desc, Annotations: ann}
		switch out.(type) {
		case CiteOutput:
			t.OutputSchema = outputSchema[CiteOutput]()
		case StatsOutput:
			t.OutputSchema = outputSchema[StatsOutput]()
		case PackOutput:
			t.OutputSchema = outputSchema[PackOutput]()
		case PackListOutput:
			t.OutputSchema = outputSchema[PackListOutput]()
		}
		return t
	}
	addTool(s, add("cite", "Record a citation", `Record that a saved item (id or URL) was used in a piece of work (task: a draft, an answer; a pack's name). Cite each item you relied on; stats counts citations to measure reuse.`, nil, CiteOutput{}),
		safe(s, s.cite))
	addTool(s, add("stats", "Evidence reuse statistics", `Evidence reuse over a period (default 30 days): tasks, the share that cited an item saved before the task began (reuse_share, goal reuse_goal), citations, items saved and never cited, and the most reused sources.`, ro, StatsOutput{}),
		safe(s, s.stats))
	addTool(s, add("pack_save", "Save a memory pack", `Build the brief of a query (as brief, with its settings) and save it under a name for a recurring task; pack_refresh rebuilds it later with the same query and settings. A taken name is an error unless replace: true. Cap: about 12000 tokens (pointers, then items, left out: truncated: true).`, nil, PackOutput{}),
		safe(s, s.packSave))
	addTool(s, add("pack_show", "Show a memory pack", `Show a saved memory pack as last built (or a given version): query, settings, version, who built it when, sources that entered and left, and its brief. Nothing is searched. Cap as pack_save.`, ro, PackOutput{}),
		safe(s, s.packShow))
	addTool(s, add("pack_refresh", "Refresh a memory pack", `Build a saved memory pack again with its query and settings against the ledger as it is now, as its next version, saying which sources entered and left (entered, left). Result and cap as pack_show.`, nil, PackOutput{}),
		safe(s, s.packRefresh))
	addTool(s, add("pack_list", "List memory packs", `List the saved memory packs, each at its latest version without its brief. Cap: about 4000 tokens (truncated: true).`, ro, PackListOutput{}),
		safe(s, s.packList))
}

// packError gives the pack and name errors of the service layer their
// codes and a hint in the tools' terms.
func packError(err error) error {
	var npe *ledger.NoPackError
	var pee *ledger.PackExistsError
	var ne *ledger.NameError
	switch {
	case errors.As(err, &npe):
		hint := "list the packs with the pack_list tool, or save one with pack_save"
		if npe.Version > 0 {
			hint = "show its latest version with pack_show and no version"
		}
		return &ToolError{Code: CodeNotFound, Message: npe.Error(), Hint: hint}
	case errors.As(err, &pee):
		return &ToolError{Code: CodeUsage, Message: pee.Error(), Hint: "refresh it with pack_refresh, or save over it with replace: true"}
	case errors.As(err, &ne):
		return &ToolError{Code: CodeUsage, Message: ne.Error()}
	}
	return err
}

func (s *Server) cite(ctx context.Context, req *sdk.CallToolRequest, in CiteInput) (CiteOutput, string, error) {
	a, err := s.actor(req, in.Actor)
	if err != nil {
		return CiteOutput{}, "", err
	}
	if err := ledger.CheckName("task", in.Task); err != nil {
		return CiteOutput{}, "", usage("task: %v", err)
	}
	c, err := s.st.Cite(ctx, in.Item, ledger.CiteOptions{Resolve: s.opt.Resolve, Task: in.Task, Actor: a})
	if err != nil {
		return CiteOutput{}, "", packError(err)
	}
	return CiteOutput{Citation: c}, fmt.Sprintf("citation %d: %s <%s> in task %q by %s at %s\n", c.ID, c.ItemID, c.URL, c.Task, c.Actor, c.At), nil
}

func (s *Server) stats(ctx context.Context, _ *sdk.CallToolRequest, in StatsInput) (StatsOutput, string, error) {
	now := time.Now().UTC()
	var o ledger.StatsOptions
	var err error
	since := in.Since
	if strings.TrimSpace(since) == "" {
		since = "30d"
	}
	if since == "all" {
		since = ""
	}
	if o.Since, o.Until, err = ledger.ParseSpan(since, in.Until, now); err != nil {
		return StatsOutput{}, "", usage("%v", err)
	}
	if in.Limit < 0 || in.Limit > MaxStatsLimit {
		return StatsOutput{}, "", usage("limit %d: want 1..%d", in.Limit, MaxStatsLimit)
	}
	o.Limit = in.Limit
	u, err := s.rd.Stats(ctx, o)
	if err != nil {
		return StatsOutput{}, "", err
	}
	if u.MostReused == nil {
		u.MostReused = []record.UsageSource{}
	}
	return StatsOutput{Stats: u}, statsText(u), nil
}

func (s *Server) packSave(ctx context.Context, req *sdk.CallToolRequest, in PackSaveInput) (PackOutput, string, error) {
	a, err := s.actor(req, in.Actor)
	if err != nil {
		return PackOutput{}, "", err
	}
	o := ledger.DefaultPackOptions()
	if in.MaxTokens != 0 {
		o.MaxTokens = in.MaxTokens
	}
	if in.MaxItems != 0 {
		o.MaxItems = in.MaxItems
	}
	if in.MaxPointers != nil {
		o.MaxPointers = *in.MaxPointers
	}
	o.PointerWords, o.Tags, o.Type, o.Mode, o.SemanticWeight = in.PointerWords, in.Tags, in.Type, in.Mode, in.SemanticWeight
	if err := briefLimits(ledger.BriefLimits{MaxTokens: o.MaxTokens, MaxItems: o.MaxItems, MaxPointers: o.MaxPointers, PointerWords: o.PointerWords}); err != nil {
		return PackOutput{}, "", err
	}
	if err := ledger.CheckPackOptions(o); err != nil {
		return PackOutput{}, "", usage("%v", err)
	}
	if err := ledger.CheckName("pack", in.Name); err != nil {
		return PackOutput{}, "", usage("name: %v", err)
	}
	q := strings.TrimSpace(in.Query)
	if q == "" {
		return PackOutput{}, "", usage("query: give the topic or task the pack gathers evidence for")
	}
	p, err := s.st.SavePack(ctx, in.Name, q, o, ledger.PackWriteOptions{Actor: a, Replace: in.Replace, Embedder: s.opt.Embedder})
	return packResult(p, err)
}

func (s *Server) packRefresh(ctx context.Context, req *sdk.CallToolRequest, in PackRefreshInput) (PackOutput, string, error) {
	a, err := s.actor(req, in.Actor)
	if err != nil {
		return PackOutput{}, "", err
	}
	if err := ledger.CheckName("pack", in.Name); err != nil {
		return PackOutput{}, "", usage("name: %v", err)
	}
	p, err := s.st.RefreshPack(ctx, in.Name, ledger.PackWriteOptions{Actor: a, Embedder: s.opt.Embedder})
	return packResult(p, err)
}

func (s *Server) packShow(ctx context.Context, _ *sdk.CallToolRequest, in PackShowInput) (PackOutput, string, error) {
	if err := ledger.CheckName("pack", in.Name); err != nil {
		return PackOutput{}, "", usage("name: %v", err)
	}
	if in.Version < 0 {
		return PackOutput{}, "", usage("version %d: want 1 or more", in.Version)
	}
	p, err := s.rd.ShowPack(ctx, in.Name, in.Version)
	return packResult(p, err)
}

func (s *Server) packList(ctx context.Context, _ *sdk.CallToolRequest, _ PackListInput) (PackListOutput, string, error) {
	ps, err := s.rd.ListPacks(ctx)
	if err != nil {
		return PackListOutput{}, "", err
	}
	out := PackListOutput{Packs: ps}
	if out.Packs == nil {
		out.Packs = []record.PackInfo{}
	}
	for len(out.Packs) > 0 && tokensOf(out) > PackListCapTokens {
		out.Packs = out.Packs[:len(out.Packs)-1]
		out.Truncated = true
	}
	var b strings.Builder
	if len(out.Packs) == 0 {
		b.WriteString("no packs\n")
	}
	for i := range out.Packs {
		b.WriteString(packLine(&out.Packs[i]))
	}
	if out.Truncated {
		b.WriteString("(more packs left out to stay under the size cap)\n")
	}
	return out, b.String(), nil
}

// packResult makes the result of a pack, cut to PackCapTokens: the
// brief's pointers, then its items, are left out from the bottom.
func packResult(p *record.PackInfo, err error) (PackOutput, string, error) {
	if err != nil {
		return PackOutput{}, "", packError(err)
	}
	out := PackOutput{Pack: p}
	var bp brief.Pack
	if len(p.Brief) > 0 && json.Unmarshal(p.Brief, &bp) == nil {
		for tokensOf(out) > PackCapTokens && len(bp.Pointers)+len(bp.Items) > 0 {
			if len(bp.Pointers) > 0 {
				bp.Pointers = bp.Pointers[:len(bp.Pointers)-1]
			} else {
				bp.Items = bp.Items[:len(bp.Items)-1]
			}
			raw, err := json.Marshal(&bp)
			if err != nil {
				return PackOutput{}, "", err
			}
			p.Brief, out.Truncated = raw, true
		}
	}
	return out, packText(p, &bp), nil
}
