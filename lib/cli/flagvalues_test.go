package cli

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	ucli "github.com/urfave/cli/v3"
)

// TestFlagValues checks that FlagValues reads what urfave/cli's own
// lookups read, for every flag name and alias, set on the command line,
// by an environment variable, by default, or on a parent command.
func TestFlagValues(t *testing.T) {
	t.Setenv("LL_TEST_FLAGVALUES_FROM_ENV", "env-value")
	names := []string{"str", "s", "env", "yes", "y", "no", "num", "n", "unset-num", "ratio", "wait", "list", "l", "parent", "p", "shadow", "nosuch"}
	type read struct {
		Bool     bool
		String   string
		Int      int
		Float    float64
		Duration time.Duration
		Slice    []string
		IsSet    bool
		Value    string
	}
	readAll := func(get func(string) read) map[string]read {
		m := map[string]read{}
		for _, n := range names {
			m[n] = get(n)
		}
		return m
	}
	for _, args := range [][]string{
		{"root", "sub", "--str", "a", "-y", "-n", "7", "--ratio", "0.5", "--wait", "3s", "-l", "x,y", "--list", "z", "-p", "up", "--shadow", "child"},
		{"root", "--parent", "from-root", "--shadow", "root-value", "sub"},
		{"root", "sub"},
	} {
		t.Run(fmt.Sprint(args), func(t *testing.T) {
			ran := false
			sub := &ucli.Command{
				Name: "sub",
				Flags: []ucli.Flag{
					&ucli.StringFlag{Name: "str", Aliases: []string{"s"}, Value: "default"},
					&ucli.StringFlag{Name: "env", Sources: ucli.EnvVars("LL_TEST_FLAGVALUES_FROM_ENV")},
					&ucli.BoolFlag{Name: "yes", Aliases: []string{"y"}},
					&ucli.BoolFlag{Name: "no"},
					&ucli.IntFlag{Name: "num", Aliases: []string{"n"}, Value: 3},
					&ucli.IntFlag{Name: "unset-num"},
					&ucli.FloatFlag{Name: "ratio", Value: 1.5},
					&ucli.DurationFlag{Name: "wait", Value: time.Second},
					&ucli.StringSliceFlag{Name: "list", Aliases: []string{"l"}},
					&ucli.StringFlag{Name: "shadow", Value: "sub-default"},
				},
				Action: func(_ context.Context, c *ucli.Command) error {
					ran = true
					fv := Flags(c)
					if Flags(c) != fv {
						t.Error("Flags(c) built a second index for the same command")
					}
					want := readAll(func(n string) read {
						return read{c.Bool(n), c.String(n), c.Int(n), c.Float(n), c.Duration(n), c.StringSlice(n), c.IsSet(n), fmt.Sprint(c.Value(n))}
					})
					got := readAll(func(n string) read {
						return read{fv.Bool(n), fv.String(n), fv.Int(n), fv.Float(n), fv.Duration(n), fv.StringSlice(n), fv.IsSet(n), fmt.Sprint(fv.Value(n))}
					})
					if d := cmp.Diff(want, got); d != "" {
						t.Errorf("FlagValues differ from urfave/cli's lookups (-urfave +FlagValues):\n%s", d)
					}
					return nil
				},
			}
			root := &ucli.Command{
				Name: "root",
				Flags: []ucli.Flag{
					&ucli.StringFlag{Name: "parent", Aliases: []string{"p"}, Value: "root-default"},
					&ucli.StringFlag{Name: "shadow", Value: "root-default"},
				},
				Commands: []*ucli.Command{sub},
			}
			if err := root.Run(context.Background(), args); err != nil {
				t.Fatal(err)
			}
			if !ran {
				t.Fatal("the subcommand did not run")
			}
		})
	}
}
