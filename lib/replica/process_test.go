package replica_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/replica"
)

// fakeLitestream writes a shell script standing in for litestream.
func fakeLitestream(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "litestream")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func ledgerFile(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "ll.db")
	newLedger(t, db)
	return db
}

// TestStartConfig: the configuration Litestream gets is private (0600 in
// a 0700 folder), names the ledger and the replica, holds no credential
// from the environment, and is removed when Litestream exits.
func TestStartConfig(t *testing.T) {
	t.Setenv("AWS_SECRET_ACCESS_KEY", "s3cr3t-from-env")
	// the script prints the modes and the file, then waits for SIGTERM
	bin := fakeLitestream(t, `cfg=$3; stat -c 'mode %a' "$cfg"; stat -c 'dir %a' "$(dirname "$cfg")"; echo "args $*"; cat "$cfg"; echo "path $cfg"
trap 'exit 0' TERM; while :; do sleep 0.05; done`)
	db := ledgerFile(t)
	var log syncWriter
	p, err := replica.Start(context.Background(), replica.Options{DB: db, URL: "s3://bucket/ll?endpoint=https://127.0.0.1:9000", Binary: bin, Stderr: &log})
	if err != nil {
		t.Fatal(err)
	}
	var out string
	for i := 0; i < 200; i++ {
		if out = log.String(); strings.Contains(out, "litestream: path ") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := p.Stop(context.Background()); err != nil {
		t.Fatalf("stop: %v", err)
	}
	for _, want := range []string{"litestream: mode 600\n", "litestream: dir 700\n", "-no-expand-env", `"path": "` + db + `"`, `"url": "s3://bucket/ll?endpoint=https://127.0.0.1:9000"`, `"sync-interval": "1s"`} {
		if !strings.Contains(out, want) {
			t.Errorf("config output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "s3cr3t") {
		t.Errorf("a credential from the environment reached the configuration:\n%s", out)
	}
	_, cfg, _ := strings.Cut(out, "litestream: path ")
	cfg = strings.TrimSpace(cfg)
	if _, err := os.Stat(filepath.Dir(cfg)); err == nil {
		t.Errorf("configuration folder %s left behind", filepath.Dir(cfg))
	}
}

// TestStopKills: a Litestream that ignores SIGTERM is killed after the
// stop timeout, and Stop says the replica may lack the last changes.
func TestStopKills(t *testing.T) {
	bin := fakeLitestream(t, `trap '' TERM; echo up; while :; do sleep 0.05; done`)
	var log syncWriter
	p, err := replica.Start(context.Background(), replica.Options{DB: ledgerFile(t), URL: "file://" + t.TempDir() + "/r", Binary: bin, Stderr: &log, StopTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200 && !strings.Contains(log.String(), "up"); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if err := p.Stop(context.Background()); !errors.Is(err, replica.ErrKilled) {
		t.Errorf("stop: %v, want ErrKilled", err)
	}
	select {
	case <-p.Done():
	default:
		t.Error("Done not closed after Stop")
	}
}

// TestExitedByItself: a Litestream that exits on its own is reported
// (Done, Err), and Stop returns the same error.
func TestExitedByItself(t *testing.T) {
	bin := fakeLitestream(t, `echo "cannot open db" >&2; exit 1`)
	var log syncWriter
	p, err := replica.Start(context.Background(), replica.Options{DB: ledgerFile(t), URL: "file://" + t.TempDir() + "/r", Binary: bin, Stderr: &log})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("Done not closed after litestream exited")
	}
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "exited by itself") {
		t.Errorf("Err = %v, want exited by itself", err)
	}
	if err := p.Stop(context.Background()); err == nil || !strings.Contains(err.Error(), "exited by itself") {
		t.Errorf("Stop = %v, want the exit", err)
	}
	if !strings.Contains(log.String(), "litestream: cannot open db\n") {
		t.Errorf("log lacks litestream's line: %q", log.String())
	}
}

// TestStartRefuses: a missing ledger, a replica folder that is the
// ledger's own, a bad URL, sftp without a key or host key.
func TestStartRefuses(t *testing.T) {
	bin := fakeLitestream(t, `sleep 5`)
	db := ledgerFile(t)
	for _, c := range []struct {
		opt  replica.Options
		want string
	}{
		{replica.Options{DB: filepath.Join(t.TempDir(), "none.db"), URL: "file:///srv/r"}, "no such ledger file"},
		{replica.Options{DB: db, URL: "file://" + filepath.Dir(db)}, "holds the ledger itself"},
		{replica.Options{DB: db, URL: "ftp://h/x"}, `scheme "ftp"`},
		{replica.Options{DB: db, URL: "sftp://me@127.0.0.1/r"}, "LINKLEDGER_REPLICA_SFTP_KEY"},
		{replica.Options{DB: db, URL: "sftp://me@127.0.0.1/r", SFTP: replica.SFTP{KeyPath: "/k"}}, "LINKLEDGER_REPLICA_SFTP_HOST_KEY"},
	} {
		c.opt.Binary = bin
		p, err := replica.Start(context.Background(), c.opt)
		if err == nil {
			p.Stop(context.Background())
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Start(%s, %s) = %v, want %q", c.opt.DB, c.opt.URL, err, c.want)
		}
	}
}
