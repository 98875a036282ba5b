package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"
)

// Man writes cmd's manual page (man(7) roff, section 1) to w, from the
// same definition as its --help: NAME, SYNOPSIS, DESCRIPTION, OPTIONS,
// EXAMPLES and EXIT STATUS. A command with subcommands (linkledger) gets
// a VERBS section with each verb's usage, options and examples.
// Descriptions follow the house layout: prose, then "EXAMPLES:" and
// "EXIT CODES:" blocks of indented lines.
func Man(w io.Writer, cmd *ucli.Command) error {
	var b strings.Builder
	name := cmd.Name
	fmt.Fprintf(&b, ".TH %s 1 \"\" \"linkledger %s\" \"linkledger manual\"\n", strings.ToUpper(roffText(name)), Version)
	b.WriteString(".SH NAME\n")
	fmt.Fprintf(&b, "%s \\- %s\n", roffText(name), roffText(cmd.Usage))
	b.WriteString(".SH SYNOPSIS\n")
	fmt.Fprintf(&b, ".B %s\n", roffText(usageLine(cmd)))
	prose, examples, exits := splitDescription(cmd.Description)
	if prose != "" {
		b.WriteString(".SH DESCRIPTION\n")
		writeProse(&b, prose)
	}
	if flags := visibleFlags(cmd); len(flags) > 0 {
		b.WriteString(".SH OPTIONS\n")
		writeFlags(&b, flags)
	}
	var verbs []*ucli.Command
	for _, v := range cmd.Commands {
		if !v.Hidden {
			verbs = append(verbs, v)
		}
	}
	if len(verbs) > 0 {
		b.WriteString(".SH VERBS\n")
		for _, v := range verbs {
			fmt.Fprintf(&b, ".SS %s\n", roffText(strings.Join(v.Names(), ", ")))
			fmt.Fprintf(&b, "%s\n.PP\n.B %s\n", roffText(v.Usage), roffText(usageLine(v)))
			vprose, vex, _ := splitDescription(v.Description)
			if vprose != "" {
				b.WriteString(".PP\n")
				writeProse(&b, vprose)
			}
			if flags := visibleFlags(v); len(flags) > 0 {
				b.WriteString(".PP\nOptions:\n")
				writeFlags(&b, flags)
			}
			if vex != "" {
				b.WriteString(".PP\nExamples:\n")
				writeBlock(&b, vex)
			}
		}
	}
	if examples != "" {
		b.WriteString(".SH EXAMPLES\n")
		writeBlock(&b, examples)
	}
	if exits == "" {
		_, _, exits = splitDescription(ExitCodesHelp)
	}
	b.WriteString(".SH EXIT STATUS\n")
	for _, line := range strings.Split(exits, "\n") {
		code, text, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", roffText(code), roffText(strings.TrimSpace(text)))
	}
	b.WriteString(".SH SEE ALSO\n")
	var see []string
	for _, n := range []string{"linkledger", "ll-save", "ll-fetch", "ll-parse", "ll-index", "ll-find", "ll-brief"} {
		if n != name {
			see = append(see, fmt.Sprintf(".BR %s (1)", n))
		}
	}
	b.WriteString(strings.Join(see, ",\n") + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// ManFlag is the hidden --man flag of every binary: print the manual page
// (make man writes them all).
func ManFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "man", Hidden: true, Usage: "print the manual page (roff)"}
}

func usageLine(cmd *ucli.Command) string {
	if cmd.UsageText != "" {
		return strings.TrimSpace(cmd.UsageText)
	}
	return cmd.Name + " [options]"
}

// splitDescription cuts a description into its prose, its EXAMPLES lines
// and its EXIT CODES lines.
func splitDescription(d string) (prose, examples, exits string) {
	prose = d
	if i := strings.Index(prose, "EXIT CODES:"); i >= 0 {
		exits = strings.Trim(prose[i+len("EXIT CODES:"):], "\n")
		prose = prose[:i]
	}
	if i := strings.Index(prose, "EXAMPLES:"); i >= 0 {
		examples = strings.Trim(prose[i+len("EXAMPLES:"):], "\n")
		prose = prose[:i]
	}
	return strings.TrimSpace(prose), examples, exits
}

// writeProse writes paragraphs; indented lines are kept as they are.
func writeProse(b *strings.Builder, text string) {
	inBlock := false
	for _, line := range strings.Split(text, "\n") {
		indented := strings.HasPrefix(line, " ")
		switch {
		case strings.TrimSpace(line) == "":
			if inBlock {
				b.WriteString(".fi\n")
				inBlock = false
			}
			b.WriteString(".PP\n")
			continue
		case indented && !inBlock:
			b.WriteString(".nf\n")
			inBlock = true
		case !indented && inBlock:
			b.WriteString(".fi\n")
			inBlock = false
		}
		b.WriteString(roffLine(line) + "\n")
	}
	if inBlock {
		b.WriteString(".fi\n")
	}
}

// writeBlock writes lines verbatim (no filling), indented.
func writeBlock(b *strings.Builder, text string) {
	b.WriteString(".RS 4\n.nf\n")
	for _, line := range strings.Split(text, "\n") {
		b.WriteString(roffLine(strings.TrimSpace(line)) + "\n")
	}
	b.WriteString(".fi\n.RE\n")
}

func visibleFlags(cmd *ucli.Command) []ucli.Flag {
	var out []ucli.Flag
	for _, f := range cmd.Flags {
		if v, ok := f.(ucli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		out = append(out, f)
	}
	return out
}

func writeFlags(b *strings.Builder, flags []ucli.Flag) {
	for _, f := range flags {
		var names []string
		for _, n := range f.Names() {
			names = append(names, `\fB`+roffText(dashed(n))+`\fR`)
		}
		usage, value, def := "", "", ""
		if d, ok := f.(ucli.DocGenerationFlag); ok {
			usage = d.GetUsage()
			if d.TakesValue() {
				value = placeholder(f)
				// a `NAME` in the usage names the value, as in --help
				if i := strings.Index(usage, "`"); i >= 0 {
					if j := strings.Index(usage[i+1:], "`"); j >= 0 {
						value = usage[i+1 : i+1+j]
						usage = usage[:i] + value + usage[i+2+j:]
					}
				}
				if d.IsDefaultVisible() {
					def = d.GetValue()
					if t := d.GetDefaultText(); t != "" {
						def = t
					}
				}
			}
			if envs := d.GetEnvVars(); len(envs) > 0 {
				usage += " [$" + strings.Join(envs, ", $") + "]"
			}
		}
		line := strings.Join(names, ", ")
		if value != "" {
			line += ` \fI` + roffText(value) + `\fR`
		}
		if def != "" && def != `""` && def != "0" && def != "false" {
			usage += " (default: " + def + ")"
		}
		fmt.Fprintf(b, ".TP\n%s\n%s\n", line, roffLine(usage))
	}
}

// placeholder names a flag's value by its type when its usage does not.
func placeholder(f ucli.Flag) string {
	g, ok := f.(interface{ Get() any })
	if !ok {
		return "VALUE"
	}
	switch g.Get().(type) {
	case int, int64, uint, uint64, []int64:
		return "N"
	case float64:
		return "NUMBER"
	case time.Duration:
		return "DURATION"
	case string, []string:
		return "TEXT"
	}
	return "VALUE"
}

// roffText escapes text for roff: backslashes and hyphens.
func roffText(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	return strings.ReplaceAll(s, "-", `\-`)
}

// roffLine escapes a line of text; a leading . or ' would be a request.
func roffLine(s string) string {
	s = roffText(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
