package cli

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	ucli "github.com/urfave/cli/v3"
)

// DisplayNameEnv names the command a person typed when a filter runs on
// behalf of the front command: `linkledger annotate` runs ll-save with
// LINKLEDGER_DISPLAY_NAME="linkledger annotate", so its help and errors
// speak of the command that was typed, not of the filter behind it.
const DisplayNameEnv = "LINKLEDGER_DISPLAY_NAME"

// hinted is an error with a hint.
type hinted struct {
	error
	hint string
}

func (h hinted) Hint() string  { return h.hint }
func (h hinted) Unwrap() error { return h.error }

// WithHint adds a hint to err.
func WithHint(err error, hint string) error { return hinted{err, hint} }

// UsageHint is a usage error (exit 2) with a hint.
func UsageHint(hint, format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: WithHint(fmt.Errorf(format, args...), hint)}
}

// urfave/cli reports parse errors as plain text only; these are its
// messages (v3), matched once here so every binary says them in the
// user's terms. They are compiled on the first usage error, not at every
// process start.
var usageRes = sync.OnceValue(func() (r struct{ badValue, noValue, noFlag *regexp.Regexp }) {
	r.badValue = regexp.MustCompile(`^invalid value "((?:[^"\\]|\\.)*)" for flag -(\S+): `)
	r.noValue = regexp.MustCompile(`^flag needs an argument: -*(\S+)$`)
	r.noFlag = regexp.MustCompile(`^flag provided but not defined: -+(\S+)$`)
	return r
})

// UsageError turns a flag-parsing error of cmd into a usage error (exit 2)
// in the user's terms: the flag as typed, the value, what was wanted, and
// for an unknown flag the nearest known one.
func UsageError(cmd *ucli.Command, err error) error {
	msg := err.Error()
	re := usageRes()
	if m := re.badValue.FindStringSubmatch(msg); m != nil {
		val := strings.ReplaceAll(m[1], `\"`, `"`)
		name := dashed(m[2])
		want := "a valid value"
		if f := lookupFlag(cmd, m[2]); f != nil {
			want = wantFor(f)
		}
		return &ExitError{Code: ExitUsage, Err: WithHint(fmt.Errorf("%s: want %s, got %q", name, want, val), helpHint(cmd))}
	}
	if m := re.noValue.FindStringSubmatch(msg); m != nil {
		return &ExitError{Code: ExitUsage, Err: WithHint(fmt.Errorf("%s: needs a value", dashed(m[1])), helpHint(cmd))}
	}
	if m := re.noFlag.FindStringSubmatch(msg); m != nil {
		typed := dashed(m[1])
		hint := helpHint(cmd)
		if s := Suggest(m[1], flagNames(cmd)); s != "" {
			hint = fmt.Sprintf("did you mean %s?", dashed(s))
		}
		return &ExitError{Code: ExitUsage, Err: WithHint(fmt.Errorf("unknown flag %s", typed), hint)}
	}
	return &ExitError{Code: ExitUsage, Err: WithHint(err, helpHint(cmd))}
}

// onUsageError is every command's OnUsageError.
func onUsageError(_ context.Context, cmd *ucli.Command, err error, _ bool) error {
	return UsageError(cmd, err)
}

func helpHint(cmd *ucli.Command) string {
	return fmt.Sprintf("run '%s --help' for usage", FullName(cmd))
}

// FullName is the command as a person types it: "ll-find", or
// "linkledger annotate" for a verb of the front command.
func FullName(cmd *ucli.Command) string {
	lin := cmd.Lineage()
	parts := make([]string, 0, len(lin))
	for i := len(lin) - 1; i >= 0; i-- {
		parts = append(parts, lin[i].Name)
	}
	return strings.Join(parts, " ")
}

// dashed writes a flag name as typed: -n or --limit.
func dashed(name string) string {
	name = strings.TrimLeft(name, "-")
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

func lookupFlag(cmd *ucli.Command, name string) ucli.Flag {
	for _, c := range cmd.Lineage() {
		for _, f := range c.Flags {
			for _, n := range f.Names() {
				if n == name {
					return f
				}
			}
		}
	}
	return nil
}

func flagNames(cmd *ucli.Command) []string {
	var names []string
	for _, c := range cmd.Lineage() {
		for _, f := range c.Flags {
			if v, ok := f.(ucli.VisibleFlag); ok && !v.IsVisible() {
				continue
			}
			for _, n := range f.Names() {
				if len(n) > 1 {
					names = append(names, n)
				}
			}
		}
	}
	return names
}

// wantFor says what a flag of f's type takes, in words.
func wantFor(f ucli.Flag) string {
	g, ok := f.(interface{ Get() any })
	if !ok {
		return "a valid value"
	}
	switch g.Get().(type) {
	case int, int64, int32, uint, uint64, []int64, []int:
		return "a whole number"
	case float64, float32, []float64:
		return "a number"
	case time.Duration:
		return "a duration such as 500ms, 30s, 5m or 2h"
	case bool:
		return "true or false"
	}
	return "a valid value"
}

// Suggest returns the candidate nearest to typed (a typo of at most a
// third of its letters, or a prefix), or "" when none is near.
func Suggest(typed string, candidates []string) string {
	best, bestD := "", len(typed)/3+1
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	for _, c := range sorted {
		if c == typed {
			continue
		}
		d := editDistance(typed, c)
		if strings.HasPrefix(c, typed) && len(typed) >= 3 {
			d = min(d, 1)
		}
		if d < bestD || (d == bestD && best == "") {
			if d <= len(typed)/3+1 && d < len(c) {
				best, bestD = c, d
			}
		}
	}
	return best
}

// editDistance is the Damerau-Levenshtein distance (adjacent swaps count
// one) between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
