package replica_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/replica"
)

// sshServer starts Debian's sshd (openssh-server) on a free loopback
// port with a host key and an authorized key of its own, serving sftp;
// it skips when there is no sshd. It returns the replica URL of a folder
// on it and how to sign in.
func sshServer(t *testing.T) (url string, sftp replica.SFTP, hostKeyOf func(string) string) {
	t.Helper()
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		sshd = "/usr/sbin/sshd"
		if _, err := os.Stat(sshd); err != nil {
			t.Skip("skipped: no sshd (Debian: apt-get install openssh-server; the sftp:// replica test runs its own on loopback)")
		}
	}
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("skipped: no ssh-keygen")
	}
	if _, err := os.Stat("/run/sshd"); err != nil && os.Geteuid() == 0 {
		// sshd's privilege separation folder, made by its service
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Skipf("skipped: sshd needs /run/sshd: %v", err)
		}
	}
	u, err := user.Current()
	if err != nil {
		t.Skip("skipped: no current user")
	}
	dir := t.TempDir()
	keygen := func(name string) {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ll-test", "-f", filepath.Join(dir, name)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v %s", err, out)
		}
	}
	keygen("host")
	keygen("other_host")
	keygen("user")
	pub, err := os.ReadFile(filepath.Join(dir, "user.pub"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	conf := fmt.Sprintf(`ListenAddress %s
HostKey %s
PidFile none
AuthorizedKeysFile %s
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
AllowUsers %s
Subsystem sftp internal-sftp
`, addr, filepath.Join(dir, "host"), filepath.Join(dir, "authorized_keys"), u.Username)
	cf := filepath.Join(dir, "sshd_config")
	if err := os.WriteFile(cf, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	var log syncWriter
	cmd := exec.Command(sshd, "-D", "-e", "-f", cf)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Skipf("skipped: sshd does not start: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("sshd log:\n%s", log.String())
		}
	})
	ready := false
	for i := 0; i < 100 && !ready; i++ {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			ready = true
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !ready {
		t.Skipf("skipped: sshd did not listen on %s: %s", addr, log.String())
	}
	hostKeyOf = func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name+".pub"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	remote := filepath.Join(t.TempDir(), "replica")
	return "sftp://" + u.Username + "@" + addr + remote, replica.SFTP{KeyPath: filepath.Join(dir, "user"), HostKey: hostKeyOf("host")}, hostKeyOf
}

// TestReplicateSFTP: the replication test against an sftp:// replica on
// a loopback sshd, signed in with a key and the server's host key checked;
// a restore that is shown another host key is refused and writes nothing.
func TestReplicateSFTP(t *testing.T) {
	bin := litestream(t)
	url, sftp, hostKeyOf := sshServer(t)
	killWriterAndRestore(t, bin, url, sftp, writeSeconds(t)/2)

	dest := filepath.Join(t.TempDir(), "impostor.db")
	bad := sftp
	bad.HostKey = hostKeyOf("other_host")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := replica.Restore(ctx, url, dest, replica.RestoreOptions{Binary: bin, SFTP: bad})
	var re *replica.RestoreError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "host key") {
		t.Errorf("restore with another host key: %v, want a RestoreError about the host key", err)
	}
	if _, err := os.Stat(dest); err == nil {
		t.Errorf("restore with another host key wrote %s", dest)
	}
	noKey := sftp
	noKey.HostKey = ""
	if err := replica.Restore(ctx, url, dest, replica.RestoreOptions{Binary: bin, SFTP: noKey}); err == nil || !strings.Contains(err.Error(), "LINKLEDGER_REPLICA_SFTP_HOST_KEY") {
		t.Errorf("restore without a host key: %v, want a refusal naming LINKLEDGER_REPLICA_SFTP_HOST_KEY", err)
	}
}
