package canon

import "testing"

// FuzzCanonicalizeIdempotent checks that a canonical URL is its own
// canonical form, with the same source type: saving the canonical URL
// finds the same item as saving the original.
func FuzzCanonicalizeIdempotent(f *testing.F) {
	for _, s := range []string{
		"https://example.com/", "HTTP://Example.COM:80/a/../b?utm_source=x&b=2&a=1#frag",
		"https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=1m30s", "https://youtu.be/dQw4w9WgXcQ?t=42",
		"https://x.com/someone/status/1234567890?s=20", "https://twitter.com/i/web/status/1",
		"file:///tmp/a%20b.pdf", "https://example.com/%7Euser/a%2fb?q=%zz", "https://user:pw@example.com/",
		"https://[::1]:8080/x", "https://xn--caf-dma.example/é", "https://example.com/a?", "https://example.com//a//b/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r1, err := Canonicalize(s)
		if err != nil {
			return
		}
		r2, err := Canonicalize(r1.URL)
		if err != nil {
			t.Fatalf("Canonicalize(%q) = %q, which fails: %v", s, r1.URL, err)
		}
		if r2.URL != r1.URL || r2.SourceType != r1.SourceType {
			t.Fatalf("not idempotent: %q -> %q (%s) -> %q (%s)", s, r1.URL, r1.SourceType, r2.URL, r2.SourceType)
		}
	})
}
