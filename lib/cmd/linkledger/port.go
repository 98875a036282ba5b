package linkledger

// The ways in and out of a ledger: import (ll-import | ll-save in one
// process), backup and check. These verbs run in process: ll-import and
// ll-save are light (no parse chain), so linking them costs the front
// command nothing noticeable.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/cmd/findflags"
	"github.com/linkledger/linkledger/lib/exporter"
	"github.com/linkledger/linkledger/lib/importer"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// portVerbs returns the import, export, backup, check and restore-replica
// verbs.
func portVerbs(filters Filters, env cli.Env) []*ucli.Command {
	cmds := []*ucli.Command{importVerb(filters, env), exportVerb(env), backupVerb(env), checkVerb(env), restoreReplicaVerb(env)}
	for _, cmd := range cmds {
		cli.Prepare(cmd, env)
	}
	// import's --format is the input format (as ll-import's): the common
	// output --format goes
	imp := cmds[0]
	var flags []ucli.Flag
	seen := false
	for _, f := range imp.Flags {
		if f.Names()[0] == "format" {
			if seen {
				continue
			}
			seen = true
		}
		flags = append(flags, f)
	}
	imp.Flags = flags
	return cmds
}

// importBatch is how many links an import saves per transaction: fewer
// commits write each index page fewer times (docs/benchmarks.md, Import);
// a transaction of 5,000 new links holds the write lock about a second.
const importBatch = 5000

func importVerb(filters Filters, env cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "import",
		Usage:     "import other tools' export files (ll-import | ll-save)",
		UsageText: "linkledger import [--format F] [--tags T] FILE ...",
		Description: `import reads export files of other link tools (bookmark HTML, browser
profiles, Pocket, Instapaper, Markdown, URL lists; 'll-import --help' lists
the formats) and saves every link, as ll-import FILE | ll-save does: each
link keeps its first saved time, title, tags, notes and highlights, and the
history names the importer. Importing the same file again adds nothing.
Then 'linkledger worker' fetches and indexes the new items.

It writes ll-save's records; a row that could not be read is an error
record with its file and line (exit 3), and the rest is imported.

EXAMPLES:
   linkledger import ~/Downloads/pocket.zip
   linkledger import --format netscape bookmarks.html --tags from-chrome
   linkledger import notes/*.md && linkledger worker`,
		Flags: []ucli.Flag{cli.DBFlag(), cli.BusyTimeoutFlag(),
			&ucli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "the files' format `F` (ll-import --help); default: recognised from the content"},
			&ucli.StringSliceFlag{Name: "tags", Aliases: []string{"t"}, Usage: "add tags to every imported link (comma-separated)"},
			&ucli.StringFlag{Name: "rules", Usage: "extra canonicalization rules `FILE` (JSON), as in ll-save", Sources: ucli.EnvVars("LINKLEDGER_RULES")},
			&ucli.StringFlag{Name: "max-bytes", Value: fmt.Sprintf("%dMiB", importer.DefaultMaxBytes>>20), Usage: "read at most `SIZE` for one file, as ll-import's --max-bytes"},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			files := c.Args().Slice()
			if len(files) == 0 {
				return cli.Usage("no file given: name the export file(s) to import")
			}
			if f := c.String("format"); f != "" && importer.Formats[f] == nil {
				return inVerb(c, cli.Usage("--format %q: want one of %s", f, strings.Join(importer.Names(), ", ")))
			}
			if _, err := cli.ParseSize(c.String("max-bytes")); err != nil {
				return inVerb(c, cli.Usage("--max-bytes %q: %v", c.String("max-bytes"), err))
			}
			impArgs := []string{"ll-import", "--format", c.String("format")}
			if c.String("format") == "" {
				impArgs = impArgs[:1]
			}
			impArgs = append(impArgs, "--max-bytes", c.String("max-bytes"))
			// a transaction per 5,000 links: an import commits 10 times for
			// 50,000 links, not 50,000 times (docs/import-export.md, Speed)
			saveArgs := []string{"ll-save", "--batch", strconv.Itoa(importBatch), "--busy-timeout", c.Duration("busy-timeout").String()}
			if v := c.String("db"); v != "" {
				saveArgs = append(saveArgs, "--db", v)
			}
			for _, t := range c.StringSlice("tags") {
				saveArgs = append(saveArgs, "--tags", t)
			}
			if v := c.String("rules"); v != "" {
				saveArgs = append(saveArgs, "--rules", v)
			}
			if v := c.String("jq"); v != "" {
				saveArgs = append(saveArgs, "--jq", v)
			}
			for _, b := range []string{"quiet", "verbose"} {
				if c.Bool(b) {
					impArgs = append(impArgs, "--"+b)
					saveArgs = append(saveArgs, "--"+b)
				}
			}
			impArgs = append(append(impArgs, "--"), files...)
			// the filters run as a pipeline, like every verb's (exec'd in
			// the installed binary, in process in tests)
			return pipeline(ctx, filters, env, cli.FullName(c), []stage{{"ll-import", impArgs[1:]}, {"ll-save", saveArgs[1:]}})
		},
	}
}

// exportFilterFlags are ll-find's filters, for export, with its own
// archived choice: an export is the whole ledger, archived items included.
func exportFilterFlags() []ucli.Flag {
	return append(findflags.FilterFlags(),
		&ucli.BoolFlag{Name: "no-archived", Usage: "leave archived items out (an export has them by default)"},
		&ucli.BoolFlag{Name: "only-archived", Usage: "only archived items"})
}

// readFilter reads the filter flags as ll-find does; archived items are
// in unless --no-archived (an export is the whole ledger).
func readFilter(c *ucli.Command, now time.Time) (spec.Filter, error) {
	archived := "any"
	switch {
	case c.Bool("no-archived") && c.Bool("only-archived"):
		return spec.Filter{}, cli.Usage("--no-archived and --only-archived: give one")
	case c.Bool("no-archived"):
		archived = "no"
	case c.Bool("only-archived"):
		archived = "only"
	}
	return findflags.Filter(c, now, archived)
}

func exportVerb(env cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "export",
		Usage:     "write the whole ledger (or the items filters pass) as NDJSON",
		UsageText: "linkledger export [--text] [--tags T --since WHEN ...] > ledger.ndjson",
		Description: `export writes one record per item, oldest first: what 'linkledger show'
prints (metadata, ingest status and last error, archived_at, tags with who
added them, every annotation with its id, actor, confidence, pin, chunk and
time, every artifact, and with --text its chunks), plus its history (every
event: entity, action, actor, at, detail) and its row as stored
("ledger_item"). Archived items are in unless --no-archived; the filters
are ll-find's.

ll-import --format linkledger FILE | ll-save restores an export into a
database: the same items, ids, annotation ids (when free), tags, times and
history; an item the database has already is left as it is. Without --text
the items come back without their text, as saved, for the worker to fetch.

--bookmarks writes Netscape bookmark HTML instead (title, URL, saved time,
tags, notes): every browser and link tool imports it. --vault DIR writes a
Markdown vault: one file per item ("TITLE ll_ID.md") with YAML front matter
(url, title, author, source, saved, published, tags, status) and its
highlights, lowlights and notes with actor and confidence. Running it again
rewrites only the files whose item changed; files without an item id in
their name are never touched, and nothing is deleted.

EXAMPLES:
   linkledger export --text > ledger.ndjson
   linkledger export --tags ai --since 30d --jq .canonical_url -r
   ll-import --format linkledger ledger.ndjson | ll-save --db new.db
   linkledger export --bookmarks > bookmarks.html
   linkledger export --vault ~/notes/links --tags ai`,
		Flags: append([]ucli.Flag{cli.DBFlag(),
			&ucli.BoolFlag{Name: "text", Usage: "add every item's text (its chunks, in order)"},
			&ucli.BoolFlag{Name: "bookmarks", Usage: "write Netscape bookmark HTML instead (browsers and link tools import it)"},
			&ucli.StringFlag{Name: "vault", Usage: "write a Markdown vault into folder `DIR` instead: one file per item (Obsidian or any editor)"},
		}, exportFilterFlags()...),
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Len() > 0 {
				return cli.Usage("export takes no arguments (got %q); it writes to stdout", c.Args().First())
			}
			vaultDir, bookmarks := c.String("vault"), c.Bool("bookmarks")
			switch {
			case vaultDir != "" && bookmarks:
				return cli.Usage("--vault and --bookmarks: give one")
			case c.Bool("text") && (vaultDir != "" || bookmarks):
				return cli.Usage("--text: only the NDJSON export carries the text")
			}
			out, st, _, err := openOutput(ctx, c, env, false)
			if err != nil {
				return err
			}
			defer st.Close()
			f, err := readFilter(c, st.Now())
			if err != nil {
				return err
			}
			ids, err := st.ExportIDs(ctx, f)
			if err != nil {
				return err
			}
			if bookmarks || vaultDir != "" {
				return exportReadable(ctx, st, ids, vaultDir, env, out)
			}
			for _, id := range ids {
				if err := ctx.Err(); err != nil {
					return err
				}
				rec, err := st.Export(ctx, id, c.Bool("text"))
				if errors.Is(err, spec.ErrNotFound) {
					continue // deleted since the list was read
				}
				if err != nil {
					return fmt.Errorf("export %s: %w", id, err)
				}
				if err := out.Emit(rec); err != nil {
					return err
				}
			}
			return out.Finish()
		},
	}
}

// exportReadable writes the bookmark HTML (on stdout) or the Markdown
// vault (into dir, a record per item: its file and whether it was
// written).
func exportReadable(ctx context.Context, st *ledger.Ledger, ids []string, dir string, env cli.Env, out *cli.Output) error {
	var bm *exporter.Bookmarks
	var vault *exporter.Vault
	if dir == "" {
		bm = exporter.NewBookmarks(env.Stdout)
	} else {
		var err error
		if vault, err = exporter.OpenVault(dir); err != nil {
			return fmt.Errorf("--vault %s: %w", dir, err)
		}
	}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := st.ShowID(ctx, id, ledger.ShowOptions{Markdown: vault != nil})
		if errors.Is(err, spec.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("export %s: %w", id, err)
		}
		if bm != nil {
			if err := bm.Item(rec); err != nil {
				return err
			}
			continue
		}
		for i, im := range rec.Images {
			// the stored copies go beside the note
			if im.ContentType == "" {
				continue
			}
			_, data, err := st.Image(ctx, id, i+1)
			if err != nil && !errors.Is(err, spec.ErrNoImage) {
				return fmt.Errorf("export %s: image %d: %w", id, i+1, err)
			}
			rec.Images[i].Data = data
		}
		path, written, err := vault.Item(rec)
		if err != nil {
			return fmt.Errorf("--vault: %w", err)
		}
		if out.IsHuman() {
			// a person reads a line, not the record
			done := "wrote"
			if !written {
				done = "unchanged"
			}
			if err := out.Text(fmt.Sprintf("%-9s %s  %s", done, id, path)); err != nil {
				return err
			}
			continue
		}
		if err := out.EmitValue(map[string]any{"id": id, "vault": map[string]any{"path": path, "written": written}}); err != nil {
			return err
		}
	}
	if bm != nil {
		return bm.Close()
	}
	return out.Finish()
}

func backupVerb(env cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "backup",
		Usage:     "write a consistent copy of the database",
		UsageText: "linkledger backup [--db DB] FILE",
		Description: `backup writes a copy of the whole database to FILE while other processes
go on reading and writing it: the copy is the database as of one moment
(SQLite's VACUUM INTO), compact, and complete in one file (no -wal).
FILE is replaced when it exists (it is written beside it and renamed, so it
is never half written) and gets the database file's permissions. Temporary
files left beside FILE by killed backups (.FILE.N.tmp) are removed first,
and said on stderr; a running backup's is left alone. Restore by copying
it back while nothing runs, or use it as --db.

It writes one record: {"backup": {"path", "bytes", "items", "at"}}.

EXAMPLES:
   linkledger backup ~/backups/linkledger-$(date +%F).db
   linkledger backup /tmp/copy.db && linkledger check --db /tmp/copy.db`,
		Flags: []ucli.Flag{cli.DBFlag()},
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Len() != 1 {
				return cli.Usage("want one FILE to write the copy to: linkledger backup FILE")
			}
			dest := c.Args().First()
			out, st, path, err := openOutput(ctx, c, env, false)
			if err != nil {
				return err
			}
			defer st.Close()
			if abs(dest, env) == abs(path, env) {
				return cli.Usage("backup FILE %s is the database itself: name another file", dest)
			}
			at := st.Now()
			res, err := st.Backup(ctx, dest)
			if err != nil {
				return fmt.Errorf("backup to %s: %w", dest, err)
			}
			if n := len(res.Removed); n > 0 {
				d := cli.Diag{Prog: "linkledger backup", W: env.Stderr}
				d.Printf("removed %d temporary file(s) left by killed backups (%d bytes): %s", n, res.RemovedBytes, strings.Join(res.Removed, ", "))
			}
			info, err := os.Stat(dest)
			if err != nil {
				return err
			}
			items, err := st.ItemCount(ctx)
			if err != nil {
				return err
			}
			if out.IsHuman() {
				what := "items"
				if items == 1 {
					what = "item"
				}
				msg := fmt.Sprintf("backed up %d %s to %s (%.1f MB, as of %s)", items, what, dest, float64(info.Size())/1e6, record.FormatTime(at))
				if len(res.Removed) > 0 {
					msg += fmt.Sprintf("\nremoved %d temporary file(s) left by killed backups", len(res.Removed))
				}
				return out.Text(msg)
			}
			b := map[string]any{"path": dest, "bytes": info.Size(), "items": items, "at": record.FormatTime(at)}
			if len(res.Removed) > 0 {
				b["removed_temp_files"] = res.Removed
			}
			return emitValue(out, map[string]any{"backup": b})
		},
	}
}

func checkVerb(env cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "check",
		Usage:     "check the database and its search index; --repair rebuilds the index",
		UsageText: "linkledger check [--repair] [--db DB]",
		Description: `check runs SQLite's integrity check, the full-text index's own check, and
compares the search index with the tables (rows of items or chunks that are
gone, items or chunks missing, titles out of date), looks for rows whose
item is gone and for a model whose vectors have several sizes (check
"vectors": repaired by linkledger embed --all --resize, not --repair). It
writes one record per problem:
  {"problem": {"check": "fts", "message": "...", "count": 3, "repair": "linkledger check --repair ..."}}
and nothing when all is well (a line on stderr says so). Exit 3 when it
found problems.

--repair deletes rows whose item is gone and rebuilds the search index
from the tables (in one transaction; find works again as soon as it is
done), then checks again. A damaged file (integrity) is not repaired:
restore a backup.

EXAMPLES:
   linkledger check
   linkledger check --repair`,
		Flags: []ucli.Flag{cli.DBFlag(), cli.BusyTimeoutFlag(),
			&ucli.BoolFlag{Name: "repair", Usage: "rebuild the search index and delete orphan rows"}},
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Len() > 0 {
				return cli.Usage("check takes no arguments (got %q)", c.Args().First())
			}
			out, st, _, err := openOutput(ctx, c, env, c.Bool("repair"))
			if err != nil {
				return err
			}
			defer st.Close()
			if c.Bool("repair") {
				orphans, items, err := st.Repair(ctx)
				if err != nil {
					if ledger.IsBusy(err) {
						return cli.BusyError(st.Path(), cli.BusyTimeout(c.Duration("busy-timeout")), "nothing was changed")
					}
					return fmt.Errorf("repair: %w", err)
				}
				if !c.Bool("quiet") {
					fmt.Fprintf(env.Stderr, "linkledger: check: search index rebuilt for %d item(s), %d orphan row(s) deleted\n", items, orphans)
				}
			}
			problems, err := st.Check(ctx)
			if err != nil {
				return fmt.Errorf("check: %w", err)
			}
			for _, p := range problems {
				fmt.Fprintf(env.Stderr, "linkledger: check: %s", p.Message)
				if p.Count > 0 {
					fmt.Fprintf(env.Stderr, " (%d)", p.Count)
				}
				fmt.Fprintf(env.Stderr, "\nhint: %s\n", p.Repair)
				if err := emitValue(out, map[string]any{"problem": p}); err != nil {
					return err
				}
			}
			if err := out.Close(); err != nil {
				return err
			}
			if len(problems) > 0 {
				return cli.Partial
			}
			if !c.Bool("quiet") {
				fmt.Fprintln(env.Stderr, "linkledger: check: ok")
			}
			return nil
		},
	}
}

// emitValue writes a value that is not an item record (backup, check).
func emitValue(out *cli.Output, v any) error {
	if err := out.EmitValue(v); err != nil {
		return err
	}
	return out.Close()
}

func abs(p string, env cli.Env) string {
	if len(p) > 0 && p[0] == '/' {
		return p
	}
	wd, err := env.Getwd()
	if err != nil {
		return p
	}
	return wd + "/" + p
}
