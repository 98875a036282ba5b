// Package llimport is the ll-import command: it reads the export files of
// other link tools and writes one ll-save record per saved link.
//
// Reads: the files named as arguments ("-" is stdin), each in the format
// given by --format or recognised from its content; only regular files,
// and at most --max-bytes of each (and of what its zip unpacks). Writes: one record per
// link ({"url", "title", "tags", "note", "annotations", "saved_at", "via"})
// for ll-save, in file order; an error record (stage import, code
// bad_input, with the file and line in its message and the line in
// error.line) for a row it cannot read, and the rest goes on.
// Touches: nothing (a Firefox places.sqlite is read from a private copy).
package llimport

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/importer"
	"github.com/linkledger/linkledger/lib/localfile"
	"github.com/linkledger/linkledger/lib/record"
)

const description = `ll-import reads the export files of other link tools (browsers, Pocket,
Instapaper, ...) and writes one ll-save record per saved link: its URL, title,
tags (folders become tags; read/archived state is the tag "read", favourites
the tag "starred"), note or description, highlights (by human, with their
times), the time it was first saved (saved_at) and the importer (via, kept
in the item's history). Pipe it into ll-save, which applies all its rules
(canonical URL, dedupe); importing the same file again adds nothing.

A row that cannot be read is an error record with its file and line; the
rest is imported and the exit code is 3. Only regular files are read (not
a FIFO or a device), at most --max-bytes of each, and of what a zip
unpacks; a longer file is an error record (docs/import-export.md, Limits).

FORMATS (--format; recognised from the content when not given):
%s
EXAMPLES:
   ll-import pocket.zip | ll-save
   ll-import --format urls reading-list.txt | ll-save --tags inbox
   ll-import bookmarks.html | ll-save | ll-fetch | ll-parse | ll-index
   linkledger import ~/Downloads/instapaper-export.csv`

// Command returns the ll-import command.
func Command(env cli.Env) *ucli.Command {
	var list strings.Builder
	for _, n := range importer.Names() {
		fmt.Fprintf(&list, "   %-12s %s\n", n, importer.Formats[n].Doc)
	}
	cmd := &ucli.Command{
		Name:        "ll-import",
		Usage:       "read other tools' export files into ll-save records",
		UsageText:   "ll-import [--format F] FILE ...",
		Description: fmt.Sprintf(description, list.String()),
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "the files' format `F` (see FORMATS); default: recognised from the content"},
			MaxBytesFlag(),
		},
	}
	cmd.Action = func(ctx context.Context, c *ucli.Command) error { return run(ctx, c, env) }
	cli.Prepare(cmd, env)
	// --format names the input format here: the output is records for
	// ll-save (a person at a terminal gets the human form, as --format
	// auto gives elsewhere).
	var flags []ucli.Flag
	seen := false
	for _, f := range cmd.Flags {
		if f.Names()[0] == "format" {
			if seen {
				continue
			}
			seen = true
		}
		flags = append(flags, f)
	}
	cmd.Flags = flags
	return cmd
}

// Main runs ll-import as a process.
func Main() int {
	env := cli.OSEnv()
	return cli.Main(Command(env), env, os.Args)
}

func run(ctx context.Context, c *ucli.Command, env cli.Env) error {
	var forced *importer.Format
	if name := c.String("format"); name != "" {
		forced = importer.Formats[name]
		if forced == nil {
			return cli.Usage("--format %q: want one of %s", name, strings.Join(importer.Names(), ", "))
		}
	}
	files := c.Args().Slice()
	if len(files) == 0 {
		return cli.Usage("no file given: name the export file(s) to read (- for stdin)")
	}
	max, err := cli.ParseSize(c.String("max-bytes"))
	if err != nil {
		return cli.Usage("--max-bytes %q: %v", c.String("max-bytes"), err)
	}
	out, err := cli.OutputAuto(c, env)
	if err != nil {
		return err
	}
	diag := cli.Diag{Prog: "ll-import", W: env.Stderr, Verbose: c.Bool("verbose")}
	cwd, _ := env.Getwd()
	for _, name := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := importFile(ctx, name, cwd, forced, max, env, out, diag); err != nil {
			return err
		}
	}
	return out.Finish()
}

// importFile reads one file. It returns an error only when output failed
// or the run was stopped; a file it cannot read is an error record.
func importFile(ctx context.Context, name, cwd string, forced *importer.Format, max int64, env cli.Env, out *cli.Output, diag cli.Diag) error {
	bad := func(line int, msg string) error {
		where := name
		if line > 0 {
			where = fmt.Sprintf("%s line %d", name, line)
		}
		diag.Printf("%s: %s", where, msg)
		return out.Emit(&record.Record{Error: &record.Error{Stage: record.StageImport, Code: record.CodeBadInput, Message: where + ": " + msg, Line: line}})
	}
	var data []byte
	var err error
	path := name
	// only a regular file, and never more than --max-bytes of it (or of
	// stdin): /dev/zero, a FIFO or a 5 GB file is an error record
	if name == "-" {
		data, err = localfile.ReadCapped(env.Stdin, max, 0)
		if err != nil {
			err = fmt.Errorf("stdin is %w", err)
		}
	} else {
		if !strings.HasPrefix(path, "/") && cwd != "" {
			path = cwd + "/" + path
		}
		data, err = localfile.ReadFile(path, max)
	}
	if err != nil {
		code, msg := record.CodeFileRead, err.Error()
		if errors.Is(err, localfile.ErrTooLarge) {
			code, msg = record.CodeTooLarge, msg+" (an import file is read whole: raise the cap with --max-bytes)"
		}
		diag.Printf("%s: %s", name, msg)
		return out.Emit(&record.Record{Error: &record.Error{Stage: record.StageImport, Code: code, Message: fmt.Sprintf("%s: %s", name, msg)}})
	}
	f := forced
	if f == nil {
		f, err = importer.Detect(name, data)
		if err != nil {
			if err := bad(0, fmt.Sprintf("%v; give --format (one of %s)", err, strings.Join(importer.Names(), ", "))); err != nil {
				return err
			}
			return nil
		}
		diag.Debugf("%s: format %s", name, f.Name)
	}
	sink := &importer.Sink{
		Link: func(l *importer.Link) error {
			if err := ctx.Err(); err != nil {
				return wrapOut(err)
			}
			return wrapOut(out.Emit(l.Record(f.Tool)))
		},
		Bad:      func(line int, msg string) error { return wrapOut(bad(line, msg)) },
		Record:   func(rec *record.Record) error { return wrapOut(out.Emit(rec)) },
		MaxBytes: max,
		Notice:   func(msg string) { diag.Printf("%s", msg) },
	}
	read := f.Read
	if f.ReadPath != nil && name != "-" {
		read = func(data []byte, s *importer.Sink) error { return f.ReadPath(path, data, s) }
	}
	if err := read(data, sink); err != nil {
		var oe outputError
		if errors.As(err, &oe) {
			return oe.err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return bad(0, fmt.Sprintf("not readable as %s: %v", f.Name, err))
	}
	return nil
}

// MaxBytesFlag is --max-bytes, the cap on what is read for one import
// file (ll-import's and linkledger import's).
func MaxBytesFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "max-bytes", Value: fmt.Sprintf("%dMiB", importer.DefaultMaxBytes>>20), Usage: "read at most `SIZE` for one file: the file (stdin, a -wal) and what its zip unpacks (bytes, or with k, KiB, MB, MiB, GB, GiB)"}
}

// outputError marks an error of the sink (writing output, the run
// stopped), which ends the run, from one of reading the file, which is an
// error record.
type outputError struct{ err error }

func (e outputError) Error() string { return e.err.Error() }

func wrapOut(err error) error {
	if err == nil {
		return nil
	}
	return outputError{err}
}
