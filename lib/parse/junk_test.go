package parse

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

func junkText() string {
	r := rand.New(rand.NewPCG(5, 6))
	b := make([]byte, 4096)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// TestRefuseJunk: records are untrusted, so ll-parse refuses a body or a
// text that is not text even when no ll-fetch checked it.
func TestRefuseJunk(t *testing.T) {
	junk := junkText()
	controls := strings.Repeat("\x01\x02\x03\x04 a", 500)
	b64 := base64.StdEncoding.EncodeToString([]byte(junk))
	badContent := &record.Error{Stage: "parse", Code: record.CodeBadContent}
	for _, tt := range []struct {
		name string
		rec  *record.Record
		want *record.Error
	}{
		{"junk body as text/plain", &record.Record{Fetch: &record.FetchInfo{ContentType: "text/plain"}, Body: &junk}, badContent},
		{"junk body as html", &record.Record{Fetch: &record.FetchInfo{ContentType: "text/html"}, Body: &junk}, badContent},
		{"control characters as markdown", &record.Record{Fetch: &record.FetchInfo{ContentType: "text/markdown"}, Body: &controls}, badContent},
		{"junk body with no fetch", &record.Record{Body: &junk}, badContent},
		{"junk base64 body as text", &record.Record{Fetch: &record.FetchInfo{ContentType: "text/plain"}, BodyBase64: &b64}, badContent},
		{"junk text to import", &record.Record{Text: &junk}, badContent},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.rec.URL = "https://x.example/a"
			Run(tt.rec, generic(), Options{})
			got := tt.rec.Error
			if got != nil {
				e := *got
				e.Message = ""
				got = &e
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if tt.rec.Chunks != nil || tt.rec.Checksum != "" {
				t.Errorf("junk was indexed: %d chunks, checksum %q", len(tt.rec.Chunks), tt.rec.Checksum)
			}
		})
	}
}

// TestSniffedTypeWins: a PDF that a server labelled text/html reaches
// ll-parse with fetch.sniffed_type application/pdf; it must not be decoded
// into a text body for the HTML adapters.
func TestSniffedTypeWins(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString([]byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\nstream\n\x00\x01binary\nendstream\n"))
	for _, fi := range []*record.FetchInfo{
		{ContentType: "text/html", SniffedType: "application/pdf"},
		// A forged record without sniffed_type: the bytes still say PDF.
		{ContentType: "text/html"},
	} {
		rec := &record.Record{URL: "https://x.example/paper", Fetch: fi, BodyBase64: &b64}
		Run(rec, generic(), Options{})
		if rec.Error == nil || rec.Error.Code != record.CodeExtractFailed || rec.Text != nil {
			t.Errorf("%+v: error %+v, text %q: a PDF was parsed as text", fi, rec.Error, rec.TextValue())
		}
	}
}
