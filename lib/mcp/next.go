package mcp

// Next steps: the one line a result gives under "next" when it has an
// obvious next step (docs/agents.md). A pipe never gets these: they are
// for the agent reading an MCP result.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
)

// pendingLabel is what a result says of an item that is not ingested yet,
// in place of a title it does not have.
const pendingLabel = "pending: not fetched yet"

// waitPoll is how often save's wait looks at the item's status.
const waitPoll = 200 * time.Millisecond

// joinNext joins the parts of a next step that are not empty.
func joinNext(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "; ")
}

// plural is "1 item" or "n items".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// pendingNext says how many saved items wait to be ingested and who
// ingests them: this server's background worker, or `linkledger worker`
// to run. "" when none wait (or the count fails: a hint is never worth
// an error).
func (s *Server) pendingNext(ctx context.Context) string {
	n := s.rd.PendingNext(ctx)
	if n == 0 {
		return ""
	}
	if s.opt.Worker != nil {
		return fmt.Sprintf("%s not fetched yet (found by URL, note and tags only): the server's background worker is ingesting them", plural(n, "item"))
	}
	return fmt.Sprintf("%s not fetched yet (found by URL, note and tags only): run `linkledger worker` (or keep `linkledger worker --watch` running) to ingest them", plural(n, "item"))
}

// findNext is the next step of a find or related result for query q
// (ledger.SearchNext decides which, as for the CLI).
func (s *Server) findNext(ctx context.Context, q string, offset int, out FindOutput) string {
	var best ledger.Best
	if len(out.Items) > 0 {
		it := out.Items[0]
		best = ledger.Best{ID: it.ID, Why: it.WhyRanked, Pending: it.Pending != ""}
	}
	return joinNext(ledger.AbsentLine(s.rd.Absent(ctx, q, len(out.Items), best)),
		searchStep(ledger.SearchNextAt(q, offset, len(out.Items), best, out.Truncated), "nothing matched"), s.pendingNext(ctx))
}

// searchStep says a search's next step in an agent's terms; none is how
// the result says nothing matched ("nothing matched", "no evidence").
func searchStep(n ledger.Next, none string) string {
	switch n.Step {
	case ledger.StepSave:
		return "the ledger is empty: save a URL worth keeping"
	case ledger.StepPastEnd:
		return "no more results: this page starts past the last match; call again with a smaller offset (or none) for the matches"
	case ledger.StepRephrase:
		return none + ": try other or fewer words, or call overview for the tags, sites and words the ledger holds"
	case ledger.StepNarrow:
		return fmt.Sprintf("weak matches (the best item has %d of the query's words): narrow the query with the words or tags overview lists", n.Matched)
	case ledger.StepPage:
		return "more items than fit the size cap: narrow with tags or type, or page with offset"
	case ledger.StepIngest:
		return "the best item is " + pendingLabel
	case ledger.StepRead:
		return fmt.Sprintf("show {item: %q, text: true} for the full text of an item", n.Item)
	}
	return ""
}

// ingested says an ingest status is final for save's wait: parsed,
// enriched or failed.
func ingested(status string) bool {
	switch status {
	case record.StateParsed, record.StateEnriched, record.StateFailed:
		return true
	}
	return false
}

// waitIngested waits up to d for the item id to be ingested and returns
// its status record then (the last one seen when d ran out).
func (s *Server) waitIngested(ctx context.Context, id string, d time.Duration) (*record.Record, error) {
	deadline := time.Now().Add(d)
	tick := time.NewTicker(waitPoll)
	defer tick.Stop()
	for {
		rec, err := s.rd.Status(ctx, id, s.opt.Resolve)
		if err != nil && !ledger.IsBusy(err) {
			return nil, err
		}
		if rec != nil && (ingested(ingestStatus(rec)) || !time.Now().Before(deadline)) {
			return rec, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

// ingestStatus is the ingest status of a Status record (the web app's
// ledger.Ingest).
func ingestStatus(rec *record.Record) string { return ledger.Ingest(rec).Status }

// saveNext is the next step after saving rec (after a wait of waited).
func (s *Server) saveNext(ctx context.Context, rec *record.Record, waited time.Duration) string {
	switch ledger.SaveNext(rec.ID, rec.Status).Step {
	case ledger.StepRead:
		return fmt.Sprintf("show {item: %q, text: true} for its text; annotate it with exact quotes from that text", rec.ID)
	case ledger.StepFailed:
		in := ledger.Ingest(rec)
		if e := in.LastError; e != nil {
			if e.Retryable {
				return fmt.Sprintf("ingest failed at %s: %s (%s); the worker retries it later: status {item: %q} tells when", e.Stage, oneLineText(e.Message, 200), e.Code, rec.ID)
			}
			return fmt.Sprintf("ingest failed at %s: %s (%s); not retried (the error is not retryable): check the URL, or save another", e.Stage, oneLineText(e.Message, 200), e.Code)
		}
		return fmt.Sprintf("ingest failed: status {item: %q} says why; the worker retries it later when the error is retryable", rec.ID)
	}
	if s.opt.Worker != nil {
		if waited > 0 {
			return fmt.Sprintf("not fetched yet after %v: the background worker is on it; status {item: %q} tells when it is readable", waited, rec.ID)
		}
		return fmt.Sprintf("the background worker fetches it in seconds: save again with wait, or status {item: %q}, to know when it is readable", rec.ID)
	}
	return "not fetched yet: run `linkledger worker` to fetch and index it (this server does not: --no-worker)"
}

// oneLineText is s on one line, cut to about n bytes.
func oneLineText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}

// nextLine is the text form's last line: the next step, if any.
func nextLine(next string) string {
	if next == "" {
		return ""
	}
	return "next: " + next + "\n"
}

// showNext is the next step after show: ingest a pending item, ask for
// its text, or for more of it.
func (s *Server) showNext(ctx context.Context, in ShowInput, rec *record.Record, truncated bool) string {
	switch {
	case rec.Status == record.StateSaved:
		return joinNext(pendingLabel, s.pendingNext(ctx))
	case !in.Text:
		return fmt.Sprintf("show {item: %q, text: true} for its text; quote it exactly in annotate", rec.ID)
	case truncated:
		return fmt.Sprintf("text cut to max_text_tokens: show {item: %q, text: true, max_text_tokens: %d} for more", rec.ID, min(2*max(in.MaxTextTokens, DefaultShowTextTokens), ShowCapTokens))
	}
	return ""
}
