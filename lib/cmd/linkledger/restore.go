package linkledger

// restore-replica reads a Litestream replica (a file:// folder, sftp:// or
// s3://) through the litestream binary and writes the ledger it holds to
// --db FILE (never over an existing file unless --force), then checks the
// restored file as `linkledger check` does. It writes one record
// {"restore": {...}} and one {"problem": {...}} per problem found; it
// touches nothing but FILE and a temporary file beside it.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/replica"
)

// litestreamBinary finds the litestream binary: LINKLEDGER_LITESTREAM,
// then litestream beside this linkledger (make setup builds it into bin/),
// then PATH.
func litestreamBinary(env cli.Env) (string, error) {
	exeDir := ""
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		exeDir = filepath.Dir(exe)
	}
	return replica.FindBinary(env.Getenv("LINKLEDGER_LITESTREAM"), exeDir)
}

// replicaSFTP is how Litestream signs in to an sftp:// replica, from the
// environment (never a flag: a key path is not secret, but the host key
// and key belong with the machine's set-up, not a command line).
func replicaSFTP(env cli.Env) replica.SFTP {
	return replica.SFTP{KeyPath: env.Getenv("LINKLEDGER_REPLICA_SFTP_KEY"), HostKey: env.Getenv("LINKLEDGER_REPLICA_SFTP_HOST_KEY")}
}

func restoreReplicaVerb(env cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "restore-replica",
		Usage:     "restore a ledger from a Litestream replica",
		UsageText: "linkledger restore-replica URL --db FILE [--force]",
		Description: `restore-replica writes the ledger a Litestream replica holds (as of the
last point Litestream copied) to FILE: a read-only copy on a laptop, or a
new home after a disk died. URL is the replica linkledger serve --replica
writes: file:///folder, sftp://user@host[:port]/folder or
s3://bucket/path[?endpoint=https://host&region=R] (S3-compatible stores).
FILE (--db or LINKLEDGER_DB; no default) is written in a private folder
beside it, given mode 0600 and moved into place, so it is never half
written nor readable by others (a killed restore leaves that folder,
.FILE.restore-N: remove it); an existing FILE is refused unless --force
(which replaces it: never do that to a ledger in use). Then the restored
file is checked as linkledger check does (SQLite's integrity check, the
search index's own check, the index against the tables).

It runs the litestream binary: LINKLEDGER_LITESTREAM names it; otherwise
litestream beside linkledger (make setup builds it into bin/), otherwise
PATH. Credentials come from the environment only: AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY for s3://; for sftp:// a key file
(LINKLEDGER_REPLICA_SFTP_KEY) and the server's host key line
(LINKLEDGER_REPLICA_SFTP_HOST_KEY). See docs/several-machines.md.

It writes one record {"restore": {"path", "from", "bytes", "items", "check"}}
and one {"problem": {...}} per problem the check found (exit 3).

EXAMPLES:
   linkledger restore-replica file:///mnt/backup/linkledger --db ~/copy.db
   linkledger restore-replica 's3://bucket/ledger?endpoint=https://s3.example.net' --db new.db`,
		Flags: []ucli.Flag{cli.DBFlag(),
			&ucli.BoolFlag{Name: "force", Usage: "replace FILE when it exists (never a ledger in use)"}},
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Len() != 1 {
				return cli.Usage("want one replica URL: linkledger restore-replica URL --db FILE")
			}
			if c.String("db") == "" {
				// no default: the file to write is always named
				return cli.Usage("--db FILE (or LINKLEDGER_DB) is required: the file to restore into")
			}
			raw, dest := c.Args().First(), c.String("db")
			if _, err := replica.ParseURL(raw); err != nil {
				return cli.Usage("%v", err)
			}
			if _, err := os.Lstat(dest); err == nil && !c.Bool("force") {
				return cli.Usage("--db %v", &replica.ExistsError{Path: dest})
			}
			bin, err := litestreamBinary(env)
			if err != nil {
				return err
			}
			out, err := cli.OutputOn(c, env)
			if err != nil {
				return err
			}
			err = replica.Restore(ctx, raw, dest, replica.RestoreOptions{Binary: bin, Force: c.Bool("force"), SFTP: replicaSFTP(env)})
			var exists *replica.ExistsError
			var bad *replica.BadURLError
			switch {
			case errors.As(err, &exists):
				return cli.Usage("--db %v", err)
			case errors.As(err, &bad):
				return cli.Usage("%v", err)
			case err != nil:
				return err
			}
			l, err := ledger.Open(ctx, dest, ledger.OpenOptions{MustExist: true})
			if err != nil {
				return fmt.Errorf("restored %s but cannot open it: %w", dest, err)
			}
			defer l.Close()
			problems, err := l.Check(ctx)
			if err != nil {
				return fmt.Errorf("check %s: %w", dest, err)
			}
			items, err := l.ItemCount(ctx)
			if err != nil {
				return err
			}
			info, err := os.Stat(dest)
			if err != nil {
				return err
			}
			check := "ok"
			if len(problems) > 0 {
				check = "problems"
			}
			d := cli.Diag{Prog: "linkledger restore-replica", W: env.Stderr}
			if out.IsHuman() {
				what := "items"
				if items == 1 {
					what = "item"
				}
				if err := out.Text(fmt.Sprintf("restored %d %s to %s (%.1f MB), check: %s", items, what, dest, float64(info.Size())/1e6, check)); err != nil {
					return err
				}
			} else if err := out.EmitValue(map[string]any{"restore": map[string]any{
				"path": dest, "from": raw, "bytes": info.Size(), "items": items, "check": check}}); err != nil {
				return err
			}
			for _, p := range problems {
				d.Printf("check: %s (%d)", p.Message, p.Count)
				if err := out.EmitValue(map[string]any{"problem": p}); err != nil {
					return err
				}
			}
			if err := out.Close(); err != nil {
				return err
			}
			if len(problems) > 0 {
				return cli.Partial
			}
			return nil
		},
	}
}
