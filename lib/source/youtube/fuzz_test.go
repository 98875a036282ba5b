package youtube

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addFiles adds the testdata files matching glob as seeds.
func addFiles(f *testing.F, glob string) {
	names, _ := filepath.Glob(filepath.Join("testdata", glob))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
}

// FuzzParseTranscript checks that any caption body parses without a
// panic into cues with text and finite, non-negative times.
func FuzzParseTranscript(f *testing.F) {
	addFiles(f, "timedtext_*")
	for _, s := range []string{"", "{", `{"events":[{"tStartMs":-5,"segs":[{"utf8":"a"}]}]}`, `<transcript><text start="NaN" dur="1">x</text></transcript>`,
		`<timedtext><body><p t="1e308" d="1e308">x<s>y</s></p></body></timedtext>`, "<transcript><text>&amp;&lt;b&gt;</text>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		cues, _ := ParseTranscript(body)
		for _, c := range cues {
			if strings.TrimSpace(c.Text) == "" {
				t.Fatalf("empty cue %+v", c)
			}
			if math.IsNaN(c.Start) || math.IsInf(c.Start, 0) || c.Start < 0 {
				t.Fatalf("cue start %v", c.Start)
			}
		}
		for _, s := range Segments(cues) {
			if s.StartS != nil && (math.IsNaN(*s.StartS) || math.IsInf(*s.StartS, 0)) {
				t.Fatalf("segment start %v", *s.StartS)
			}
		}
	})
}

// FuzzParseBundle checks that any player response with any transcript
// parses without a panic, and that the result's text segments are never
// empty.
func FuzzParseBundle(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join("testdata", "player_*.json"))
	tt, _ := os.ReadFile(filepath.Join("testdata", "timedtext_en.xml"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, string(tt))
	}
	f.Add([]byte(`{"videoDetails":{"lengthSeconds":"NaN"}}`), "")
	f.Fuzz(func(t *testing.T, player []byte, transcript string) {
		b := &Bundle{Kind: "youtube", Version: BundleVersion, VideoID: "dQw4w9WgXcQ", URL: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
			Player: json.RawMessage(player), Transcript: &Transcript{LanguageCode: "en", Format: "xml", Body: transcript}}
		res, err := ParseBundle(b)
		if err != nil {
			return
		}
		if math.IsNaN(res.DurationS) || math.IsInf(res.DurationS, 0) {
			t.Fatalf("duration %v", res.DurationS)
		}
		for _, s := range res.Segments {
			if strings.TrimSpace(s.Text) == "" {
				t.Fatalf("empty segment")
			}
		}
	})
}
