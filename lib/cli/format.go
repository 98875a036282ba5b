package cli

import (
	"os"
	"strconv"

	ucli "github.com/urfave/cli/v3"
	"golang.org/x/term"
)

// The values of --format. Machine output is the record stream (ndjson, or
// its synonym json: every record is one JSON document on its own line; for
// ll-brief, the one pack). The human form is the view for a person: compact
// lines for records, Markdown for ll-brief's pack (md is a synonym of
// human). With no --format (or auto) the form follows stdout: a terminal
// gets the human form, a pipe or file the records. docs/output.md is the
// one description of this rule.
const (
	FormatAuto   = "auto"
	FormatNDJSON = "ndjson"
	FormatJSON   = "json"
	FormatHuman  = "human"
	FormatMD     = "md"
)

// FormatFlag is the --format flag every binary has (in CommonFlags).
func FormatFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "format", Value: FormatAuto,
		Usage: "output `FORM`: ndjson (or json: records, the default into a pipe or file), human (or md: for a person, the default at a terminal), auto"}
}

// humanForm decides, once, whether the output is for a person: --jq and
// --json always mean records; an explicit --format wins; else a terminal on
// stdout gets the human form.
func humanForm(format string, jq, envelope, stdoutTTY bool) (bool, error) {
	switch format {
	case "", FormatAuto:
		return stdoutTTY && !jq && !envelope, nil
	case FormatNDJSON, FormatJSON:
		return false, nil
	case FormatHuman, FormatMD:
		if jq || envelope {
			return false, Usage("--format %s: --jq and --json write records; drop them or use --format ndjson", format)
		}
		return true, nil
	}
	return false, Usage("--format %q: want ndjson, json, human, md or auto", format)
}

// ColorWanted reports whether the human form may use colour: never with
// NO_COLOR set or TERM=dumb, forced by CLICOLOR_FORCE (other than 0),
// never with CLICOLOR=0, else only on a terminal. The front command's
// remote client decides with it, in its own environment, and asks the
// server for colour (lib/remote).
func ColorWanted(getenv func(string) string, stdoutTTY bool) bool {
	if getenv == nil {
		return false
	}
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false
	}
	if v := getenv("CLICOLOR_FORCE"); v != "" && v != "0" {
		return true
	}
	if getenv("CLICOLOR") == "0" {
		return false
	}
	return stdoutTTY
}

// WidthEnv is the width in columns of the terminal the human form is
// for when stdout is not that terminal: the server of the front command's
// remote verbs sets it to the client's width (lib/remote), so the lines
// wrap as they would locally. Up to MaxWidth; otherwise not used.
const WidthEnv = "LINKLEDGER_WIDTH"

// MaxWidth is the widest WidthEnv taken.
const MaxWidth = 1000

// StderrTerminalEnv, set to 1, says the person's stderr is a terminal
// when the command's own stderr is not: the server of the front command's
// remote verbs sets it when the client's stderr is a terminal
// (lib/remote), so the "hint:" lines for a person are written as they
// would be locally (Output.Hints).
const StderrTerminalEnv = "LINKLEDGER_STDERR_TERMINAL"

// OutputOn returns the Output a command's flags ask for (--format, --jq,
// --json, --raw-output) on env.Stdout, deciding once between records and
// the human form (terminal detection on env.Stdout, colour from env), with
// progress on env.Stderr (see Output.Progress).
func OutputOn(c *ucli.Command, env Env) (*Output, error) {
	return outputOn(c, env, Flags(c).String("format"))
}

// OutputAuto is OutputOn for a command whose --format names something
// else (ll-import's input format): the form is chosen as --format auto
// would.
func OutputAuto(c *ucli.Command, env Env) (*Output, error) {
	return outputOn(c, env, FormatAuto)
}

func outputOn(c *ucli.Command, env Env, format string) (*Output, error) {
	f := Flags(c)
	tty := IsTerminal(env.Stdout)
	human, err := humanForm(format, f.String("jq") != "", f.Bool("json"), tty)
	if err != nil {
		return nil, err
	}
	o, err := NewOutput(env.Stdout, f.String("jq"), f.Bool("json"))
	if err != nil {
		return nil, err
	}
	if f.Bool("raw-output") {
		o.RawStrings(env.Stdout)
	}
	if human {
		o.Human(ColorWanted(env.Getenv, tty))
		if f, ok := env.Stdout.(*os.File); ok && tty {
			if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
				o.SetWidth(cols)
			}
		} else if env.Getenv != nil {
			// a remote verb's client terminal (WidthEnv)
			if cols, err := strconv.Atoi(env.Getenv(WidthEnv)); err == nil && cols > 0 && cols <= MaxWidth {
				o.SetWidth(cols)
			}
		}
	}
	o.stderr = env.Stderr
	o.stderrTTY = env.Stderr != nil && (IsTerminal(env.Stderr) || env.Getenv != nil && env.Getenv(StderrTerminalEnv) == "1")
	o.quiet = f.Bool("quiet")
	return o, nil
}
