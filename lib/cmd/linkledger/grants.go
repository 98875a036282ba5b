package linkledger

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
)

// allowedFilesArgs gives ll-fetch, in a pipeline fed from the store, the
// local files the user named on ll-save's command line (ledger.AllowedFiles):
// `ll-save ./paper.pdf; linkledger worker` reads paper.pdf, while a file://
// item saved from a stdin record stays refused (docs/security.md). The list
// goes through a private temporary file (--allow-files-from), which done
// removes; it can hold more paths than a command line.
func allowedFilesArgs(ctx context.Context, env cli.Env, dbFlag string) (args []string, done func(), err error) {
	done = func() {}
	loc, err := cli.LocateDB(dbFlag, env)
	if err != nil {
		return nil, done, err
	}
	path := loc.Path
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, done, nil // no database, no grants: the pipeline's ll-find says so
	}
	st, err := cli.OpenReader(ctx, loc, ledger.OpenOptions{BusyTimeout: cli.EnvBusyTimeout(env)})
	if err != nil {
		return nil, done, err
	}
	files, err := st.AllowedFiles(ctx)
	st.Close()
	if err != nil {
		return nil, done, fmt.Errorf("%s: %w", path, err)
	}
	if len(files) == 0 {
		return nil, done, nil
	}
	fh, err := os.CreateTemp("", "linkledger-allow-*.txt") // mode 0600
	if err != nil {
		return nil, done, fmt.Errorf("list of allowed files: %w", err)
	}
	done = func() { os.Remove(fh.Name()) }
	if _, err := fh.WriteString(strings.Join(files, "\n") + "\n"); err != nil {
		fh.Close()
		done()
		return nil, func() {}, fmt.Errorf("list of allowed files: %w", err)
	}
	if err := fh.Close(); err != nil {
		done()
		return nil, func() {}, fmt.Errorf("list of allowed files: %w", err)
	}
	return []string{"--allow-files-from", fh.Name()}, done, nil
}
