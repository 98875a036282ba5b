package web

// The sign-in page and the sign-out (docs/ui.md, "Sessions and sign-in").

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// signInData is what the sign-in page shows: why it is shown, and the
// command that prints a sign-in link for this server.
type signInData struct {
	Why, Command string
	SignedOut    bool
	// Served: the token form of served mode, which goes on to Next (a
	// path of this app) once signed in.
	Served bool
	Next   string
}

// signInPage explains how to sign in (code 401 when a page was asked for
// without a session). why, when set, is a fixed text saying what went
// wrong; nothing the request carries is shown.
func (s *Server) signInPage(w http.ResponseWriter, r *http.Request, code int, why string) {
	cmd := "linkledger ui --sign-in-link"
	if s.opt.Port != DefaultPort {
		cmd += " --addr 127.0.0.1:" + strconv.Itoa(s.opt.Port)
	}
	d := signInData{Why: why, Command: cmd, SignedOut: r.URL.Path == "/signin" && r.URL.Query().Get("out") == "1"}
	if s.served != nil {
		d.Served = true
		switch {
		case r.Method == http.MethodPost:
			d.Next = localPath(r.PostFormValue("next"))
		case r.URL.Path != "/signin":
			d.Next = localPath(r.URL.RequestURI())
		}
	}
	s.render(w, r, code, "signin", view{Title: "Sign in", Nav: "signin", Data: d})
}

// signOut ends the session the cookie names (in the ledger, so on every
// browser that holds it) and clears the cookie, then shows the sign-in
// page. Without a valid session it still clears the cookie.
func (s *Server) signOut(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(s.sessionCookie()); err == nil {
		end := s.opt.Ledger.EndSession
		if s.served != nil {
			end = s.opt.Ledger.EndTokenSession
		}
		if err := end(r.Context(), c.Value); err != nil {
			s.logf("sign-out: %v", err)
			s.plainError(w, http.StatusInternalServerError, "the session could not be ended")
			return
		}
	}
	if s.served != nil {
		s.clearCookie(w)
	} else {
		http.SetCookie(w, &http.Cookie{Name: s.sessionCookie(), Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	}
	http.Redirect(w, r, "/signin?out=1", http.StatusSeeOther)
}

// Answers reports whether a linkledger ui answers on addr (a loopback
// HOST:PORT): its sign-in page, asked for with a short timeout.
func Answers(ctx context.Context, addr string) bool {
	if CheckAddr(addr) != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/signin", nil)
	if err != nil {
		return false
	}
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := hc.Do(req)
	if err != nil {
		return false
	}
	res.Body.Close()
	return res.StatusCode == http.StatusOK && strings.HasPrefix(res.Header.Get("Content-Security-Policy"), "default-src 'self'")
}
