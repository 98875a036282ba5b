package parse

import (
	"compress/gzip"
	"encoding/json"
	"flag"
	"io"
	nurl "net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

var evalOut = flag.String("evalout", "", "write article-body predictions of each extractor combination to this directory (development aid; needs ../shared/eval)")

var evalOnly = flag.String("evalonly", "", "with -evalout, only the combinations whose name contains this")

// TestExtractorStrategies writes, for each combination of the extractors,
// the predictions scripts/eval-extraction.sh's scorer reads. It runs only
// with -evalout; the shipped combination is scored by the script through the
// real binary.
func TestExtractorStrategies(t *testing.T) {
	if *evalOut == "" {
		t.Skip("development aid: run with -args -evalout DIR")
	}
	dir := filepath.Join("..", "..", "..", "shared", "eval", "extraction")
	b, err := os.ReadFile(filepath.Join(dir, "ground-truth.json"))
	if err != nil {
		t.Skipf("skipped: ../shared/eval not found: %v", err)
	}
	var truth map[string]struct{ URL string }
	if err := json.Unmarshal(b, &truth); err != nil {
		t.Fatal(err)
	}
	strategies := map[string]extractor{
		"traf":           {},
		"traf-fb":        {fallback: true},
		"traf-rescue":    {rescue: true},
		"traf-fb-rescue": {fallback: true, rescue: true},
		"traf-agree":     {agree: true, share: 0.5, keep: 2.0 / 3},
		"traf-fb-agree":  {fallback: true, agree: true, share: 0.5, keep: 2.0 / 3},
		"default":        defaultExtractor,
		"agree-s3":       {fallback: true, agree: true, share: 0.3, keep: 2.0 / 3},
		"agree-s7":       {fallback: true, agree: true, share: 0.7, keep: 2.0 / 3},
		"agree-k5":       {fallback: true, agree: true, share: 0.5, keep: 0.5},
		"agree-k8":       {fallback: true, agree: true, share: 0.5, keep: 0.8},
		"read":           {readOnly: true},
		// The long-tail rules (issue 29), each one left out of the default.
		"no-cards":      func() extractor { x := defaultExtractor; x.cards = false; return x }(),
		"no-link-dense": func() extractor { x := defaultExtractor; x.linkDense = false; return x }(),
		"with-lead":     func() extractor { x := defaultExtractor; x.lead = true; return x }(),
		"no-agree":      func() extractor { x := defaultExtractor; x.agree = false; return x }(),
		"no-boiler":     func() extractor { x := defaultExtractor; x.boiler = false; return x }(),
		"no-longtail": func() extractor {
			x := defaultExtractor
			x.cards, x.linkDense, x.lead, x.boiler = false, false, false, false
			return x
		}(),
	}
	for name := range strategies {
		if !strings.Contains(name, *evalOnly) {
			delete(strategies, name)
		}
	}
	preds := map[string]map[string]map[string]string{}
	for id, p := range truth {
		f, err := os.Open(filepath.Join(dir, "html", id+".html.gz"))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(zr)
		f.Close()
		u, _ := nurl.Parse(p.URL)
		for name, x := range strategies {
			x.mt = testMainText
			doc, _ := html.Parse(strings.NewReader(string(raw)))
			paras, _, _ := x.mainText(doc, u)
			if preds[name] == nil {
				preds[name] = map[string]map[string]string{}
			}
			preds[name][id] = map[string]string{"articleBody": strings.Join(paras, "\n\n")}
		}
	}
	for name, m := range preds {
		b, _ := json.Marshal(m)
		if err := os.WriteFile(filepath.Join(*evalOut, name+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
