package youtube

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/linkledger/linkledger/lib/parse"
	"github.com/linkledger/linkledger/lib/record"
)

// AdapterName is recorded as parse.adapter.
const AdapterName = "youtube"

// Adapter returns the ll-parse adapter for YouTube bundles. A missing
// transcript is not an error: the result carries the reason and the
// description as text, so the item is still found.
func Adapter() parse.Adapter { return parse.BundleAdapter(AdapterName, ContentType, ParseBundle) }

// ParseBundle is the pure function behind the adapter.
func ParseBundle(b *Bundle) (*parse.Result, error) {
	var player, watch playerResponse
	if len(b.Player) > 0 {
		if err := json.Unmarshal(b.Player, &player); err != nil {
			return nil, &record.Error{Stage: record.StageParse, Code: record.CodeExtractFailed, Message: "youtube bundle: bad player response: " + err.Error()}
		}
	}
	if len(b.WatchPlayer) > 0 {
		_ = json.Unmarshal(b.WatchPlayer, &watch) // only a metadata fallback
	}
	res := &parse.Result{SourceType: record.SourceYouTube, Source: SourceName, SiteName: "YouTube"}
	for _, p := range []playerResponse{player, watch} {
		if d := p.VideoDetails; d != nil {
			res.Title = first(res.Title, d.Title)
			res.Author = first(res.Author, d.Author)
			res.Description = first(res.Description, d.ShortDescription)
			if res.DurationS == 0 {
				res.DurationS, _ = strconv.ParseFloat(d.LengthSeconds, 64)
			}
		}
		if m := p.Microformat; m != nil {
			r := m.Renderer
			res.Title = first(res.Title, r.Title.String())
			res.Author = first(res.Author, r.OwnerChannelName)
			res.Description = first(res.Description, r.Description.String())
			res.PublishedAt = first(res.PublishedAt, publishTime(r.PublishDate), publishTime(r.UploadDate))
			if res.DurationS == 0 {
				res.DurationS, _ = strconv.ParseFloat(r.LengthSeconds, 64)
			}
		}
	}

	reason, detail := b.Reason, b.ReasonDetail
	if reason == "" && len(b.Player) > 0 {
		reason, detail = playability(player)
		if reason == "" && (player.Captions == nil || len(player.Captions.Renderer.CaptionTracks) == 0) {
			reason, detail = ReasonTranscriptsDisabled, "the video has no caption tracks"
		}
	}
	if reason == "" && b.Transcript != nil {
		cues, err := ParseTranscript(b.Transcript.Body)
		if err != nil && len(cues) == 0 {
			res.Warnings = append(res.Warnings, "transcript: "+err.Error())
		}
		res.Segments = Segments(cues)
		res.Lang = b.Transcript.LanguageCode
		if b.Transcript.Kind == "asr" {
			res.Warnings = append(res.Warnings, "transcript is auto-generated ("+b.Transcript.LanguageCode+")")
		}
	}
	if reason == "" && len(res.Segments) == 0 {
		reason, detail = ReasonNoTranscript, "the transcript is empty"
	}
	if reason != "" {
		res.NoTextReason = reason
		if detail != "" {
			res.Warnings = append(res.Warnings, reason+": "+detail)
		}
		res.Segments = descriptionSegments(res.Description)
		// The auto-generated track is in the spoken language.
		if player.Captions != nil {
			for _, t := range player.Captions.Renderer.CaptionTracks {
				if t.Kind == "asr" {
					res.Lang = t.LanguageCode
					break
				}
			}
		}
	}
	if res.Title == "" && len(res.Segments) == 0 {
		return nil, &record.Error{Stage: record.StageParse, Code: record.CodeUpstream, Message: "youtube: " + first(reason, ReasonUnplayable) + ": no title, description or transcript"}
	}
	return res, nil
}

// playability maps playabilityStatus to a reason, "" when playable.
func playability(p playerResponse) (string, string) {
	st, why := p.PlayabilityStatus.Status, p.PlayabilityStatus.Reason
	lower := strings.ToLower(why)
	switch st {
	case "", "OK":
		return "", ""
	case "LOGIN_REQUIRED":
		switch {
		case strings.Contains(lower, "not a bot"):
			return ReasonRequestBlocked, why
		case strings.Contains(lower, "inappropriate") || strings.Contains(lower, "your age"):
			return ReasonAgeRestricted, why
		case strings.Contains(lower, "private"):
			return ReasonVideoUnavailable, why
		}
		return ReasonUnplayable, st + ": " + why
	case "AGE_CHECK_REQUIRED", "AGE_VERIFICATION_REQUIRED":
		return ReasonAgeRestricted, why
	case "ERROR":
		return ReasonVideoUnavailable, why
	}
	if why == "" {
		why = st
	}
	return ReasonUnplayable, why
}

// descriptionSegments is the description, one segment per paragraph: the
// text of a video without a transcript.
func descriptionSegments(desc string) []parse.Segment {
	var segs []parse.Segment
	for _, p := range strings.Split(strings.ReplaceAll(desc, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			segs = append(segs, parse.Segment{Text: p})
		}
	}
	return segs
}

// publishTime turns microformat dates ("2018-08-02T06:00:08-07:00" or
// "2018-08-02") into RFC 3339 UTC.
func publishTime(s string) string {
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return record.FormatTime(t)
		}
	}
	return ""
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
