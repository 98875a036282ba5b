package brief

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/linkledger/linkledger/lib/termsafe"
)

// Markdown renders the pack as Markdown ready to paste into a prompt.
func Markdown(p *Pack) string {
	var b strings.Builder
	if p.Query != "" {
		fmt.Fprintf(&b, "# Evidence: %s\n", oneLine(p.Query))
	} else {
		b.WriteString("# Evidence\n")
	}
	if len(p.Items) == 0 {
		b.WriteString("\nNo matching items.\n")
	}
	for _, it := range p.Items {
		title := it.Title
		if title == "" {
			title = it.URL
		}
		fmt.Fprintf(&b, "\n## %d. %s\n", it.Rank, oneLine(title))
		meta := []string{oneLine(it.URL)}
		if it.SourceType != "" {
			meta = append(meta, it.SourceType)
		}
		if it.SiteName != "" {
			meta = append(meta, oneLine(it.SiteName))
		}
		if it.Author != "" {
			meta = append(meta, "by "+oneLine(it.Author))
		}
		if it.PublishedAt != "" {
			meta = append(meta, "published "+day(it.PublishedAt))
		}
		if it.SavedAt != "" {
			meta = append(meta, "saved "+day(it.SavedAt))
		}
		if len(it.Tags) > 0 {
			meta = append(meta, "tags: "+oneLine(strings.Join(it.Tags, ", ")))
		}
		if it.NotFetched() {
			meta = append(meta, "pending: not fetched yet")
		}
		b.WriteString(strings.Join(meta, " · ") + "\n")
		if w := it.WhyRanked; w != nil && w.Fusion != nil {
			f := w.Fusion
			fmt.Fprintf(&b, "Why: %s score %s", f.Mode, num(f.FusedScore))
			if f.LexicalRank > 0 {
				fmt.Fprintf(&b, "; lexical rank %d", f.LexicalRank)
			}
			if f.SemanticRank > 0 && f.SemanticSimilarity != nil {
				fmt.Fprintf(&b, "; semantic rank %d, similarity %s", f.SemanticRank, num(*f.SemanticSimilarity))
			}
			if len(w.MatchedTerms) > 0 {
				fmt.Fprintf(&b, "; terms: %s", strings.Join(w.MatchedTerms, ", "))
			}
			b.WriteString("\n")
		} else if w != nil {
			fmt.Fprintf(&b, "Why: score %s = bm25 %s + pinned %s - low-confidence %s", num(w.RankingScore), num(w.BM25), num(w.PinnedBoost), num(w.LowConfidencePenalty))
			if len(w.MatchedFields) > 0 {
				fmt.Fprintf(&b, "; fields: %s", strings.Join(w.MatchedFields, ", "))
			}
			if len(w.MatchedTerms) > 0 {
				fmt.Fprintf(&b, "; terms: %s", oneLine(strings.Join(w.MatchedTerms, ", ")))
			}
			b.WriteString("\n")
		}
		if it.Revalidate != nil && it.Revalidate.Due {
			fmt.Fprintf(&b, "Content fetched %s; may be out of date.\n", day(it.Revalidate.FetchedAt))
		}
		if it.Summary != "" {
			also := ""
			if len(it.SummaryAlso) > 0 {
				also = " (also " + strings.ReplaceAll(strings.Join(it.SummaryAlso, ", "), "_", " ") + ")"
			}
			fmt.Fprintf(&b, "Summary: %s%s\n", oneLine(it.Summary), also)
		}
		list(&b, "Key claims", func(add func(string)) {
			for _, c := range it.KeyClaims {
				add(oneLine(c))
			}
		})
		evidenceList(&b, "Highlights", it.Highlights)
		evidenceList(&b, "Lowlights (flagged as weak or wrong)", it.Lowlights)
		evidenceList(&b, "Notes", it.Notes)
		head := "Passages"
		if it.Whole {
			head = "Passages (the whole text)"
		}
		list(&b, head, func(add func(string)) {
			for _, p := range it.Passages {
				add(fmt.Sprintf("\"%s\" (chunk %d, bytes %d-%d)", oneLine(p.Text), p.ChunkIndex, p.Start, p.End))
			}
		})
		list(&b, "Snippets", func(add func(string)) {
			for _, s := range it.Snippets {
				line := "\"" + oneLine(s.Text) + "\""
				var where []string
				if s.Page > 0 {
					where = append(where, "p. "+strconv.Itoa(s.Page))
				}
				if s.URL != "" {
					where = append(where, oneLine(s.URL))
				}
				if len(where) > 0 {
					line += " (" + strings.Join(where, ", ") + ")"
				}
				add(line)
			}
		})
	}
	if len(p.Pointers) > 0 {
		b.WriteString("\n## More candidates\n")
		for _, pt := range p.Pointers {
			line := fmt.Sprintf("- %d. %s", pt.Rank, oneLine(pt.URL))
			if pt.Title != "" {
				line = fmt.Sprintf("- %d. %s · %s", pt.Rank, oneLine(pt.Title), oneLine(pt.URL))
			}
			if pt.Sentence != "" {
				line += ": \"" + oneLine(pt.Sentence) + "\""
			}
			b.WriteString(line + "\n")
		}
	}
	if len(p.Dropped) > 0 {
		var parts []string
		for _, d := range p.Dropped {
			parts = append(parts, fmt.Sprintf("%d %s", d.Count, strings.ReplaceAll(d.What, "_", " ")))
		}
		fmt.Fprintf(&b, "\nLeft out to fit %d tokens: %s.\n", p.MaxTokens, strings.Join(parts, ", "))
	}
	return b.String()
}

func evidenceList(b *strings.Builder, head string, es []Evidence) {
	list(b, head, func(add func(string)) {
		for _, e := range es {
			who := e.Actor
			if e.Confidence != nil {
				who += ", confidence " + num(*e.Confidence)
			}
			if e.Pinned {
				who += ", pinned"
			}
			if e.Anchor != "" {
				who += ", their words: not in the text"
			}
			if len(e.Also) > 0 {
				who += ", also " + strings.ReplaceAll(strings.Join(e.Also, ", "), "_", " ")
			}
			line := "\"" + oneLine(e.Text) + "\""
			if who != "" {
				line += " (" + strings.TrimPrefix(who, ", ") + ")"
			}
			add(line)
		}
	})
}

func list(b *strings.Builder, head string, fill func(add func(string))) {
	first := true
	fill(func(s string) {
		if first {
			b.WriteString(head + ":\n")
			first = false
		}
		b.WriteString("- " + s + "\n")
	})
}

// oneLine is record text for a person (termsafe.Line): one line, without
// control characters, so a title or a summary cannot drive the terminal
// the Markdown is shown on.
func oneLine(s string) string { return termsafe.Line(s) }

func day(t string) string {
	if len(t) >= 10 {
		return t[:10]
	}
	return t
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
