package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/linkledger/linkledger/lib/ledger"
)

// OverviewInput is the overview tool's input.
type OverviewInput struct {
	MaxTokens int `json:"max_tokens,omitempty" jsonschema:"text budget, 100 to 4000 (default 500)"`
}

// OverviewOutput is the overview tool's result.
type OverviewOutput struct {
	Overview *ledger.Overview `json:"overview" jsonschema:"what the ledger holds: items, by_type, by_state, pending, failed, tags and sites (name, items, words that distinguish them), pinned, most_reused, failed_items, tokens, max_tokens, truncated"`
	Next     string           `json:"next,omitempty" jsonschema:"the obvious next step, in one line (docs/agents.md)"`
}

func (s *Server) addOverviewTool() {
	addTool(s, &sdk.Tool{Name: "overview", Title: "What the ledger holds", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
		Description: `What the user's ledger holds, to read before searching: items by type and state, pending and failed counts, the top tags and sites with the words that distinguish them (good find words), pinned and most reused items, the latest failures. Cap: max_tokens (default 500, at most 4000) of its text (truncated: true).`},
		safe(s, s.overview))
}

func (s *Server) overview(ctx context.Context, _ *sdk.CallToolRequest, in OverviewInput) (OverviewOutput, string, error) {
	if in.MaxTokens != 0 && (in.MaxTokens < ledger.MinOverviewTokens || in.MaxTokens > ledger.MaxOverviewTokens) {
		return OverviewOutput{}, "", usage("max_tokens %d: want %d..%d", in.MaxTokens, ledger.MinOverviewTokens, ledger.MaxOverviewTokens)
	}
	o, err := s.rd.BuildOverview(ctx, ledger.OverviewOptions{MaxTokens: in.MaxTokens})
	if err != nil {
		return OverviewOutput{}, "", err
	}
	out := OverviewOutput{Overview: o}
	switch {
	case o.Items == 0:
		out.Next = "the ledger is empty: save a URL worth keeping"
	case len(o.Tags) > 0:
		out.Next = fmt.Sprintf("find with the words above, e.g. find {query: %q, tags: [%q]}", firstWords(o.Tags[0]), o.Tags[0].Name)
	default:
		out.Next = "find with the words above; show an item's id for its full text"
	}
	out.Next = joinNext(out.Next, s.pendingNext(ctx))
	return out, ledger.OverviewText(o) + nextLine(out.Next), nil
}

// firstWords is a group's first two words, as an example query.
func firstWords(g ledger.OverviewGroup) string {
	return strings.Join(g.Words[:min(2, len(g.Words))], " ")
}
