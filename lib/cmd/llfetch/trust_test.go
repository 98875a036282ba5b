package llfetch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/fetch"
)

// optionsOf runs the command's flag parsing with args and env vars and
// returns the fetch options it built (the action does not fetch).
func optionsOf(t *testing.T, dir string, vars map[string]string, args ...string) (fetch.Options, error) {
	t.Helper()
	env, _, _ := testEnv(t, dir)
	env.Getenv = func(k string) string { return vars[k] }
	cmd := Command(env)
	var got fetch.Options
	var gotErr error
	cmd.Action = func(ctx context.Context, c *ucli.Command) error {
		got, gotErr = options(c, env)
		return nil
	}
	if err := cmd.Run(context.Background(), append([]string{"ll-fetch"}, args...)); err != nil {
		t.Fatalf("run: %v", err)
	}
	return got, gotErr
}

func TestAllowFilesOptions(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "list.txt")
	if err := os.WriteFile(list, []byte("# granted\n/data/a.pdf\n\nrel/b.md\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"HOME": "/home/u", "LINKLEDGER_ALLOW_FILES": "/srv/x:~/notes"}
	got, err := optionsOf(t, dir, vars,
		"--allow-files", "papers", "--allow-files", "~/p", "--allow-files", "/abs", "--allow-files-from", list,
		"./page.html", "https://example.com/", "/tmp/x.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		// arguments that are local paths: the user named them
		filepath.Join(dir, "page.html"), "/tmp/x.txt",
		// --allow-files (repeatable, relative to the working folder, ~)
		filepath.Join(dir, "papers"), "/home/u/p", "/abs",
		// LINKLEDGER_ALLOW_FILES
		"/srv/x", "/home/u/notes",
		// --allow-files-from
		"/data/a.pdf", filepath.Join(dir, "rel/b.md"),
	}
	if diff := cmp.Diff(want, got.AllowFiles); diff != "" {
		t.Errorf("AllowFiles (-want +got):\n%s", diff)
	}

	// stdin only: nothing allowed
	got, err = optionsOf(t, dir, nil)
	if err != nil || len(got.AllowFiles) != 0 {
		t.Errorf("no flags: %v %v, want nothing allowed", got.AllowFiles, err)
	}
	if _, err := optionsOf(t, dir, nil, "--allow-files-from", filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing --allow-files-from file is not an error")
	}
}

func TestPublicOnlyOptions(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		env     string
		args    []string
		want    bool
		wantErr bool
	}{
		{"", nil, false, false},
		{"1", nil, true, false},
		{"true", nil, true, false},
		{"0", nil, false, false},
		{"off", nil, false, false},
		{"", []string{"--public-only"}, true, false},
		{"1", []string{"--public-only=false"}, false, false},
		{"sometimes", nil, false, true},
	} {
		got, err := optionsOf(t, dir, map[string]string{"LINKLEDGER_PUBLIC_ONLY": tt.env}, tt.args...)
		if (err != nil) != tt.wantErr || (err == nil && got.PublicOnly != tt.want) {
			t.Errorf("env %q args %v: public_only %v err %v, want %v (error %v)", tt.env, tt.args, got.PublicOnly, err, tt.want, tt.wantErr)
		}
		var ee *cli.ExitError
		if err != nil && (!errors.As(err, &ee) || ee.Code != cli.ExitUsage) {
			t.Errorf("env %q: error %v, want a usage error", tt.env, err)
		}
	}
}
