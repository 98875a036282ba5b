package youtube

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"html"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/linkledger/linkledger/lib/parse"
)

// Cue is one caption line with its start time and duration in seconds.
type Cue struct {
	Start, Dur float64
	Text       string
}

// ParseTranscript reads a caption track in any of the three shapes YouTube
// serves: timedtext XML (<transcript><text start dur>), srv3
// (<timedtext><body><p t d> in milliseconds) and json3 ({"events": [{
// "tStartMs", "dDurationMs", "segs": [{"utf8"}]}]}). Empty cues are
// dropped, inline tags stripped and HTML entities decoded.
func ParseTranscript(body string) ([]Cue, error) {
	trimmed := strings.TrimSpace(body)
	if strings.HasPrefix(trimmed, "{") {
		return parseJSON3(trimmed)
	}
	return parseXML(trimmed)
}

func parseJSON3(body string) ([]Cue, error) {
	var doc struct {
		Events []struct {
			TStartMs    float64 `json:"tStartMs"`
			DDurationMs float64 `json:"dDurationMs"`
			Segs        []struct {
				UTF8 string `json:"utf8"`
			} `json:"segs"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		return nil, err
	}
	var cues []Cue
	for _, ev := range doc.Events {
		var b strings.Builder
		for _, s := range ev.Segs {
			b.WriteString(s.UTF8)
		}
		if t := cleanCue(b.String()); t != "" {
			cues = append(cues, Cue{Start: seconds(ev.TStartMs / 1000), Dur: seconds(ev.DDurationMs / 1000), Text: t})
		}
	}
	return cues, nil
}

func parseXML(body string) ([]Cue, error) {
	dec := xml.NewDecoder(strings.NewReader(body))
	dec.Strict = false
	dec.Entity = xml.HTMLEntity
	var cues []Cue
	var cur *Cue
	var buf strings.Builder
	depth := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return cues, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if cur != nil {
				depth++
				continue
			}
			switch t.Name.Local {
			case "text": // timedtext: seconds
				cur = &Cue{Start: seconds(attrFloat(t, "start")), Dur: seconds(attrFloat(t, "dur"))}
			case "p": // srv3: milliseconds
				cur = &Cue{Start: seconds(attrFloat(t, "t") / 1000), Dur: seconds(attrFloat(t, "d") / 1000)}
			}
			buf.Reset()
			depth = 0
		case xml.EndElement:
			if cur == nil {
				continue
			}
			if depth > 0 {
				depth--
				continue
			}
			if cur.Text = cleanCue(buf.String()); cur.Text != "" {
				cues = append(cues, *cur)
			}
			cur = nil
		case xml.CharData:
			if cur != nil {
				buf.Write(t)
			}
		}
	}
	return cues, nil
}

func attrFloat(e xml.StartElement, name string) float64 {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			f, _ := strconv.ParseFloat(a.Value, 64)
			return f
		}
	}
	return 0
}

// seconds is a cue time as read, or 0 when it is negative or not a finite
// number ("NaN", "-5", "1e400" in a broken track): a NaN start would make
// the record impossible to encode as JSON, and a negative one a deep link
// before the video starts.
func seconds(f float64) float64 {
	if !(f >= 0) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

var tagRE = regexp.MustCompile(`</?[a-zA-Z][^<>]*>`)

// cleanCue strips inline markup (<i>, <b>, <font ...>), decodes the HTML
// entities that survive XML decoding (timedtext escapes twice) and folds
// whitespace.
func cleanCue(s string) string {
	s = tagRE.ReplaceAllString(s, "")
	s = html.UnescapeString(s)
	return strings.Join(strings.Fields(s), " ")
}

// Segment grouping: a segment closes at a sentence end once it spans
// segmentTarget seconds, and in any case at segmentMax seconds or
// segmentMaxChars characters, so chunks keep a useful start time.
const (
	segmentTarget   = 20.0
	segmentMax      = 45.0
	segmentMaxChars = 1200
)

// Segments groups cues into paragraph-sized segments, each starting at its
// first cue.
func Segments(cues []Cue) []parse.Segment {
	var segs []parse.Segment
	var b bytes.Buffer
	var start float64
	flush := func() {
		if b.Len() > 0 {
			s := start
			segs = append(segs, parse.Segment{Text: b.String(), StartS: &s})
			b.Reset()
		}
	}
	for _, c := range cues {
		if b.Len() > 0 && (c.Start-start >= segmentMax || b.Len()+len(c.Text) > segmentMaxChars) {
			flush()
		}
		if b.Len() == 0 {
			start = c.Start
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(c.Text)
		if c.Start+c.Dur-start >= segmentTarget && endsSentence(c.Text) {
			flush()
		}
	}
	flush()
	return segs
}

func endsSentence(s string) bool {
	s = strings.TrimRight(s, `"')]»”’`)
	return strings.HasSuffix(s, ".") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "…")
}
