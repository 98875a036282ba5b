package youtube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/internal/sharedtest"
	"github.com/linkledger/linkledger/lib/parse"
	"github.com/linkledger/linkledger/lib/record"
)

// fakeYouTube replays testdata files in the shapes of the watch page, the
// innertube player API and the timedtext endpoint.
type fakeYouTube struct {
	watch        string // testdata file, or "429"
	afterConsent string // page served once the consent cookie carries the form value
	player       string // testdata file, or "429"
	dir          string // testdata directory of watch/player files; "testdata" when empty
	transcript   string // path served for every caption track; testdata/timedtext_* when empty

	mu       sync.Mutex
	requests []string // method path?query, in order
	player0  map[string]any
}

func (f *fakeYouTube) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.RequestURI())
	f.mu.Unlock()
	dir := f.dir
	if dir == "" {
		dir = "testdata"
	}
	serve := func(dir, name string) {
		if name == "429" {
			http.Error(w, "too many requests", http.StatusTooManyRequests)
			return
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}
	switch r.URL.Path {
	case "/watch":
		if f.afterConsent != "" && strings.Contains(r.Header.Get("Cookie"), "CONSENT=YES+cb.2024") {
			serve(dir, f.afterConsent)
			return
		}
		serve(dir, f.watch)
	case "/youtubei/v1/player":
		if r.Method != http.MethodPost {
			http.Error(w, "method", http.StatusMethodNotAllowed)
			return
		}
		var body map[string]any
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &body); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.player0 = body
		f.mu.Unlock()
		serve(dir, f.player)
	case "/api/timedtext":
		if f.transcript != "" {
			serve(filepath.Dir(f.transcript), filepath.Base(f.transcript))
			return
		}
		q := r.URL.Query()
		name := "timedtext_" + q.Get("lang")
		if q.Get("kind") == "asr" {
			name += "_asr"
		}
		if q.Get("fmt") == "json3" {
			name += ".json3"
		} else if q.Has("fmt") {
			http.Error(w, "unexpected fmt "+q.Get("fmt"), http.StatusBadRequest)
			return
		} else {
			name += ".xml"
		}
		serve("testdata", name)
	default:
		http.NotFound(w, r)
	}
}

// run fetches url through a fake server and parses the bundle.
func run(t *testing.T, f *fakeYouTube, opts Options, url string) (*Bundle, *parse.Result, error) {
	t.Helper()
	// The fake answers under a path prefix, as a base URL may have one.
	mux := http.NewServeMux()
	mux.Handle("/yt/", http.StripPrefix("/yt", f))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	opts.BaseURL = srv.URL + "/yt/"
	body, ct, source, err := Fetcher(opts)(context.Background(), srv.Client(), &record.Record{URL: url})
	if source != SourceName {
		t.Errorf("source = %q, want %q", source, SourceName)
	}
	if err != nil {
		return nil, nil, err
	}
	if ct != ContentType {
		t.Errorf("content type = %q", ct)
	}
	var b Bundle
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("bundle: %v", err)
	}
	s := string(body)
	rec := &record.Record{URL: url, Body: &s, Fetch: &record.FetchInfo{ContentType: ct}}
	a := Adapter()
	if !a.Match(rec) {
		t.Fatal("adapter does not match the bundle record")
	}
	res, err := a.Parse(rec)
	return &b, res, err
}

type seg struct {
	Start *float64
	Text  string
}

func segs(ss []parse.Segment) []seg {
	var out []seg
	for _, s := range ss {
		out = append(out, seg{s.StartS, s.Text})
	}
	return out
}

func at(f float64) *float64 { return &f }

func TestURLFormsSameVideo(t *testing.T) {
	forms := []string{
		"https://www.youtube.com/watch?v=llTestVid01",
		"https://youtu.be/llTestVid01?t=42",
		"https://m.youtube.com/watch?v=llTestVid01&feature=share",
		"https://www.youtube.com/shorts/llTestVid01",
		"https://www.youtube.com/embed/llTestVid01",
		"https://www.youtube.com/watch?app=desktop&v=llTestVid01&t=1m2s",
	}
	for _, u := range forms {
		f := &fakeYouTube{watch: "watch.html", player: "player_ok.json"}
		b, res, err := run(t, f, Options{}, u)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if b.VideoID != "llTestVid01" || b.URL != "https://www.youtube.com/watch?v=llTestVid01" {
			t.Errorf("%s: video %q url %q", u, b.VideoID, b.URL)
		}
		if res.Title != "A Test Video" {
			t.Errorf("%s: title %q", u, res.Title)
		}
		if f.requests[0] != "GET /watch?v=llTestVid01" {
			t.Errorf("%s: first request %q", u, f.requests[0])
		}
	}
}

func TestTranscriptOK(t *testing.T) {
	f := &fakeYouTube{watch: "watch.html", player: "player_ok.json"}
	b, res, err := run(t, f, Options{}, "https://www.youtube.com/watch?v=llTestVid01")
	if err != nil {
		t.Fatal(err)
	}
	// The player call is the Android client's.
	client := f.player0["context"].(map[string]any)["client"].(map[string]any)
	if client["clientName"] != "ANDROID" || f.player0["videoId"] != "llTestVid01" {
		t.Errorf("player request = %v", f.player0)
	}
	if want := "POST /youtubei/v1/player?key=AIzaTestKey_123"; f.requests[1] != want {
		t.Errorf("player request %q, want %q", f.requests[1], want)
	}
	// Manual English beats the auto-generated one; srv3 became XML.
	if b.Transcript.LanguageCode != "en" || b.Transcript.Kind != "" || b.Transcript.Format != "xml" {
		t.Errorf("transcript = %+v", b.Transcript)
	}
	if strings.Contains(f.requests[2], "fmt=") {
		t.Errorf("transcript request %q kept fmt", f.requests[2])
	}
	// The stored player response is trimmed to what the adapter reads.
	var player map[string]json.RawMessage
	json.Unmarshal(b.Player, &player)
	if _, ok := player["storyboards"]; ok {
		t.Error("player response not trimmed")
	}
	want := &parse.Result{
		Title: "A Test Video", Author: "Ledger Channel", PublishedAt: "2024-03-05T14:00:08Z",
		SiteName: "YouTube", Lang: "en", Description: "What this video is about.\n\nLinks and credits.",
		DurationS: 95, SourceType: "youtube", Source: SourceName,
	}
	gotSegs := segs(res.Segments)
	res.Segments = nil
	if d := cmp.Diff(want, res); d != "" {
		t.Errorf("result (-want +got):\n%s", d)
	}
	wantSegs := []seg{
		{at(0), "Welcome to the manual English track. It has inline tags & entities like 'quotes' that run on past twenty seconds."},
		{at(22), "A second paragraph starts here."},
	}
	if d := cmp.Diff(wantSegs, gotSegs); d != "" {
		t.Errorf("segments (-want +got):\n%s", d)
	}
}

func TestLanguagePreference(t *testing.T) {
	tests := []struct {
		name       string
		langs      []string
		wantLang   string
		wantKind   string
		wantReason string
		wantFirst  seg
	}{
		// No English track: the video's own language (German, its
		// auto-generated track) in json3 form.
		{name: "default falls back to the original language", wantLang: "de", wantKind: "asr",
			wantFirst: seg{at(1.2), "hallo und willkommen"}},
		{name: "explicit language", langs: []string{"es", "fr"}, wantLang: "fr",
			wantFirst: seg{at(0), "Bonjour et bienvenue."}},
		{name: "manual in a later language beats auto in an earlier one", langs: []string{"de", "fr"}, wantLang: "fr",
			wantFirst: seg{at(0), "Bonjour et bienvenue."}},
		{name: "no acceptable track", langs: []string{"es"}, wantReason: ReasonNoTranscript},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeYouTube{watch: "watch.html", player: "player_foreign.json"}
			b, res, err := run(t, f, Options{Langs: tt.langs}, "https://youtu.be/llTestVid02")
			if err != nil {
				t.Fatal(err)
			}
			if res.NoTextReason != tt.wantReason {
				t.Fatalf("reason = %q, want %q", res.NoTextReason, tt.wantReason)
			}
			if tt.wantReason != "" {
				if b.Transcript != nil {
					t.Errorf("transcript fetched: %+v", b.Transcript)
				}
				if res.Lang != "de" {
					t.Errorf("lang = %q, want de (the auto track's language)", res.Lang)
				}
				if d := cmp.Diff([]seg{{nil, "Worum es geht."}}, segs(res.Segments)); d != "" {
					t.Errorf("description segments (-want +got):\n%s", d)
				}
				return
			}
			if b.Transcript.LanguageCode != tt.wantLang || b.Transcript.Kind != tt.wantKind || res.Lang != tt.wantLang {
				t.Errorf("transcript = %+v, lang %q", b.Transcript, res.Lang)
			}
			if d := cmp.Diff(tt.wantFirst, segs(res.Segments)[0]); d != "" {
				t.Errorf("first segment (-want +got):\n%s", d)
			}
		})
	}
}

func TestFailureShapes(t *testing.T) {
	desc := []seg{{nil, "What this video is about."}, {nil, "Links and credits."}}
	tests := []struct {
		name         string
		f            *fakeYouTube
		url          string
		wantReason   string // no_text_reason of a parsed item
		wantSegs     []seg
		wantErr      string // message prefix of a fetch upstream error
		wantRetry    bool
		wantRequests int
	}{
		{name: "transcripts disabled", f: &fakeYouTube{watch: "watch.html", player: "player_transcripts_disabled.json"},
			wantReason: ReasonTranscriptsDisabled, wantSegs: desc, wantRequests: 2},
		{name: "age restricted keeps title", f: &fakeYouTube{watch: "watch.html", player: "player_age_restricted.json"},
			wantReason: ReasonAgeRestricted, wantSegs: []seg{{nil, "What this video is about."}}, wantRequests: 2},
		{name: "po token required", f: &fakeYouTube{watch: "watch.html", player: "player_po_token.json"},
			wantReason: ReasonPOTokenRequired, wantSegs: []seg{{nil, "What this video is about."}}, wantRequests: 2},
		{name: "request blocked, metadata from the watch page", f: &fakeYouTube{watch: "watch.html", player: "player_request_blocked.json"},
			wantReason: ReasonRequestBlocked, wantSegs: desc, wantRequests: 2},
		{name: "unplayable, metadata from the watch page", f: &fakeYouTube{watch: "watch.html", player: "player_unplayable.json"},
			wantReason: ReasonUnplayable, wantSegs: desc, wantRequests: 2},
		{name: "player 429, metadata from the watch page", f: &fakeYouTube{watch: "watch.html", player: "429"},
			wantReason: ReasonRateLimited, wantSegs: desc, wantRequests: 2},
		{name: "consent accepted with the form value", f: &fakeYouTube{watch: "watch_consent.html", afterConsent: "watch.html", player: "player_ok.json"},
			wantRequests: 4},
		{name: "consent wall without a value", f: &fakeYouTube{watch: "watch_consent_novalue.html", player: "player_ok.json"},
			wantErr: "youtube: consent_required", wantRequests: 1},
		{name: "consent wall that stays", f: &fakeYouTube{watch: "watch_consent.html", player: "player_ok.json"},
			wantErr: "youtube: consent_required", wantRequests: 2},
		{name: "captcha page", f: &fakeYouTube{watch: "watch_captcha.html", player: "player_ok.json"},
			wantErr: "youtube: rate_limited", wantRetry: true, wantRequests: 1},
		{name: "watch page 429", f: &fakeYouTube{watch: "429", player: "player_ok.json"},
			wantErr: "youtube: rate_limited", wantRetry: true, wantRequests: 1},
		{name: "invalid video id", f: &fakeYouTube{watch: "watch.html", player: "player_ok.json"}, url: "https://www.youtube.com/watch?v=short",
			wantErr: "youtube: invalid_video_id", wantRequests: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := tt.url
			if url == "" {
				url = "https://www.youtube.com/watch?v=llTestVid01"
			}
			_, res, err := run(t, tt.f, Options{}, url)
			if len(tt.f.requests) != tt.wantRequests {
				t.Errorf("requests = %q, want %d", tt.f.requests, tt.wantRequests)
			}
			if tt.wantErr != "" {
				var re *record.Error
				if !errors.As(err, &re) || re.Code != record.CodeUpstream || !strings.HasPrefix(re.Message, tt.wantErr) || re.Retryable != tt.wantRetry || re.Stage != record.StageFetch {
					t.Fatalf("error = %#v, want upstream %q retryable=%v", err, tt.wantErr, tt.wantRetry)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.NoTextReason != tt.wantReason {
				t.Errorf("reason = %q, want %q (warnings %q)", res.NoTextReason, tt.wantReason, res.Warnings)
			}
			if res.Title != "A Test Video" {
				t.Errorf("title = %q", res.Title)
			}
			if tt.wantSegs != nil {
				if d := cmp.Diff(tt.wantSegs, segs(res.Segments)); d != "" {
					t.Errorf("segments (-want +got):\n%s", d)
				}
			}
		})
	}

	// Video unavailable and no title anywhere: the fetch itself fails.
	t.Run("video unavailable with a bare watch page", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "bare.html"), []byte(`<html><script>ytcfg.set({"INNERTUBE_API_KEY":"k"})</script></html>`), 0o644)
		b, _ := os.ReadFile(filepath.Join("testdata", "player_unavailable.json"))
		os.WriteFile(filepath.Join(dir, "player.json"), b, 0o644)
		_, _, err := run(t, &fakeYouTube{dir: dir, watch: "bare.html", player: "player.json"}, Options{}, "https://youtu.be/llTestVid01")
		var re *record.Error
		if !errors.As(err, &re) || re.Message != "youtube: video_unavailable: This video is unavailable" || re.Retryable {
			t.Fatalf("error = %#v", err)
		}
	})
}

func TestParseTranscript(t *testing.T) {
	tests := []struct {
		name, body string
		want       []Cue
	}{
		{"timedtext", `<transcript><text start="1.5" dur="2">a &amp;amp; b</text><text start="4" dur="1">  </text></transcript>`,
			[]Cue{{1.5, 2, "a & b"}}},
		{"srv3", `<timedtext format="3"><body><p t="1000" d="2500">Hello <s t="200">big</s><s> world</s></p><p t="4000" d="10"><font color="#fff">&lt;b&gt;bold&lt;/b&gt;</font></p></body></timedtext>`,
			[]Cue{{1, 2.5, "Hello big world"}, {4, 0.01, "bold"}}},
		{"json3", `{"events":[{"tStartMs":0,"dDurationMs":100},{"tStartMs":1500,"dDurationMs":2000,"segs":[{"utf8":"one"},{"utf8":"\ntwo"}]}]}`,
			[]Cue{{1.5, 2, "one two"}}},
	}
	for _, tt := range tests {
		got, err := ParseTranscript(tt.body)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
}

func TestSegmentsGrouping(t *testing.T) {
	var cues []Cue
	for i := range 12 {
		cues = append(cues, Cue{Start: float64(i * 5), Dur: 5, Text: "words"})
	}
	got := Segments(cues)
	// No sentence ends: hard cut at 45 s.
	if len(got) != 2 || *got[0].StartS != 0 || *got[1].StartS != 45 {
		t.Fatalf("segments = %+v", segs(got))
	}
}

func TestDeepLink(t *testing.T) {
	tests := []struct {
		url  string
		s    float64
		want string
	}{
		{"https://www.youtube.com/watch?v=llTestVid01", 123.9, "https://www.youtube.com/watch?v=llTestVid01&t=123s"},
		{"https://www.youtube.com/watch?v=llTestVid01", 0, "https://www.youtube.com/watch?v=llTestVid01&t=0s"},
		{"https://example.com/video", 5, "https://example.com/video?t=5s"},
	}
	for _, tt := range tests {
		if got := DeepLink(tt.url, tt.s); got != tt.want {
			t.Errorf("DeepLink(%q, %v) = %q, want %q", tt.url, tt.s, got, tt.want)
		}
	}
}

// sharedFixtures returns ../shared/fixtures/youtube from the repository
// root, or skips.
func sharedFixtures(t *testing.T) string { return sharedtest.Dir(t, "fixtures", "youtube") }

// TestSharedFixtures replays the captured real responses.
func TestSharedFixtures(t *testing.T) {
	dir := sharedFixtures(t)
	tests := []struct {
		watch, player string
		wantReason    string
		wantTitle     string
		wantErr       string
	}{
		{watch: "youtube.html", player: "youtube.innertube.json", wantTitle: "Surface Go Review - It’s Awesome"},
		{watch: "youtube.html", player: "youtube_altered_user_agent.innertube.json", wantTitle: "Surface Go Review - It’s Awesome"},
		{watch: "youtube.html", player: "youtube_ww1_nl_en.innertube.json", wantTitle: "The Tide Is Turning - Russian Civil War Fall 1919 I THE GREAT WAR 1919"},
		{watch: "youtube.html", player: "youtube_po_token_required.innertube.json", wantReason: ReasonPOTokenRequired, wantTitle: "Surface Go Review - It’s Awesome"},
		{watch: "youtube.html", player: "youtube_transcripts_disabled.innertube.json", wantReason: ReasonTranscriptsDisabled, wantTitle: "Angèle - Eels x Richard Cocciante | A Take Away Show"},
		{watch: "youtube.html", player: "youtube_transcripts_disabled2.innertube.json", wantReason: ReasonTranscriptsDisabled, wantTitle: "Watch live Dow Jones feed: Markets plunge amid coronavirus fears, oil price war"},
		{watch: "youtube.html", player: "youtube_age_restricted.innertube.json", wantReason: ReasonAgeRestricted, wantTitle: "Laura Branigan - Self Control (Moreno J Remix) Age-restricted"},
		// No videoDetails in these: the watch page's own player response
		// gives the title.
		{watch: "youtube.html", player: "youtube_request_blocked.innertube.json", wantReason: ReasonRequestBlocked, wantTitle: "Surface Go Review - It’s Awesome"},
		{watch: "youtube.html", player: "youtube_unplayable.innertube.json", wantReason: ReasonUnplayable, wantTitle: "Surface Go Review - It’s Awesome"},
		{watch: "youtube.html", player: "youtube_video_unavailable.innertube.json", wantReason: ReasonVideoUnavailable, wantTitle: "Surface Go Review - It’s Awesome"},
		{watch: "youtube_consent_page.html", player: "youtube.innertube.json", wantErr: "youtube: consent_required"},
		{watch: "youtube_consent_page_invalid.html", player: "youtube.innertube.json", wantErr: "youtube: consent_required"},
		{watch: "youtube_too_many_requests.html", player: "youtube.innertube.json", wantErr: "youtube: rate_limited"},
	}
	for _, tt := range tests {
		t.Run(tt.player+"+"+tt.watch, func(t *testing.T) {
			f := &fakeYouTube{dir: dir, watch: tt.watch, player: tt.player, transcript: filepath.Join(dir, "transcript.xml")}
			b, res, err := run(t, f, Options{}, "https://www.youtube.com/watch?v=GJLlxj_dtq8")
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), "fetch: upstream: "+tt.wantErr) {
					t.Fatalf("error = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.NoTextReason != tt.wantReason || res.Title != tt.wantTitle {
				t.Fatalf("reason %q title %q, want %q %q", res.NoTextReason, res.Title, tt.wantReason, tt.wantTitle)
			}
			if tt.wantReason != "" {
				return
			}
			if b.Transcript.LanguageCode != "en" || b.Transcript.Kind != "" {
				t.Errorf("track = %+v, want the manual English one", b.Transcript)
			}
			cues, _ := ParseTranscript(b.Transcript.Body)
			want := []Cue{
				{0, 1.54, "Hey, this is just a test"},
				{1.54, 4.16, "this is not the original transcript"},
				{5.7, 3.239, "just something shorter, I made up for testing"},
			}
			if d := cmp.Diff(want, cues); d != "" {
				t.Errorf("cues (-want +got):\n%s", d)
			}
		})
	}
	t.Run("publish date from the real watch page", func(t *testing.T) {
		f := &fakeYouTube{dir: dir, watch: "youtube.html", player: "youtube.innertube.json", transcript: filepath.Join(dir, "transcript.xml")}
		_, res, err := run(t, f, Options{}, "https://youtu.be/GJLlxj_dtq8")
		if err != nil {
			t.Fatal(err)
		}
		if res.PublishedAt != "2018-08-02T13:00:08Z" || res.Author != "Dave2D" || res.DurationS != 316 {
			t.Errorf("published %q author %q duration %v", res.PublishedAt, res.Author, res.DurationS)
		}
	})
}

// BenchmarkHourTranscript parses and groups a one-hour timedtext track
// (1,800 two-second cues).
func BenchmarkHourTranscript(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`<?xml version="1.0" encoding="utf-8" ?><transcript>`)
	for i := range 1800 {
		fmt.Fprintf(&sb, `<text start="%d" dur="2">cue number %d says something &amp;amp; more.</text>`, i*2, i)
	}
	sb.WriteString(`</transcript>`)
	body := sb.String()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		cues, err := ParseTranscript(body)
		if err != nil || len(Segments(cues)) == 0 {
			b.Fatal(err)
		}
	}
}
