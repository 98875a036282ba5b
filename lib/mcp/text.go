package mcp

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/linkledger/linkledger/lib/brief"
	"github.com/linkledger/linkledger/lib/record"
)

// The compact text forms: what a client that ignores structured content
// shows the model. One line per item (rank, id, title, url, score), then
// its evidence indented, one line each.

func findText(out FindOutput) string {
	var b strings.Builder
	if len(out.Items) == 0 {
		b.WriteString("no items matched\n")
	}
	for _, it := range out.Items {
		itemLine(&b, it.Item, it.Pending != "")
		if it.Related != nil {
			fmt.Fprintf(&b, "   related: tags %s; terms %s\n", strings.Join(it.Related.SharedTags, ","), strings.Join(it.Related.Terms, " "))
		}
	}
	b.WriteString(warningLines(out.Warnings))
	if out.Truncated {
		b.WriteString("(more items left out to stay under the size cap: use limit or offset)\n")
	}
	b.WriteString(nextLine(out.Next))
	return b.String()
}

// warningLines are the warnings of a result, one "warning: " line each.
func warningLines(warnings []string) string {
	var b strings.Builder
	for _, w := range warnings {
		b.WriteString("warning: " + w + "\n")
	}
	return b.String()
}

// itemLine writes an item's lines; a pending item (not fetched yet) says
// so where its title would be.
func itemLine(b *strings.Builder, it brief.Item, pending bool) {
	title := it.Title
	switch {
	case pending:
		title = pendingLabel
		if it.Title != "" {
			title = it.Title + " (" + pendingLabel + ")"
		}
	case title == "":
		title = "(untitled)"
	}
	fmt.Fprintf(b, "%d. %s %s <%s>", it.Rank, it.ID, title, it.URL)
	if it.Score != 0 {
		fmt.Fprintf(b, " score %.3g", it.Score)
	}
	if len(it.Tags) > 0 {
		fmt.Fprintf(b, " [%s]", strings.Join(it.Tags, ","))
	}
	b.WriteByte('\n')
	ev := func(kind string, es []brief.Evidence) {
		for _, e := range es {
			fmt.Fprintf(b, "   %s: %s%s\n", kind, oneLine(e.Text), by(e.Actor, e.Confidence, e.Pinned))
		}
	}
	ev("highlight", it.Highlights)
	ev("lowlight", it.Lowlights)
	ev("note", it.Notes)
	if it.Summary != "" {
		fmt.Fprintf(b, "   summary: %s\n", oneLine(it.Summary))
	}
	// passages with their locators, so an agent reading only the text
	// form can quote and annotate them (docs/agents.md)
	for _, p := range it.Passages {
		fmt.Fprintf(b, "   passage (chunk %d, %d-%d): %s\n", p.ChunkIndex, p.Start, p.End, oneLine(p.Text))
	}
	for _, s := range it.Snippets {
		fmt.Fprintf(b, "   snippet: %s\n", oneLine(s.Text))
	}
}

func by(actor string, conf *float64, pinned bool) string {
	var parts []string
	if actor != "" {
		parts = append(parts, actor)
	}
	if conf != nil {
		parts = append(parts, fmt.Sprintf("%.2f", *conf))
	}
	if pinned {
		parts = append(parts, "pinned")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, " ") + ")"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// plainLine is s on one line without control characters.
func plainLine(s string) string {
	return oneLine(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s))
}

func briefText(p *brief.Pack) string {
	var b strings.Builder
	// the query as written (one line, no control characters), not
	// Go-quoted: a query with quotes in it reads as the agent wrote it
	fmt.Fprintf(&b, "evidence for \"%s\": %d items, %d of %d tokens\n", plainLine(p.Query), len(p.Items), p.Tokens, p.MaxTokens)
	for _, it := range p.Items {
		itemLine(&b, it, it.NotFetched())
	}
	// the pointers, so the ranks the items skip are accounted for
	if len(p.Pointers) > 0 {
		fmt.Fprintf(&b, "more candidates (%d, weaker; title and url only):\n", len(p.Pointers))
		for _, pt := range p.Pointers {
			title := pt.Title
			if title == "" {
				title = "(untitled)"
			}
			fmt.Fprintf(&b, "%d. %s <%s>\n", pt.Rank, plainLine(title), pt.URL)
			if pt.Sentence != "" {
				fmt.Fprintf(&b, "   %s\n", plainLine(pt.Sentence))
			}
		}
	}
	for _, d := range p.Dropped {
		fmt.Fprintf(&b, "(dropped %d %s to fit the budget)\n", d.Count, d.What)
	}
	return b.String()
}

func saveText(r *record.Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s <%s> status %s", r.ID, r.CanonicalURL, r.Status)
	if r.New != nil && *r.New {
		b.WriteString(" (new)")
	}
	if s := r.Save; s != nil {
		if len(s.TagsAdded) > 0 {
			fmt.Fprintf(&b, "; tags added %s", strings.Join(s.TagsAdded, ","))
		}
		if len(s.TagsRemoved) > 0 {
			fmt.Fprintf(&b, "; tags removed %s", strings.Join(s.TagsRemoved, ","))
		}
		if len(s.AnnotationIDs) > 0 {
			fmt.Fprintf(&b, "; annotation ids %s", ids(s.AnnotationIDs))
		}
		if len(s.Displaced) > 0 {
			fmt.Fprintf(&b, "; displaced %s", ids(s.Displaced))
		}
	}
	b.WriteByte('\n')
	return b.String()
}

func ids(xs []int64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

func showText(r *record.Record) string {
	var b strings.Builder
	title := r.Title
	if r.Status == record.StateSaved {
		title = pendingLabel
	}
	fmt.Fprintf(&b, "%s %s <%s> %s\n", r.ID, title, r.Ref(), r.SourceType)
	for _, t := range r.Tagged {
		fmt.Fprintf(&b, "   tag: %s (%s)\n", t.Tag, t.Actor)
	}
	for _, a := range r.Annotations {
		fmt.Fprintf(&b, "   #%d %s: %s%s\n", a.ID, a.Type, oneLine(a.Text), by(a.Actor, a.Confidence, a.Pinned))
	}
	for _, c := range r.Chunks {
		fmt.Fprintf(&b, "   [%d] %s\n", c.Index, oneLine(c.Text))
	}
	return b.String()
}

func statusText(s StatusOutput) string {
	t := fmt.Sprintf("%s: %d items, %d not fetched yet\n", s.DB, s.Items, s.Pending)
	if s.Item != nil {
		if raw, ok := s.Item.Extra["ingest"]; ok {
			t += fmt.Sprintf("%s <%s> ingest %s\n", s.Item.ID, s.Item.Ref(), raw)
		} else {
			t += fmt.Sprintf("%s <%s> status %s\n", s.Item.ID, s.Item.Ref(), s.Item.Status)
		}
	}
	return t
}

func statsText(u *record.UsageStats) string {
	var b strings.Builder
	since := u.Since
	if since == "" {
		since = "the start"
	}
	fmt.Fprintf(&b, "from %s to %s: tasks %d, reusing a stored source %d (%.0f%%; goal %.0f%%); citations %d; items saved %d, never used %d\n",
		since, u.Until, u.Tasks, u.TasksReusing, 100*u.ReuseShare, 100*u.ReuseGoal, u.Citations, u.ItemsSaved, u.ItemsNeverUsed)
	for _, s := range u.MostReused {
		title := s.Title
		if title == "" {
			title = "(untitled)"
		}
		fmt.Fprintf(&b, "   reused: %s %s <%s> %d tasks, %d citations\n", s.ItemID, oneLine(title), s.URL, s.Tasks, s.Citations)
	}
	return b.String()
}

// packLine is one line about a pack: name, version, query, who built it.
func packLine(p *record.PackInfo) string {
	ranked := ""
	if p.Mode != "" {
		ranked = "; ranked " + p.Mode
	}
	return fmt.Sprintf("pack %s v%d: %q, built %s by %s; %d entered, %d left%s\n", p.Name, p.Version, p.Query, p.BuiltAt, p.BuiltBy, len(p.Entered), len(p.Left), ranked)
}

// packText is a pack's line, what entered and left, then its brief as
// the brief tool's text.
func packText(p *record.PackInfo, bp *brief.Pack) string {
	var b strings.Builder
	b.WriteString(packLine(p))
	member := func(sign string, m record.PackMember) {
		fmt.Fprintf(&b, "   %s %d. %s <%s> (%s)\n", sign, m.Rank, oneLine(m.Title), m.URL, m.As)
	}
	for _, m := range p.Entered {
		member("+", m)
	}
	for _, m := range p.Left {
		member("-", m)
	}
	if bp == nil || bp.MaxTokens == 0 {
		return b.String() + warningLines(p.Warnings)
	}
	b.WriteString(briefText(bp))
	for _, pt := range bp.Pointers {
		fmt.Fprintf(&b, "%d. %s <%s>", pt.Rank, oneLine(pt.Title), pt.URL)
		if pt.Sentence != "" {
			b.WriteString(" " + oneLine(pt.Sentence))
		}
		b.WriteByte('\n')
	}
	return b.String() + warningLines(p.Warnings)
}
