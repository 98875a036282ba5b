package xpost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseBundle checks that any upstream answer, read as any of the
// four sources, parses without a panic into non-empty segments.
func FuzzParseBundle(f *testing.F) {
	sources := []string{SourceSyndication, SourceFxTwitter, SourceOEmbed, SourceGraphQL}
	names, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		base := filepath.Base(n)
		for i, s := range []string{"syndication", "fx", "oembed", "graphql"} {
			if strings.HasPrefix(base, s) {
				f.Add(uint8(i), b)
			}
		}
	}
	f.Add(uint8(0), []byte(`{"text":"a","entities":{"urls":[{"url":"https://t.co/x","expanded_url":"https://e.com","indices":[5,1]}]}}`))
	f.Fuzz(func(t *testing.T, src uint8, data []byte) {
		b := &Bundle{Kind: "x", Version: BundleVersion, StatusID: "100", URL: "https://x.com/a/status/100",
			Source: sources[int(src)%len(sources)], Data: data}
		res, err := ParseBundle(b)
		if err != nil {
			return
		}
		for _, s := range res.Segments {
			if strings.TrimSpace(s.Text) == "" {
				t.Fatalf("empty segment")
			}
		}
	})
}
