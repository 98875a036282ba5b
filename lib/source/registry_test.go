package source

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

func TestAdaptersOrder(t *testing.T) {
	var names []string
	for _, a := range Adapters(Options{}) {
		names = append(names, a.Name())
	}
	if len(names) < 4 {
		t.Fatalf("adapters = %q", names)
	}
	if d := cmp.Diff([]string{"youtube", "x", "pdf"}, names[:3]); d != "" {
		t.Errorf("source adapters must come first (-want +got):\n%s", d)
	}
}

func TestFetchers(t *testing.T) {
	f := Fetchers(Options{})
	for _, st := range []string{record.SourceYouTube, record.SourceX} {
		if f[st] == nil {
			t.Errorf("no fetcher for %s", st)
		}
	}
	if len(f) != 2 {
		t.Errorf("fetchers for %d source types, want 2 (others are plain GETs)", len(f))
	}
}
