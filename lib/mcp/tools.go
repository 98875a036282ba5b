package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/linkledger/linkledger/lib/brief"
	"github.com/linkledger/linkledger/lib/canon"
	"github.com/linkledger/linkledger/lib/chunk"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// Size caps of the results (docs/agents.md), in cl100k_base tokens of the
// structured result as JSON.
const (
	// MaxFindItems is the most items find and related return per call.
	MaxFindItems = 20
	// FindCapTokens bounds a find or related result: items are left out
	// from the bottom until it fits (truncated: true).
	FindCapTokens = 4000
	// MaxBriefTokens is the largest max_tokens brief takes.
	MaxBriefTokens = 8000
	// ShowCapTokens bounds a show result: text chunks, then the oldest
	// annotations past the first are left out until it fits.
	ShowCapTokens = 8000
	// DefaultShowTextTokens is show's text budget when text is asked for.
	DefaultShowTextTokens = 2000
	// MaxSaveWait is the longest save waits for the item to be ingested
	// (its wait argument, in seconds).
	MaxSaveWait = 30
)

// FindInput is the find tool's input.
type FindInput struct {
	Query    string   `json:"query,omitempty" jsonschema:"plain words; optionally \"phrase\", -word, tag:T, site:HOST, type:TYPE, after:2w, before:2026-01-01, is:pinned|archived|failed|starred|read|unread, has:highlights|notes, by:agent:NAME. Empty or only qualifiers: the newest items"`
	Tags     []string `json:"tags,omitempty" jsonschema:"items with all these tags"`
	Type     string   `json:"type,omitempty" jsonschema:"source type: article, x, youtube, pdf or text"`
	Since    string   `json:"since,omitempty" jsonschema:"saved at or after: RFC 3339, YYYY-MM-DD, today, yesterday, or a span ago (12h, 30d, 2w, 3mo, 1y)"`
	Until    string   `json:"until,omitempty" jsonschema:"saved before (the forms of since)"`
	Limit    int      `json:"limit,omitempty" jsonschema:"1 to 20 (default 10)"`
	Offset   int      `json:"offset,omitempty" jsonschema:"items to skip (next page)"`
	Archived bool     `json:"archived,omitempty" jsonschema:"include archived items (archived items alone: is:archived in the query)"`
	Mode     string   `json:"mode,omitempty" jsonschema:"lexical, semantic or hybrid (default: hybrid when the ledger holds vectors, else lexical)"`
	// AllMatches is the CLI's --all-matches.
	AllMatches bool `json:"all_matches,omitempty" jsonschema:"keep weak matches (below 0.3 of the best score)"`
}

// FindItem is one item of a find or related result: what a pack item
// shows (brief.Item), plus its copies and, for related, why it is related.
type FindItem struct {
	brief.Item
	Copies  []record.Copy      `json:"copies,omitempty" jsonschema:"other items with the same text (other URLs)"`
	Related *record.RelatedWhy `json:"related,omitempty" jsonschema:"why the item is related: shared tags and terms"`
	// Pending says the item has no text yet: found by its URL, note or
	// tags only.
	Pending string `json:"pending,omitempty" jsonschema:"set when the item is not ingested yet: not fetched yet (found by URL, note and tags only)"`
}

// FindOutput is the find and related tools' result.
type FindOutput struct {
	Items []FindItem `json:"items" jsonschema:"the items, best first"`
	// Truncated says items were left out to keep the result under its cap.
	Truncated    bool     `json:"truncated,omitempty" jsonschema:"true when items were left out to stay under the size cap; ask for fewer (limit) or page with offset"`
	DroppedTerms []string `json:"dropped_terms,omitempty" jsonschema:"query words left out of the search (stopwords, words too common to rank)"`
	Next         string   `json:"next,omitempty" jsonschema:"the obvious next step, in one line (docs/agents.md)"`
	// Mode and Warnings: the ranking used when not lexical, and why it
	// is lexical when another was asked for or could not be had.
	Mode     string   `json:"mode,omitempty" jsonschema:"the ranking used when it is semantic or hybrid"`
	Warnings []string `json:"warnings,omitempty" jsonschema:"why the ranking is lexical although semantic ranking was asked for or configured (no endpoint, no vectors of the model, the endpoint failing)"`
}

// BriefInput is the brief tool's input.
type BriefInput struct {
	Query     string   `json:"query" jsonschema:"the topic or task, in plain words (find's qualifiers work)"`
	MaxTokens int      `json:"max_tokens,omitempty" jsonschema:"token budget (cl100k_base), 1 to 8000 (default 2000)"`
	MaxItems  int      `json:"max_items,omitempty" jsonschema:"full items, 1 to 20 (default 5)"`
	Tags      []string `json:"tags,omitempty" jsonschema:"items with all these tags"`
	Type      string   `json:"type,omitempty" jsonschema:"source type: article, x, youtube, pdf or text"`
	Since     string   `json:"since,omitempty" jsonschema:"saved at or after: RFC 3339, YYYY-MM-DD, today, yesterday, or a span ago (12h, 30d, 2w, 3mo, 1y)"`
	Until     string   `json:"until,omitempty" jsonschema:"saved before (the forms of since)"`
	Mode      string   `json:"mode,omitempty" jsonschema:"lexical, semantic or hybrid (default as find)"`
	// AllMatches is the CLI's --all-matches.
	AllMatches bool `json:"all_matches,omitempty" jsonschema:"keep weak matches (below 0.3 of the best score)"`
}

// BriefOutput is the brief tool's result: the evidence pack as ll-brief
// writes it, and the next step.
type BriefOutput struct {
	*brief.Pack
	Next string `json:"next,omitempty" jsonschema:"the obvious next step, in one line (docs/agents.md)"`
	// Mode and Warnings: as FindOutput's.
	Mode     string   `json:"mode,omitempty" jsonschema:"the ranking used when it is semantic or hybrid"`
	Warnings []string `json:"warnings,omitempty" jsonschema:"why the ranking is lexical although semantic ranking was asked for or configured (no endpoint, no vectors of the model, the endpoint failing)"`
}

// SaveInput is the save tool's input.
type SaveInput struct {
	URL   string   `json:"url" jsonschema:"http or https URL (local files are refused)"`
	Note  string   `json:"note,omitempty" jsonschema:"why it is worth keeping"`
	Tags  []string `json:"tags,omitempty" jsonschema:"tags to add"`
	Actor string   `json:"actor,omitempty" jsonschema:"agent:NAME (default agent:CLIENT)"`
	Wait  int      `json:"wait,omitempty" jsonschema:"seconds to wait for the fetch and index, 0 to 30 (default 0)"`
}

// AnnotateInput is the annotate tool's input.
type AnnotateInput struct {
	Item       string   `json:"item" jsonschema:"item id or URL"`
	Type       string   `json:"type,omitempty" jsonschema:"highlight (default), lowlight or note"`
	Text       string   `json:"text" jsonschema:"highlight or lowlight: an exact quote of the item's text; note: your words"`
	Confidence *float64 `json:"confidence,omitempty" jsonschema:"0 to 1 (default 0.5)"`
	Pinned     bool     `json:"pinned,omitempty" jsonschema:"pin the highlight"`
	Actor      string   `json:"actor,omitempty" jsonschema:"agent:NAME (default agent:CLIENT)"`
}

// TagInput is the tag tool's input.
type TagInput struct {
	Item   string   `json:"item" jsonschema:"item id or URL"`
	Add    []string `json:"add,omitempty" jsonschema:"tags to add"`
	Remove []string `json:"remove,omitempty" jsonschema:"tags to remove"`
	Star   *bool    `json:"star,omitempty" jsonschema:"true stars the item (is:starred), false unstars it"`
	Actor  string   `json:"actor,omitempty" jsonschema:"agent:NAME (default agent:CLIENT)"`
}

// PinInput is the pin tool's input.
type PinInput struct {
	Item         string `json:"item" jsonschema:"item id or URL"`
	AnnotationID int64  `json:"annotation_id" jsonschema:"the highlight's annotation id"`
	Unpin        bool   `json:"unpin,omitempty" jsonschema:"unpin instead"`
	Actor        string `json:"actor,omitempty" jsonschema:"agent:NAME (default agent:CLIENT)"`
}

// ShowInput is the show tool's input.
type ShowInput struct {
	Item          string `json:"item" jsonschema:"item id or URL"`
	Text          bool   `json:"text,omitempty" jsonschema:"add its text (chunks in order)"`
	MaxTextTokens int    `json:"max_text_tokens,omitempty" jsonschema:"text budget, 1 to 8000 (default 2000)"`
}

// ShowOutput is the show tool's result.
type ShowOutput struct {
	Item      *record.Record `json:"item" jsonschema:"everything stored about the item: metadata, ingest status, tags with who added them, annotations with their ids, artifacts, and with text its chunks"`
	Truncated bool           `json:"truncated,omitempty" jsonschema:"true when text chunks or annotations were left out to stay under the size cap"`
	Next      string         `json:"next,omitempty" jsonschema:"the obvious next step, in one line (docs/agents.md)"`
}

// StatusInput is the status tool's input.
type StatusInput struct {
	Item string `json:"item,omitempty" jsonschema:"item id or URL; empty: the ledger"`
}

// StatusOutput is the status tool's result.
type StatusOutput struct {
	DB      string         `json:"db" jsonschema:"the database file"`
	Items   int            `json:"items" jsonschema:"the number of saved items"`
	Item    *record.Record `json:"item,omitempty" jsonschema:"the item's ingest status (ingest.status: saved, fetched, parsed, enriched or failed; attempts, last error, counts)"`
	Pending int            `json:"pending" jsonschema:"items waiting to be fetched and indexed"`
	Next    string         `json:"next,omitempty" jsonschema:"the obvious next step, in one line (docs/agents.md)"`
}

// RelatedInput is the related tool's input.
type RelatedInput struct {
	Item  string `json:"item" jsonschema:"item id or URL"`
	Limit int    `json:"limit,omitempty" jsonschema:"1 to 20 (default 10)"`
}

// SaveOutput is the result of save, annotate, tag and pin.
type SaveOutput struct {
	Item *record.Record `json:"item" jsonschema:"the item's id, url, canonical_url, source_type, status, new, and save: what was done (tags_added, annotation_ids, displaced, ...); after a wait, its title and ingest status"`
	Next string         `json:"next,omitempty" jsonschema:"the obvious next step, in one line (docs/agents.md)"`
}

func (s *Server) addTools() {
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true}
	add := func(name, title, desc string, ann *sdk.ToolAnnotations) *sdk.Tool {
		t := &sdk.Tool{Name: name, Title: title, Description: desc, Annotations: ann}
		switch name {
		case "save", "annotate", "tag", "pin":
			t.OutputSchema = outputSchema[SaveOutput]()
		case "show":
			t.OutputSchema = outputSchema[ShowOutput]()
		case "status":
			t.OutputSchema = outputSchema[StatusOutput]()
		}
		return t
	}
	addTool(s, add("find", "Search saved links", `Search the user's saved links (articles, posts, videos, PDFs), best first: each item with id, url, title, tags, score, why_ranked, highlights, lowlights and notes (actor, confidence), and snippets. Words are OR-ed and stemmed. Weak matches (below 0.3 of the best score) are left out unless all_matches. No query: the newest items. Cite an item by id and url. Cap: 20 items, about 4000 tokens (truncated: true).`, ro),
		safe(s, s.find))
	addTool(s, add("brief", "Evidence pack for a topic", `Evidence pack for a topic or task under a token budget: the best items with url, highlights, notes, summary and passages (whole sentences with chunk_index, start, end: quote them verbatim), then one-line pointers to weaker matches. Weak matches are left out as in find. Over budget, the least valuable evidence goes first ("dropped" says what). max_tokens (default 2000, at most 8000) is counted with cl100k_base.`, ro),
		safe(s, s.brief))
	addTool(s, add("save", "Save a link", `Save a URL with an optional note and tags. Instant, no network: the ledger's worker fetches and indexes it later (status shows when). Saving a URL again (any form of it) returns the same id with new: false and adds the note and tags.`, &sdk.ToolAnnotations{IdempotentHint: true}),
		safe(s, s.save))
	addTool(s, add("annotate", "Annotate an item", `Add a highlight (a key claim), lowlight (a weak or wrong part) or note to an item, with your confidence. A highlight or lowlight must quote the item's text exactly, or it is refused (quote_not_found) with the closest passage as hint; your own words go in a note. Agent highlights are capped per item (5): past it the lowest-confidence unpinned one is displaced (save.displaced). Result: the item with save.annotation_ids.`, nil),
		safe(s, s.annotate))
	addTool(s, add("tag", "Tag an item", `Add and remove tags on a saved item; star: true stars it, false unstars it. Result: the item with save.tags_added and save.tags_removed.`, &sdk.ToolAnnotations{IdempotentHint: true}),
		safe(s, s.tag))
	addTool(s, add("pin", "Pin a highlight", `Pin (or unpin) one highlight by its annotation id (from show or annotate): a pinned highlight is never displaced and boosts its item in search.`, &sdk.ToolAnnotations{IdempotentHint: true}),
		safe(s, s.pin))
	addTool(s, add("show", "Show one item", `Everything stored about one item: metadata, ingest status, tags, annotations with their ids, and with text: true its text (chunks in order, up to max_text_tokens). Cap: about 8000 tokens (truncated: true).`, ro),
		safe(s, s.show))
	addTool(s, add("status", "Ledger or item status", `With an item: its ingest status (saved, fetched, parsed, enriched or failed; attempts, last error, counts). Without: the database path, the number of items and how many wait to be fetched.`, ro),
		safe(s, s.status))
	addTool(s, add("related", "Items related to an item", `Items related to a saved item by content (its most distinctive terms) and shared tags, best first, with related.shared_tags and related.terms; weak neighbours are left out. Items and cap as find.`, ro),
		safe(s, s.related))
	s.addPackTools()
	s.addOverviewTool()
}

// safe wraps a handler: a panic becomes a tool error instead of ending the
// server, and every error becomes a ToolError with the CLI's message.
func safe[In, Out any](s *Server, h func(context.Context, *sdk.CallToolRequest, In) (Out, string, error)) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (res *sdk.CallToolResult, out Out, err error) {
		defer func() {
			if p := recover(); p != nil {
				var zero Out
				res, out, err = nil, zero, &ToolError{Code: CodeInternal, Message: fmt.Sprint("the server failed on this call: ", p)}
			}
		}()
		out, text, err := h(ctx, req, in)
		if err != nil {
			var zero Out
			return nil, zero, toolError(err, s.st.Path(), s.opt.BusyTimeout)
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
	}
}

// actorRe matches the characters an agent name may have.
var actorRe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// actor returns the actor a write is made by: the one given, else
// agent:NAME from the client's name in the handshake (actorFor).
func (s *Server) actor(req *sdk.CallToolRequest, given string) (string, error) {
	if s.opt.Caller != nil {
		// the token's actor, whatever the call says (scoped refused a
		// call without one before it got here)
		if who, _, ok := s.opt.Caller(req); ok {
			return who, nil
		}
		return "", &ToolError{Code: CodeForbidden, Message: "the call has no token"}
	}
	name := ""
	if req != nil && req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
			name = p.ClientInfo.Name
		}
	}
	return actorFor(name, given, s.opt.AllowHumanActor)
}

// actorFor is the actor of a write by the client named client: given when
// set, else agent: and the client's name with every run of characters an
// actor name may not have (letters, digits, . _ -) turned into "-", at
// most 64 of them; agent:mcp when nothing is left. An MCP client speaks
// as an agent: given must be agent:NAME, and human is refused (a usage
// error saying so) unless allowHuman (linkledger mcp --allow-human-actor):
// a person's words weigh more (ranking, merges, review, decay) and are
// never displaced, and any client can say "human" (docs/agents.md "Actor").
func actorFor(client, given string, allowHuman bool) (string, error) {
	if given != "" {
		if !record.ValidActor(given) {
			return "", usage("actor %q: want agent:<name>", given)
		}
		if given == spec.ActorHuman && !allowHuman {
			return "", &ToolError{Code: CodeUsage,
				Message: fmt.Sprintf("actor %q: an MCP client writes as agent:<name>; this server does not take human", given),
				Hint:    "leave actor out (agent:CLIENT) or give agent:<name>; only a server started with linkledger mcp --allow-human-actor takes human"}
		}
		return given, nil
	}
	name := strings.Trim(actorRe.ReplaceAllString(client, "-"), "-._")
	if len(name) > 64 {
		name = strings.TrimRight(name[:64], "-._")
	}
	if name == "" {
		name = "mcp"
	}
	return "agent:" + name, nil
}

// findOptions reads the shared search arguments.
func findOptions(limit, offset int, tags []string, typ, since, until, mode string, archived bool) (ledger.FindOptions, error) {
	o := ledger.FindOptions{Tags: tags, Type: typ, Limit: limit, Offset: offset, StaleAfter: 30 * 24 * time.Hour}
	if limit < 0 || limit > MaxFindItems {
		return o, usage("limit %d: want 1..%d", limit, MaxFindItems)
	}
	if offset < 0 {
		return o, usage("offset %d: want 0 or more", offset)
	}
	r := ledger.FindRequest{Tags: tags, Type: typ, Since: since, Until: until, Mode: mode}
	if archived {
		r.Archived = "any"
	}
	o, err := r.Options(o, time.Now())
	if err != nil {
		return o, usage("%v", err)
	}
	return o, nil
}

func (s *Server) find(ctx context.Context, _ *sdk.CallToolRequest, in FindInput) (FindOutput, string, error) {
	o, err := findOptions(in.Limit, in.Offset, in.Tags, in.Type, in.Since, in.Until, in.Mode, in.Archived)
	if err != nil {
		return FindOutput{}, "", err
	}
	o.Query = strings.TrimSpace(in.Query)
	allMatches(&o, in.AllMatches)
	o.Embedder = s.opt.Embedder
	res, err := s.rd.Find(ctx, o)
	if err != nil {
		return FindOutput{}, "", err
	}
	out := findOutput(res)
	out.Mode, out.Warnings = ranking(res.Mode, res.Warnings)
	out.Next = s.findNext(ctx, o.Query, in.Offset, out)
	return out, findText(out), nil
}

func (s *Server) related(ctx context.Context, _ *sdk.CallToolRequest, in RelatedInput) (FindOutput, string, error) {
	o, err := findOptions(in.Limit, 0, nil, "", "", "", "", false)
	if err != nil {
		return FindOutput{}, "", err
	}
	o.Embedder = s.opt.Embedder
	res, err := s.rd.Related(ctx, in.Item, o, s.opt.Resolve)
	if err != nil {
		return FindOutput{}, "", err
	}
	out := findOutput(res)
	out.Mode, out.Warnings = ranking(res.Mode, res.Warnings)
	if len(out.Items) > 0 {
		out.Next = s.findNext(ctx, "", 0, out)
	}
	return out, findText(out), nil
}

// allMatches keeps every match of a find or brief call, however weak,
// when all is set: the CLI's --all-matches.
func allMatches(o *ledger.FindOptions, all bool) {
	if all {
		o.Cut = ledger.EveryMatch
	}
}

// briefLimits checks a brief's sizes (ledger.CheckBriefLimits), and
// max_tokens against MaxBriefTokens: the bound of this server's answer.
func briefLimits(lim ledger.BriefLimits) error {
	if err := ledger.CheckBriefLimits(lim); err != nil {
		return usage("%v", err)
	}
	if lim.MaxTokens > MaxBriefTokens {
		return usage("max_tokens %d: want 1..%d", lim.MaxTokens, MaxBriefTokens)
	}
	return nil
}

// ranking is the mode and warnings of a result: the mode when it is not
// lexical (a lexical result says nothing of it), the warnings as given.
func ranking(mode string, warnings []string) (string, []string) {
	if mode == spec.ModeLexical {
		mode = ""
	}
	return mode, warnings
}

// findOutput makes the result of hits, cut to FindCapTokens.
func findOutput(res *ledger.FindResult) FindOutput {
	out := FindOutput{Items: []FindItem{}, DroppedTerms: res.Dropped}
	for _, h := range res.Hits {
		it := FindItem{Item: brief.FromRecord(h), Copies: h.Copies}
		if h.Hit != nil {
			it.Related = h.Hit.Related
			if h.Hit.IngestState == record.StateSaved {
				it.Pending = "not fetched yet"
			}
		}
		out.Items = append(out.Items, it)
	}
	for len(out.Items) > 0 && tokensOf(out) > FindCapTokens {
		out.Items = out.Items[:len(out.Items)-1]
		out.Truncated = true
	}
	return out
}

func tokensOf(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return chunk.CountTokens(string(b))
}

func (s *Server) brief(ctx context.Context, _ *sdk.CallToolRequest, in BriefInput) (*BriefOutput, string, error) {
	q := strings.TrimSpace(in.Query)
	if q == "" {
		return nil, "", usage("query: give the topic or task to gather evidence for")
	}
	lim := ledger.BriefLimits{MaxTokens: in.MaxTokens, MaxItems: in.MaxItems, MaxPointers: brief.DefaultMaxPointers}
	if lim.MaxTokens == 0 {
		lim.MaxTokens = brief.DefaultMaxTokens
	}
	if lim.MaxItems == 0 {
		lim.MaxItems = brief.DefaultMaxItems
	}
	if err := briefLimits(lim); err != nil {
		return nil, "", err
	}
	o, err := findOptions(in.MaxItems, 0, in.Tags, in.Type, in.Since, in.Until, in.Mode, false)
	if err != nil {
		return nil, "", err
	}
	o.Query = q
	allMatches(&o, in.AllMatches)
	o.Embedder = s.opt.Embedder
	res, err := s.rd.Brief(ctx, ledger.BriefOptions{Find: o, MaxItems: in.MaxItems, MaxTokens: in.MaxTokens})
	if err != nil {
		return nil, "", err
	}
	if res.Pack.Items == nil {
		res.Pack.Items = []brief.Item{}
	}
	out := &BriefOutput{Pack: res.Pack}
	out.Mode, out.Warnings = ranking(res.Mode, res.Warnings)
	var best ledger.Best
	if len(res.Pack.Items) > 0 {
		best = ledger.BestPacked(res.Pack.Items[0])
	}
	out.Next = joinNext(ledger.AbsentLine(s.rd.Absent(ctx, q, len(res.Pack.Items), best)),
		searchStep(ledger.SearchNext(q, len(res.Pack.Items), best, false), "no evidence"), s.pendingNext(ctx))
	return out, briefText(res.Pack) + warningLines(out.Warnings) + nextLine(out.Next), nil
}

func (s *Server) saveOptions(req *sdk.CallToolRequest, given string) (ledger.SaveOptions, error) {
	a, err := s.actor(req, given)
	return ledger.SaveOptions{Resolve: s.opt.Resolve, Actor: a, AgentHighlightCap: s.opt.AgentHighlightCap}, err
}

func (s *Server) save(ctx context.Context, req *sdk.CallToolRequest, in SaveInput) (SaveOutput, string, error) {
	opt, err := s.saveOptions(req, in.Actor)
	if err != nil {
		return SaveOutput{}, "", err
	}
	if ledger.IsItemID(strings.TrimSpace(in.URL)) {
		return SaveOutput{}, "", usage("url %q: an item id; save takes a URL (annotate and tag take an id)", in.URL)
	}
	// an agent saves web links only, by the remote faces' one rule
	// (ledger.RemoteURL, which never looks at the file system); the
	// messages say so in MCP's terms
	u, err := ledger.RemoteURL(in.URL)
	switch {
	case errors.Is(err, canon.ErrLocalFile):
		return SaveOutput{}, "", &ToolError{Code: record.CodeFileNotAllowed,
			Message: fmt.Sprintf("url %s: local files are not allowed from MCP (nothing was looked at); save takes an http or https URL", shortQuote(in.URL)),
			Hint:    "a person can save a local file with: ll-save PATH"}
	case errors.Is(err, canon.ErrUnsupportedScheme):
		return SaveOutput{}, "", &ToolError{Code: record.CodeUnsupported, Message: fmt.Sprintf("url %s: %v; save takes an http or https URL", shortQuote(in.URL), err)}
	case errors.Is(err, canon.ErrNotInput):
		return SaveOutput{}, "", &ToolError{Code: record.CodeBadInput, Message: fmt.Sprintf("url %s: not a URL; save takes an http or https URL", shortQuote(in.URL))}
	case err != nil:
		return SaveOutput{}, "", &ToolError{Code: record.CodeBadURL, Message: fmt.Sprintf("url %s: not an http or https URL", shortQuote(in.URL))}
	}
	if in.Wait < 0 || in.Wait > MaxSaveWait {
		return SaveOutput{}, "", usage("wait %d: want 0..%d seconds", in.Wait, MaxSaveWait)
	}
	rec, err := s.st.Save(ctx, &record.Record{URL: u, Note: in.Note, Tags: in.Tags}, opt)
	if err != nil {
		return SaveOutput{}, "", err
	}
	if s.opt.Worker != nil && !ingested(rec.Status) {
		s.opt.Worker()
	}
	waited := time.Duration(0)
	if in.Wait > 0 && !ingested(rec.Status) {
		start := time.Now()
		st, err := s.waitIngested(ctx, rec.ID, time.Duration(in.Wait)*time.Second)
		if err != nil {
			return SaveOutput{}, "", err
		}
		waited = time.Since(start).Round(time.Second)
		// the save's record, with what the wait saw: title and ingest
		rec.Status, rec.Title = ingestStatus(st), st.Title
		if rec.Extra == nil {
			rec.Extra = map[string]json.RawMessage{}
		}
		rec.Extra["ingest"] = st.Extra["ingest"]
	}
	out := SaveOutput{Item: rec, Next: s.saveNext(ctx, rec, waited)}
	return out, saveText(rec) + nextLine(out.Next), nil
}

// shortQuote quotes at most 200 bytes of an argument for a message.
func shortQuote(s string) string {
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return strconv.Quote(s)
}

func (s *Server) annotate(ctx context.Context, req *sdk.CallToolRequest, in AnnotateInput) (SaveOutput, string, error) {
	opt, err := s.saveOptions(req, in.Actor)
	if err != nil {
		return SaveOutput{}, "", err
	}
	typ := in.Type
	if typ == "" {
		typ = record.AnnHighlight
	}
	if err := record.CheckAnnotationType(typ); err != nil {
		return SaveOutput{}, "", usage("%v", err)
	}
	if c := in.Confidence; c != nil {
		if err := record.CheckConfidence(*c); err != nil {
			return SaveOutput{}, "", usage("%v", err)
		}
	}
	if in.Pinned && typ != record.AnnHighlight {
		return SaveOutput{}, "", usage("pinned: only a highlight is pinned")
	}
	a := record.Annotation{Type: typ, Text: in.Text, Actor: opt.Actor, Confidence: in.Confidence, Pinned: in.Pinned}
	rec, err := s.st.Annotate(ctx, in.Item, []record.Annotation{a}, opt)
	return saveResult(rec, err)
}

func (s *Server) tag(ctx context.Context, req *sdk.CallToolRequest, in TagInput) (SaveOutput, string, error) {
	opt, err := s.saveOptions(req, in.Actor)
	if err != nil {
		return SaveOutput{}, "", err
	}
	var rec *record.Record
	if len(in.Add) > 0 || len(in.Remove) > 0 || in.Star == nil {
		if rec, err = s.st.Tag(ctx, in.Item, in.Add, in.Remove, opt); err != nil {
			return SaveOutput{}, "", err
		}
	}
	if in.Star != nil {
		starred, err := s.st.Star(ctx, in.Item, *in.Star, ledger.WriteOptions{Resolve: opt.Resolve, Actor: opt.Actor})
		if err != nil {
			return SaveOutput{}, "", err
		}
		if rec == nil {
			rec = starred
		} else {
			rec.Change, rec.Reading = starred.Change, starred.Reading
		}
	}
	return saveResult(rec, nil)
}

func (s *Server) pin(ctx context.Context, req *sdk.CallToolRequest, in PinInput) (SaveOutput, string, error) {
	opt, err := s.saveOptions(req, in.Actor)
	if err != nil {
		return SaveOutput{}, "", err
	}
	if in.AnnotationID < 1 {
		return SaveOutput{}, "", usage("annotation_id %d: want an annotation id (a number from show)", in.AnnotationID)
	}
	rec, err := s.st.Pin(ctx, in.Item, in.AnnotationID, !in.Unpin, opt)
	return saveResult(rec, err)
}

func saveResult(rec *record.Record, err error) (SaveOutput, string, error) {
	if err != nil {
		return SaveOutput{}, "", err
	}
	return SaveOutput{Item: rec}, saveText(rec), nil
}

func (s *Server) show(ctx context.Context, _ *sdk.CallToolRequest, in ShowInput) (ShowOutput, string, error) {
	budget := in.MaxTextTokens
	if budget == 0 {
		budget = DefaultShowTextTokens
	}
	if budget < 1 || budget > ShowCapTokens {
		return ShowOutput{}, "", usage("max_text_tokens %d: want 1..%d", in.MaxTextTokens, ShowCapTokens)
	}
	rec, err := s.rd.Show(ctx, in.Item, ledger.ShowOptions{Resolve: s.opt.Resolve, Text: in.Text})
	if err != nil {
		return ShowOutput{}, "", err
	}
	out := ShowOutput{Item: rec}
	// text: whole chunks in order while they fit the text budget
	used := 0
	for i, c := range rec.Chunks {
		used += c.Tokens
		if used > budget {
			rec.Chunks, out.Truncated = rec.Chunks[:i], true
			break
		}
	}
	for tokensOf(out) > ShowCapTokens {
		switch {
		case len(rec.Chunks) > 0:
			rec.Chunks = rec.Chunks[:len(rec.Chunks)-1]
		case len(rec.Annotations) > 1:
			rec.Annotations = rec.Annotations[1:]
		default:
			out.Next = s.showNext(ctx, in, rec, true)
			return out, showText(rec) + nextLine(out.Next), nil
		}
		out.Truncated = true
	}
	out.Next = s.showNext(ctx, in, rec, out.Truncated)
	return out, showText(rec) + nextLine(out.Next), nil
}

func (s *Server) status(ctx context.Context, _ *sdk.CallToolRequest, in StatusInput) (StatusOutput, string, error) {
	n, err := s.rd.ItemCount(ctx)
	if err != nil {
		return StatusOutput{}, "", err
	}
	out := StatusOutput{DB: s.st.Path(), Items: n}
	if strings.TrimSpace(in.Item) != "" {
		if out.Item, err = s.rd.Status(ctx, in.Item, s.opt.Resolve); err != nil {
			return StatusOutput{}, "", err
		}
	}
	if out.Pending, err = s.rd.CountPending(ctx, 0); err != nil {
		return StatusOutput{}, "", err
	}
	out.Next = s.pendingNext(ctx)
	if out.Item != nil && ingested(ingestStatus(out.Item)) && ingestStatus(out.Item) != record.StateFailed {
		out.Next = fmt.Sprintf("show {item: %q, text: true} for its text", out.Item.ID)
	}
	return out, statusText(out) + nextLine(out.Next), nil
}
