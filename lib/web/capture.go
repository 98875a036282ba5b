package web

import (
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
	return "javascript:(function(){var s=String(window.getSelection()).slice(0,8000);" +
		"window.open('http://127.0.0.1:" + strconv.Itoa(s.opt.Port) + "/capture?bt=" + s.opt.CaptureToken +
		"&url='+encodeURIComponent(location.href)+'&title='+encodeURIComponent(document.title)+'&sel='+encodeURIComponent(s)," +
		"'linkledger','width=480,height=600');})()"
}

func (s *Server) bookmarklet(w http.ResponseWriter, r *http.Request) {
	js := s.bookmarkletJS()
	s.render(w, r, http.StatusOK, "bookmarklet", view{Title: "Bookmarklet", Nav: "bookmarklet", Data: struct {
		Href template.URL
		Code string
	}{template.URL(js), js}})
}

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
	err := webURL(d.URL)
	if err == nil && len(d.Sel) > maxQuote {
		err = &ledger.InputError{Code: record.CodeBadInput, Message: "the selection is over 16 KiB"}
	}
	if err == nil {
		rec := &record.Record{URL: d.URL, Title: d.Title, Note: d.Note, Tags: splitTags(d.Tags)}
		if d.Sel != "" {
			rec.Annotations = []record.Annotation{{Type: record.AnnHighlight, Text: d.Sel, Actor: human}}
		}
		d.Saved, err = s.opt.Ledger.Save(r.Context(), rec, ledger.SaveOptions{Actor: human})
	}
	if err != nil {
		d.Error = err.Error()
		s.render(w, r, http.StatusBadRequest, "capture", view{Title: "Save to linkledger", Nav: "capture", Data: d})
		return
	}
	s.poke()
	s.render(w, r, http.StatusOK, "capture", view{Title: "Saved", Nav: "capture", Data: d})
}
