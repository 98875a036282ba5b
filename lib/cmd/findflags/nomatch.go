package findflags

import (
	"context"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
)

// SetFilters lists the filter flags given on c (--tags, --type, ...), to
// name them in the hint when nothing matched.
func SetFilters(c *ucli.Command) []string {
	var set []string
	for _, f := range []string{"tags", "type", "since", "until", "actor", "status", "offset"} {
		if c.IsSet(f) {
			set = append(set, "--"+f)
		}
	}
	return set
}

// SayNoMatch tells a person at a terminal that a search found nothing,
// on stderr: among how many items, how many of them wait for the worker
// (their text is not searched until it ran) and the command that ingests
// them, and what to try next; an empty ledger says how to add the first
// link. Callers call it only for the human form (Output.IsHuman), so pipes
// stay empty.
//
// archived is how many archived items the search finds (it left them out:
// FindResult.ArchivedMatches): then the matches are archived, and it says
// so and how to show them instead of suggesting other words.
func SayNoMatch(ctx context.Context, l *ledger.Ledger, diag cli.Diag, query string, filters []string, archived int) {
	counts, err := l.CountItems(ctx)
	if err != nil {
		diag.Debugf("counting items: %v", err)
		return
	}
	n := counts.Items
	if n == 0 {
		SayEmpty(diag)
		return
	}
	if query != "" {
		diag.Printf("no matches for %q among %d %s", query, n, plural(n, "item", "items"))
		if line := ledger.AbsentLine(l.Absent(ctx, query, 0, ledger.Best{})); line != "" {
			diag.Printf("%s", line)
		}
	} else {
		diag.Printf("no items match the filters (%d in the ledger)", n)
	}
	if archived > 0 {
		n := strconv.Itoa(archived)
		if archived >= ledger.ArchivedMatchesMax {
			n = "at least " + n
		}
		diag.Printf("%s archived %s: archived items are left out unless asked for", n, plural(archived, "item matches", "items match"))
		diag.Hintf("show them with: linkledger find %s (or --archived)", shellQuote(ledger.WithArchived(query)))
		return
	}
	if w := counts.NotFetched; w > 0 {
		switch {
		case w == 1 && n == 1:
			diag.Printf("it has not been fetched yet: its text is not searched until then")
		case w == n:
			diag.Printf("none of them has been fetched yet: their text is not searched until then")
		default:
			diag.Printf("%d of them %s not been fetched yet: their text is not searched until then", w, plural(w, "has", "have"))
		}
		diag.Hintf("ingest them with: %s (then search again)", ledger.IngestHint)
		if w == n {
			return
		}
	}
	switch {
	case len(filters) > 0 && query != "":
		diag.Hintf("try fewer or other words, or drop %s", strings.Join(filters, ", "))
	case len(filters) > 0:
		diag.Hintf("drop %s", strings.Join(filters, ", "))
	default:
		diag.Hintf("try fewer or other words (any one word may match)")
	}
}

// SayEmpty tells a person that the ledger has no items yet.
func SayEmpty(diag cli.Diag) {
	diag.Printf("the ledger is empty: nothing saved yet")
	diag.Hintf("add the first link with: linkledger save URL")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// shellQuote is s as one shell word: as it is when it holds only safe
// characters, else in single quotes.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:/@%+=,", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
