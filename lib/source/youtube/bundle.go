// Package youtube captures YouTube videos: the ll-fetch source function
// (watch page, innertube player API with an Android client context, caption
// track) that packs everything into one JSON bundle, and the ll-parse
// adapter that turns the bundle into metadata and time-stamped transcript
// segments. Only the source function talks to the network; the adapter is a
// pure function of the bundle. Shapes and reason codes: docs/sources.md.
package youtube

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// ContentType is the content type of the bundle ll-fetch stores as the
// record body.
const ContentType = "application/vnd.linkledger.youtube+json"

// SourceName is the fetch.source and parse.source of YouTube records.
const SourceName = "youtube-innertube"

// BundleVersion is the bundle format version.
const BundleVersion = 1

// Reasons why a video's transcript is missing (parse.no_text_reason). The
// item still indexes its title and description; when even those are
// missing the fetch fails with an upstream error naming the reason.
const (
	ReasonTranscriptsDisabled = "transcripts_disabled" // the video has no caption tracks
	ReasonNoTranscript        = "no_transcript"        // no track in an acceptable language, or an empty one
	ReasonVideoUnavailable    = "video_unavailable"    // removed, private or never existed
	ReasonAgeRestricted       = "age_restricted"       // needs a signed-in adult
	ReasonUnplayable          = "unplayable"           // any other playability refusal
	ReasonConsentRequired     = "consent_required"     // EU cookie consent wall
	ReasonRateLimited         = "rate_limited"         // HTTP 429 or the recaptcha page
	ReasonPOTokenRequired     = "po_token_required"    // caption URL needs a proof-of-origin token
	ReasonRequestBlocked      = "request_blocked"      // bot detection ("Sign in to confirm you're not a bot")
	ReasonInvalidVideoID      = "invalid_video_id"     // the URL names no 11-character video id
)

// Bundle is the body ll-fetch stores for a YouTube record.
type Bundle struct {
	Kind    string `json:"kind"` // "youtube"
	Version int    `json:"version"`
	VideoID string `json:"video_id"`
	URL     string `json:"url"` // canonical watch URL
	// Reason is set when the fetch already knows why there is no
	// transcript (rate limit, po token, no acceptable track...).
	Reason       string `json:"reason,omitempty"`
	ReasonDetail string `json:"reason_detail,omitempty"`
	// Player is the innertube player response (Android client), trimmed to
	// playabilityStatus, videoDetails, captions and microformat.
	Player json.RawMessage `json:"player,omitempty"`
	// WatchPlayer is the ytInitialPlayerResponse embedded in the watch page,
	// trimmed the same way; it carries microformat (publish date).
	WatchPlayer json.RawMessage `json:"watch_player,omitempty"`
	Transcript  *Transcript     `json:"transcript,omitempty"`
}

// Transcript is the raw caption track chosen by the fetch.
type Transcript struct {
	LanguageCode string `json:"language_code"`
	Name         string `json:"name,omitempty"`
	Kind         string `json:"kind,omitempty"` // "asr" for auto-generated
	Format       string `json:"format"`         // xml (timedtext), srv3 or json3
	Body         string `json:"body"`           // as served
	URL          string `json:"url,omitempty"`  // the track URL that was fetched
}

// playerResponse is the part of the innertube player response we read.
type playerResponse struct {
	PlayabilityStatus struct {
		Status string `json:"status"`
		Reason string `json:"reason"`
	} `json:"playabilityStatus"`
	VideoDetails *struct {
		VideoID          string `json:"videoId"`
		Title            string `json:"title"`
		Author           string `json:"author"`
		LengthSeconds    string `json:"lengthSeconds"`
		ShortDescription string `json:"shortDescription"`
	} `json:"videoDetails"`
	Captions *struct {
		Renderer struct {
			CaptionTracks []captionTrack `json:"captionTracks"`
		} `json:"playerCaptionsTracklistRenderer"`
	} `json:"captions"`
	Microformat *struct {
		Renderer struct {
			PublishDate      string `json:"publishDate"`
			UploadDate       string `json:"uploadDate"`
			OwnerChannelName string `json:"ownerChannelName"`
			LengthSeconds    string `json:"lengthSeconds"`
			Title            text   `json:"title"`
			Description      text   `json:"description"`
		} `json:"playerMicroformatRenderer"`
	} `json:"microformat"`
}

type captionTrack struct {
	BaseURL      string `json:"baseUrl"`
	Name         text   `json:"name"`
	VssID        string `json:"vssId"`
	LanguageCode string `json:"languageCode"`
	Kind         string `json:"kind"`
}

// text is innertube's text object: {"simpleText": ...} or {"runs": [...]}.
type text struct {
	SimpleText string `json:"simpleText"`
	Runs       []struct {
		Text string `json:"text"`
	} `json:"runs"`
}

func (t text) String() string {
	if t.SimpleText != "" {
		return t.SimpleText
	}
	var b strings.Builder
	for _, r := range t.Runs {
		b.WriteString(r.Text)
	}
	return b.String()
}

// keptPlayerKeys are the keys of a player response kept in the bundle.
var keptPlayerKeys = []string{"playabilityStatus", "videoDetails", "captions", "microformat"}

// trimPlayer keeps only keptPlayerKeys of a player response.
func trimPlayer(raw []byte) (json.RawMessage, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, err
	}
	kept := map[string]json.RawMessage{}
	for _, k := range keptPlayerKeys {
		if v, ok := all[k]; ok {
			kept[k] = v
		}
	}
	return json.Marshal(kept)
}

// DeepLink returns the link to a moment of a video: the canonical watch URL
// with t=<whole seconds>s. ll-find and ll-brief use it for evidence that
// carries a chunk start_s.
func DeepLink(canonicalURL string, startS float64) string {
	if startS < 0 || math.IsNaN(startS) {
		startS = 0
	}
	sep := "&"
	if !strings.Contains(canonicalURL, "?") {
		sep = "?"
	}
	return canonicalURL + sep + "t=" + strconv.FormatInt(int64(math.Floor(startS)), 10) + "s"
}
