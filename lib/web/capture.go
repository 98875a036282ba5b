package web

import (
	"context"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
)

// --- reuse ------------------------------------------------------------------

// bar is one bar of the reuse chart, in SVG user units.
type bar struct {
	Label        string
	Value        int
	Y, W, TextX  int
	ID           string
	Share, Width int
}

// chartWidth is the bar area of the chart (the SVG scales to the page).
const chartWidth = 400

func (s *Server) reuse(w http.ResponseWriter, r *http.Request) {
	st, err := s.opt.Ledger.Stats(r.Context(), ledger.StatsOptions{})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	most := 1
	for _, u := range st.MostReused {
		most = max(most, u.Tasks)
	}
	bars := make([]bar, len(st.MostReused))
	for i, u := range st.MostReused {
		label := u.Title
		if label == "" {
			label = u.URL
		}
		bars[i] = bar{Label: short(48, label), Value: u.Tasks, Y: 10 + i*28, W: max(2, u.Tasks*chartWidth/most), ID: u.ItemID}
		bars[i].TextX = bars[i].W + 6
	}
	s.render(w, r, http.StatusOK, "reuse", view{Title: "Reuse", Nav: "reuse", Data: struct {
		Stats                 *record.UsageStats
		Bars                  []bar
		Height                int
		ShareW, GoalX, ChartW int
	}{st, bars, 20 + len(bars)*28, int(st.ReuseShare * chartWidth), int(st.ReuseGoal * chartWidth), chartWidth}})
}

// --- bookmarklet and capture --------------------------------------------------

// bookmarklet is the script of the bookmarklet: it opens the capture form
// of this server in a small window with the tab's URL, title and selected
// text. Its only inputs are the port and the capture token (hex), both
// ours, so it is built here and marked as a URL for the href.
func (s *Server) bookmarkletJS() string {
	if s.served != nil {
		// served mode: the server's public origin (checked to be a plain
		// scheme://host[:port]), no token: the window opened is a
		// top-level navigation, which carries the SameSite=Lax session
		// cookie of the browser that signed in
		return "javascript:(function(){var s=String(window.getSelection()).slice(0,8000);" +
			"window.open('" + s.served.first + "/capture?url='+encodeURIComponent(location.href)+'&title='+encodeURIComponent(document.title)+'&sel='+encodeURIComponent(s)," +
			"'linkledger','width=480,height=600');})()"
	}
	return "javascript:(function(){var s=String(window.getSelection()).slice(0,8000);" +
		"window.open('http://127.0.0.1:" + strconv.Itoa(s.opt.Port) + "/capture?bt=" + s.opt.CaptureToken +
		"&url='+encodeURIComponent(location.href)+'&title='+encodeURIComponent(document.title)+'&sel='+encodeURIComponent(s)," +
		"'linkledger','width=480,height=600');})()"
}

func (s *Server) bookmarklet(w http.ResponseWriter, r *http.Request) {
	js := s.bookmarkletJS()
	origin := ""
	if s.served != nil {
		origin = s.served.first
	}
	s.render(w, r, http.StatusOK, "bookmarklet", view{Title: "Bookmarklet", Nav: "bookmarklet", Data: struct {
		Href         template.URL
		Code, Origin string
	}{template.URL(js), js, origin}})
}

// captureAllowed reports whether a request to /capture that carries the
// capture token (and no session) may go on, and answers it when not.
// The capture token is readable by the page the bookmarklet is clicked
// on, so all it opens is what capture needs (docs/ui.md "The
// bookmarklet's token"): the capture form (GET), and a save (POST) that
// comes from that form, posted by a browser from this server's own
// origin (Sec-Fetch-Site same-origin, or our Origin). Cross-origin
// protection already refuses another origin's post; this also refuses a
// post that says nothing of where it comes from (a script or curl that
// learned the token), which cross-origin protection lets through.
func (s *Server) captureAllowed(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodPost {
		return true
	}
	if r.Header.Get("Sec-Fetch-Site") == "same-origin" || r.Header.Get("Origin") == "http://"+r.Host {
		return true
	}
	s.plainError(w, http.StatusForbidden, "the bookmarklet's token saves only from its capture window in a browser")
	return false
}

// captureOnlyKey marks the context of a request let in by the capture
// token alone (no session).
type captureOnlyKey struct{}

func captureOnly(ctx context.Context) context.Context {
	return context.WithValue(ctx, captureOnlyKey{}, true)
}

func isCaptureOnly(ctx context.Context) bool { v, _ := ctx.Value(captureOnlyKey{}).(bool); return v }

type captureData struct {
	URL, Title, Sel, Note, Tags, BT string
	Error                           string
	Saved                           *record.Record
}

func (s *Server) captureForm(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.render(w, r, http.StatusOK, "capture", view{Title: "Save to linkledger", Nav: "capture", Data: &captureData{
		URL: q.Get("url"), Title: q.Get("title"), Sel: q.Get("sel"), BT: q.Get("bt")}})
}

func (s *Server) capture(w http.ResponseWriter, r *http.Request) {
	d := &captureData{URL: strings.TrimSpace(r.PostFormValue("url")), Title: strings.TrimSpace(r.PostFormValue("title")),
		Sel: strings.TrimSpace(r.PostFormValue("sel")), Note: strings.TrimSpace(r.PostFormValue("note")),
		Tags: r.PostFormValue("tags"), BT: r.PostFormValue("bt")}
	u, err := ledger.RemoteURL(d.URL)
	if err == nil && len(d.Sel) > maxQuote {
		err = &ledger.InputError{Code: record.CodeBadInput, Message: "the selection is over 16 KiB"}
	}
	if err == nil {
		rec := &record.Record{URL: u, Title: d.Title, Note: d.Note, Tags: splitTags(d.Tags)}
		if d.Sel != "" {
			rec.Annotations = []record.Annotation{{Type: record.AnnHighlight, Text: d.Sel, Actor: actor(r)}}
		}
		d.Saved, err = s.opt.Ledger.Save(r.Context(), rec, ledger.SaveOptions{Actor: actor(r)})
	}
	if err != nil {
		d.Error = err.Error()
		s.render(w, r, http.StatusBadRequest, "capture", view{Title: "Save to linkledger", Nav: "capture", Data: d})
		return
	}
	s.poke()
	if isCaptureOnly(r.Context()) {
		// the capture token reads nothing: not even whether the link
		// was saved before
		d.Saved = &record.Record{URL: d.URL}
	}
	s.render(w, r, http.StatusOK, "capture", view{Title: "Saved", Nav: "capture", Data: d})
}
