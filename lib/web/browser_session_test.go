package web_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/cmd/linkledger"
	"github.com/linkledger/linkledger/lib/cmd/linkledger/inprocess"
)

// uiAt starts `linkledger ui --no-worker` on db and addr; it returns the
// sign-in link it printed and stop, which stops it and checks its exit.
func uiAt(t *testing.T, db, addr string) (string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	env := cli.Env{Stdin: strings.NewReader(""), Stdout: pw, Stderr: io.Discard, Getenv: func(k string) string {
		if k == "LINKLEDGER_DB" {
			return db
		}
		return os.Getenv(k)
	}, Getwd: os.Getwd}
	go func() {
		done <- linkledger.Run(ctx, inprocess.Filters(), env, []string{"linkledger", "ui", "--addr", addr, "--no-worker"})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("linkledger ui printed no URL: %v", err)
	}
	go io.Copy(io.Discard, pr)
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("linkledger ui exit %d", code)
		}
	}
	t.Cleanup(stop)
	return strings.TrimSpace(line), stop
}

// TestBrowserStaysSignedIn: a person opens the sign-in link once; after
// `linkledger ui` restarts on the same address (a new run, a new token)
// the browser is still signed in; Sign out ends it, and the app then
// shows the sign-in page saying how to get a link.
func TestBrowserStaysSignedIn(t *testing.T) {
	exe := chromium(t)
	db := filepath.Join(t.TempDir(), "ll.db")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	base := "http://" + addr
	link, stop := uiAt(t, db, addr)
	ctx := browser(t, exe)
	run(t, ctx, chromedp.Navigate(link), chromedp.WaitVisible(`h1`))
	if h := eval[string](t, ctx, `document.querySelector("h1").textContent`); h != "Inbox" {
		t.Fatalf("after the sign-in link: %q", h)
	}
	stop()
	second, _ := uiAt(t, db, addr)
	if second == link {
		t.Fatalf("the restarted server printed the same token")
	}
	run(t, ctx, chromedp.Navigate(base+"/search"), chromedp.WaitVisible(`h1`))
	if h := eval[string](t, ctx, `document.querySelector("h1").textContent`); h != "Search" {
		t.Fatalf("after a restart of linkledger ui: %q, want the search page (still signed in)", h)
	}
	// the session cookie is not readable by script (HttpOnly)
	if c := eval[string](t, ctx, `document.cookie`); c != "" {
		t.Errorf("document.cookie %q: the session must be HttpOnly", c)
	}
	run(t, ctx, navigates(chromedp.Click(`form.signout button`)))
	if s := eval[string](t, ctx, `document.body.innerText`); !strings.Contains(s, "Signed out.") {
		t.Errorf("after Sign out:\n%s", s)
	}
	run(t, ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(`h1`))
	body := eval[string](t, ctx, `document.body.innerText`)
	if !strings.Contains(body, "Sign in") || !strings.Contains(body, "linkledger ui --sign-in-link --addr "+addr) {
		t.Errorf("signed out, the inbox's address shows:\n%s", body)
	}
	shot(t, ctx, "signin")
	// at phone width the page has no horizontal scroll
	run(t, ctx, chromedp.EmulateViewport(360, 740), chromedp.Navigate(base+"/"), chromedp.WaitVisible(`h1`))
	if w := eval[bool](t, ctx, `document.documentElement.scrollWidth > window.innerWidth`); w {
		t.Errorf("the sign-in page scrolls sideways at 360 px")
	}
	shot(t, ctx, "signin-phone")
}
