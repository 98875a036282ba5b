package youtube

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/linkledger/linkledger/lib/canon"
	"github.com/linkledger/linkledger/lib/fetch"
	"github.com/linkledger/linkledger/lib/record"
)

// Defaults of Options.
const (
	DefaultBaseURL       = "https://www.youtube.com"
	DefaultClientVersion = "20.10.38"
	// OriginalLang in Options.Langs stands for the video's own language:
	// the language of its auto-generated track, else of its first track.
	OriginalLang = "orig"
)

// DefaultLangs is the transcript language preference when none is given.
var DefaultLangs = []string{"en", OriginalLang}

// Options configures the YouTube source function.
type Options struct {
	// BaseURL replaces https://www.youtube.com (watch page, player API and
	// caption tracks served from that host); tests point it at a local
	// server.
	BaseURL string
	// Langs is the transcript language preference, best first; "orig" is
	// the video's own language. Empty means DefaultLangs.
	Langs []string
	// ClientVersion is the Android client version sent to the player API.
	ClientVersion string
	// MaxBytes caps each response body; 0 means 16 MiB.
	MaxBytes int64
}

func (o Options) withDefaults() Options {
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	if len(o.Langs) == 0 {
		o.Langs = DefaultLangs
	}
	if o.ClientVersion == "" {
		o.ClientVersion = DefaultClientVersion
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 16 << 20
	}
	return o
}

// Fetcher returns the ll-fetch source function for YouTube records.
func Fetcher(opts Options) fetch.SourceFunc {
	opts = opts.withDefaults()
	return func(ctx context.Context, hc *http.Client, rec *record.Record) ([]byte, string, string, error) {
		f := &fetcher{opts: opts, hc: hc, ctx: ctx}
		b, err := f.fetch(rec)
		if err != nil {
			return nil, "", SourceName, err
		}
		body, err := json.Marshal(b)
		if err != nil {
			return nil, "", SourceName, err
		}
		return body, ContentType, SourceName, nil
	}
}

type fetcher struct {
	opts Options
	hc   *http.Client
	ctx  context.Context
}

var videoIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{11}$`)

// VideoID returns the video id of a YouTube URL in any form lib/canon
// knows (watch, youtu.be, shorts, embed, live, m. and music. hosts).
func VideoID(rawURL string) (string, bool) {
	if res, err := canon.Canonicalize(rawURL); err == nil && res.YouTubeID != "" {
		return res.YouTubeID, true
	}
	if u, err := url.Parse(rawURL); err == nil {
		if v := u.Query().Get("v"); videoIDRE.MatchString(v) {
			return v, true
		}
	}
	return "", false
}

func (f *fetcher) fetch(rec *record.Record) (*Bundle, error) {
	ref := rec.CanonicalURL
	if ref == "" {
		ref = rec.URL
	}
	id, ok := VideoID(ref)
	if !ok {
		return nil, upstreamError(ReasonInvalidVideoID, "no video id in "+ref)
	}
	b := &Bundle{Kind: "youtube", Version: BundleVersion, VideoID: id, URL: "https://www.youtube.com/watch?v=" + id}

	apiKey, err := f.watchPage(b)
	if err != nil {
		return nil, err
	}
	if b.Reason == "" && apiKey != "" {
		f.player(b, apiKey)
	}
	if b.Reason == "" {
		f.transcript(b)
	}
	if !hasMetadata(b) {
		reason, detail := b.Reason, b.ReasonDetail
		var p playerResponse
		if reason == "" && json.Unmarshal(b.Player, &p) == nil {
			reason, detail = playability(p)
		}
		if reason == "" {
			reason, detail = ReasonUnplayable, "no video details in the player response"
		}
		return nil, upstreamError(reason, detail)
	}
	return b, nil
}

// upstreamError is the fetch failure when not even the title could be had.
func upstreamError(reason, detail string) *record.Error {
	msg := "youtube: " + reason
	if detail != "" {
		msg += ": " + detail
	}
	return &record.Error{
		Stage:     record.StageFetch,
		Code:      record.CodeUpstream,
		Message:   msg,
		Retryable: reason == ReasonRateLimited || reason == ReasonRequestBlocked,
	}
}

func hasMetadata(b *Bundle) bool {
	for _, raw := range []json.RawMessage{b.Player, b.WatchPlayer} {
		var p playerResponse
		if len(raw) > 0 && json.Unmarshal(raw, &p) == nil && p.VideoDetails != nil && p.VideoDetails.Title != "" {
			return true
		}
	}
	return false
}

// get performs one request and returns status and body (capped).
func (f *fetcher) do(req *http.Request) (int, []byte, error) {
	resp, err := f.hc.Do(req.WithContext(f.ctx))
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.opts.MaxBytes))
	return resp.StatusCode, body, err
}

func transportError(what string, err error) *record.Error {
	code := record.CodeConnection
	if errors.Is(err, context.DeadlineExceeded) {
		code = record.CodeTimeout
	}
	return &record.Error{Stage: record.StageFetch, Code: code, Message: what + ": " + err.Error(), Retryable: true}
}

var (
	apiKeyRE      = regexp.MustCompile(`"INNERTUBE_API_KEY":\s*"([a-zA-Z0-9_-]+)"`)
	consentFormRE = regexp.MustCompile(`action="https://consent\.youtube\.com/s"`)
	consentVRE    = regexp.MustCompile(`name="v" value="(.*?)"`)
)

// watchPage loads the watch page with a consent cookie and returns the
// innertube API key. It records the page's own player response (for the
// microformat) and the consent, rate-limit and captcha walls as reasons.
func (f *fetcher) watchPage(b *Bundle) (string, error) {
	cookie := "CONSENT=YES+cb; SOCS=CAI"
	var page []byte
	for attempt := 0; attempt < 2; attempt++ {
		req, err := http.NewRequest(http.MethodGet, f.opts.BaseURL+"/watch?v="+url.QueryEscape(b.VideoID), nil)
		if err != nil {
			return "", err
		}
		req.Header.Set("Accept-Language", "en-US,en;q=0.8")
		req.Header.Set("Cookie", cookie)
		status, body, err := f.do(req)
		if errors.Is(err, fetch.ErrTooLarge) {
			return "", fmt.Errorf("watch page: %w", err)
		}
		if err != nil {
			return "", transportError("watch page", err)
		}
		if status == http.StatusTooManyRequests {
			b.Reason, b.ReasonDetail = ReasonRateLimited, "watch page: http 429"
			return "", nil
		}
		if !consentFormRE.Match(body) {
			page = body
			break
		}
		// The consent wall: accept it once with the form's own value, as a
		// browser click on "accept" does.
		m := consentVRE.FindSubmatch(body)
		if m == nil || attempt == 1 {
			b.Reason, b.ReasonDetail = ReasonConsentRequired, "watch page shows the cookie consent wall"
			return "", nil
		}
		cookie = "CONSENT=YES+" + string(m[1]) + "; SOCS=CAI"
	}
	if watch := embeddedPlayer(page); watch != nil {
		b.WatchPlayer = watch
	}
	if m := apiKeyRE.FindSubmatch(page); m != nil {
		return string(m[1]), nil
	}
	if bytes.Contains(page, []byte(`class="g-recaptcha"`)) {
		b.Reason, b.ReasonDetail = ReasonRateLimited, "watch page shows a recaptcha (too many requests)"
		return "", nil
	}
	b.Reason, b.ReasonDetail = ReasonUnplayable, "watch page carries no innertube api key"
	return "", nil
}

// embeddedPlayer extracts and trims ytInitialPlayerResponse from the page.
func embeddedPlayer(page []byte) json.RawMessage {
	i := bytes.Index(page, []byte("ytInitialPlayerResponse = {"))
	if i < 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(page[i+len("ytInitialPlayerResponse = "):]))
	var raw json.RawMessage
	if dec.Decode(&raw) != nil {
		return nil
	}
	trimmed, err := trimPlayer(raw)
	if err != nil {
		return nil
	}
	return trimmed
}

// player calls the innertube player API as the Android app does.
func (f *fetcher) player(b *Bundle, apiKey string) {
	payload, _ := json.Marshal(map[string]any{
		"context": map[string]any{"client": map[string]any{
			"clientName": "ANDROID", "clientVersion": f.opts.ClientVersion,
			"androidSdkVersion": 30, "hl": "en", "gl": "US",
		}},
		"videoId": b.VideoID, "contentCheckOk": true, "racyCheckOk": true,
	})
	req, err := http.NewRequest(http.MethodPost, f.opts.BaseURL+"/youtubei/v1/player?key="+url.QueryEscape(apiKey), bytes.NewReader(payload))
	if err != nil {
		b.Reason, b.ReasonDetail = ReasonUnplayable, err.Error()
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "com.google.android.youtube/"+f.opts.ClientVersion+" (Linux; U; Android 11) gzip")
	req.Header.Set("X-YouTube-Client-Name", "3")
	req.Header.Set("X-YouTube-Client-Version", f.opts.ClientVersion)
	status, body, err := f.do(req)
	switch {
	case err != nil:
		b.Reason, b.ReasonDetail = ReasonUnplayable, "player api: "+err.Error()
		return
	case status == http.StatusTooManyRequests:
		b.Reason, b.ReasonDetail = ReasonRateLimited, "player api: http 429"
		return
	case status == http.StatusForbidden:
		b.Reason, b.ReasonDetail = ReasonRequestBlocked, "player api: http 403"
		return
	case status != http.StatusOK:
		b.Reason, b.ReasonDetail = ReasonUnplayable, fmt.Sprintf("player api: http %d", status)
		return
	}
	trimmed, err := trimPlayer(body)
	if err != nil {
		b.Reason, b.ReasonDetail = ReasonUnplayable, "player api: response is not json"
		return
	}
	b.Player = trimmed
}

// transcript picks a caption track from the player response and fetches it.
func (f *fetcher) transcript(b *Bundle) {
	var p playerResponse
	if len(b.Player) == 0 || json.Unmarshal(b.Player, &p) != nil {
		return
	}
	if reason, _ := playability(p); reason != "" {
		return // the adapter reports it from the player response
	}
	if p.Captions == nil || len(p.Captions.Renderer.CaptionTracks) == 0 {
		return // transcripts_disabled, also derived by the adapter
	}
	tr, ok := ChooseTrack(p.Captions.Renderer.CaptionTracks, f.opts.Langs)
	if !ok {
		b.Reason, b.ReasonDetail = ReasonNoTranscript, "no caption track in "+strings.Join(f.opts.Langs, ", ")+"; the video has "+trackList(p.Captions.Renderer.CaptionTracks)
		return
	}
	if strings.Contains(tr.BaseURL, "&exp=xpe") {
		b.Reason, b.ReasonDetail = ReasonPOTokenRequired, "caption track "+tr.LanguageCode+" needs a proof-of-origin token"
		return
	}
	u, format, err := f.trackURL(tr.BaseURL)
	if err != nil {
		b.Reason, b.ReasonDetail = ReasonNoTranscript, "bad caption url: "+err.Error()
		return
	}
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		b.Reason, b.ReasonDetail = ReasonNoTranscript, err.Error()
		return
	}
	req.Header.Set("Accept-Language", "en-US,en;q=0.8")
	status, body, err := f.do(req)
	switch {
	case err != nil:
		b.Reason, b.ReasonDetail = ReasonNoTranscript, "caption track: "+err.Error()
		return
	case status == http.StatusTooManyRequests:
		b.Reason, b.ReasonDetail = ReasonRateLimited, "caption track: http 429"
		return
	case status != http.StatusOK:
		b.Reason, b.ReasonDetail = ReasonNoTranscript, fmt.Sprintf("caption track: http %d", status)
		return
	case len(bytes.TrimSpace(body)) == 0:
		// YouTube answers an empty 200 when the track wants a po token.
		b.Reason, b.ReasonDetail = ReasonPOTokenRequired, "caption track came back empty"
		return
	}
	b.Transcript = &Transcript{
		LanguageCode: tr.LanguageCode, Name: tr.Name.String(), Kind: tr.Kind,
		Format: format, Body: string(body), URL: u,
	}
}

// trackURL resolves a caption baseUrl against Options.BaseURL (tracks are
// served by the same host, so a local test server can stand in for it) and
// picks the format: fmt=json3 is kept, anything else (srv3) is removed to
// get the plain timedtext XML.
func (f *fetcher) trackURL(base string) (string, string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", "", err
	}
	root, err := url.Parse(f.opts.BaseURL)
	if err != nil {
		return "", "", err
	}
	if !u.IsAbs() || strings.HasSuffix(u.Hostname(), "youtube.com") {
		// Keep the base's path prefix: a base of http://host/yt serves the
		// track at http://host/yt/api/timedtext.
		u.Scheme, u.Host = root.Scheme, root.Host
		u.Path = strings.TrimRight(root.Path, "/") + "/" + strings.TrimLeft(u.Path, "/")
		u.RawPath = ""
	}
	q := u.Query()
	format := "xml"
	if q.Get("fmt") == "json3" {
		format = "json3"
	} else if q.Has("fmt") {
		q.Del("fmt")
		u.RawQuery = q.Encode()
	}
	return u.String(), format, nil
}

func trackList(tracks []captionTrack) string {
	var parts []string
	for _, t := range tracks {
		s := t.LanguageCode
		if t.Kind == "asr" {
			s += " (auto)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// ChooseTrack picks the caption track: manual tracks before auto-generated
// (kind "asr") ones, and within each kind the first language of langs that
// has one. "orig" in langs is the video's own language (its auto-generated
// track's language, else its first track's). A language matches its
// regional variants ("en" matches "en-GB").
func ChooseTrack(tracks []captionTrack, langs []string) (captionTrack, bool) {
	orig := ""
	for _, t := range tracks {
		if t.Kind == "asr" {
			orig = t.LanguageCode
			break
		}
	}
	if orig == "" && len(tracks) > 0 {
		orig = tracks[0].LanguageCode
	}
	for _, asr := range []bool{false, true} {
		for _, l := range langs {
			if l == OriginalLang {
				l = orig
			}
			for _, t := range tracks {
				if (t.Kind == "asr") == asr && langMatches(t.LanguageCode, l) {
					return t, true
				}
			}
		}
	}
	return captionTrack{}, false
}

func langMatches(code, want string) bool {
	code, want = strings.ToLower(code), strings.ToLower(want)
	return want != "" && (code == want || strings.HasPrefix(code, want+"-"))
}
