package replica_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/replica"
)

func TestParseURL(t *testing.T) {
	for _, c := range []struct {
		in, scheme, url, bad string
	}{
		{in: "file:///srv/copies/ll", scheme: "file", url: "file:///srv/copies/ll"},
		{in: "file:///srv/copies/ll/", scheme: "file", url: "file:///srv/copies/ll"},
		{in: "sftp://me@127.0.0.1:2222/home/me/ll", scheme: "sftp", url: "sftp://me@127.0.0.1:2222/home/me/ll"},
		{in: "s3://bucket/ll?endpoint=https://s3.example.net&region=eu-1", scheme: "s3", url: "s3://bucket/ll?endpoint=https://s3.example.net&region=eu-1"},
		{in: "", bad: "empty"},
		{in: "/srv/copies", bad: "no scheme"},
		{in: "http://example.com/x", bad: `scheme "http"`},
		{in: "file://srv/copies", bad: "three slashes"},
		{in: "file:///", bad: "want a folder"},
		{in: "file:///x?y=1", bad: "no user or query"},
		{in: "sftp://127.0.0.1/x", bad: "want a user"},
		{in: "sftp://me:hunter2@127.0.0.1/x", bad: "password in the URL"},
		{in: "sftp://me@127.0.0.1/", bad: "want a folder"},
		{in: "s3://key:secret@bucket/x", bad: "keys never go in the URL"},
		{in: "s3:///x", bad: "want a bucket"},
		{in: "s3://bucket/x?access-key-id=k", bad: "unknown query parameter"},
		{in: "s3://bucket/x?endpoint=ftp://h", bad: "want https://host"},
	} {
		got, err := replica.ParseURL(c.in)
		if c.bad != "" {
			var be *replica.BadURLError
			if !errors.As(err, &be) || !strings.Contains(err.Error(), c.bad) {
				t.Errorf("ParseURL(%q) = %+v, %v; want an error saying %q", c.in, got, err, c.bad)
			}
			if strings.Contains(c.in, "hunter2") && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("ParseURL(%q) error shows the password: %v", c.in, err)
			}
			continue
		}
		if err != nil || got.Scheme != c.scheme || got.URL != c.url {
			t.Errorf("ParseURL(%q) = %+v, %v; want %s %s", c.in, got, err, c.scheme, c.url)
		}
	}
}

// TestFindBinary: LINKLEDGER_LITESTREAM first, then beside linkledger,
// then PATH; none says how to install it.
func TestFindBinary(t *testing.T) {
	exeDir, pathDir, other := t.TempDir(), t.TempDir(), t.TempDir()
	mk := func(dir string) string {
		p := filepath.Join(dir, "litestream")
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Setenv("PATH", other)
	if _, err := replica.FindBinary("", exeDir); !errors.Is(err, replica.ErrNoBinary) || !strings.Contains(err.(*replica.NoBinaryError).Hint(), "make setup") {
		t.Errorf("none: %v, want ErrNoBinary with a hint to run make setup", err)
	}
	onPath := mk(pathDir)
	t.Setenv("PATH", pathDir)
	if got, err := replica.FindBinary("", exeDir); err != nil || got != onPath {
		t.Errorf("on PATH: %q, %v", got, err)
	}
	beside := mk(exeDir)
	if got, err := replica.FindBinary("", exeDir); err != nil || got != beside {
		t.Errorf("beside linkledger: %q, %v; want it before PATH", got, err)
	}
	named := mk(other)
	if got, err := replica.FindBinary(named, exeDir); err != nil || got != named {
		t.Errorf("named: %q, %v; want it first", got, err)
	}
	if _, err := replica.FindBinary(filepath.Join(other, "nothing"), exeDir); !errors.Is(err, replica.ErrNoBinary) || !strings.Contains(err.Error(), "LINKLEDGER_LITESTREAM=") {
		t.Errorf("named but missing: %v, want an error naming LINKLEDGER_LITESTREAM and no fallback", err)
	}
	if err := os.Chmod(named, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := replica.FindBinary(named, exeDir); err == nil || !strings.Contains(err.Error(), "not an executable") {
		t.Errorf("named, not executable: %v", err)
	}
}
