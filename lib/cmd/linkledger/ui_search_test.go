package linkledger_test

import (
	"bytes"
	"context"
	"io"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/cmd/linkledger"
	"github.com/linkledger/linkledger/lib/embed/embedfake"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/ledgertest"
	"github.com/linkledger/linkledger/lib/record"
)

// TestUISearchRanksHybrid: `linkledger ui` hands its search page the
// embeddings endpoint stored with `linkledger config embed`, so the page
// ranks hybrid as ll-find does: "NAC" finds the item about
// acetylcysteine, which shares no word with it, and not with
// ?mode=lexical.
func TestUISearchRanksHybrid(t *testing.T) {
	es := httptest.NewServer(&embedfake.Server{})
	defer es.Close()
	db := filepath.Join(t.TempDir(), "ll.db")
	st, err := ledger.Open(context.Background(), db, ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ledgertest.Index(t, st, "hash-64",
		ledgertest.Doc{URL: "https://m.test/nac", Text: "Acetylcysteine lowers oxidative stress in the lungs."},
		ledgertest.Doc{URL: "https://m.test/rye", Text: "Rye bread needs a sour starter and a long rest."})
	st.Close()
	var out, errb bytes.Buffer
	if code := linkledger.Run(context.Background(), nil, uiEnv(db, &out, &errb), []string{"linkledger", "config", "embed", "--url", es.URL + "/v1", "--model", "hash-64"}); code != 0 {
		t.Fatalf("config embed: exit %d\n%s", code, errb.String())
	}
	base, hc, stop := runUI(t, db)
	defer stop()
	nac := `href="/items/` + record.ItemID("https://m.test/nac") + `"`
	for q, want := range map[string]bool{"q=NAC": true, "q=NAC&mode=lexical": false} {
		res, err := hc.Get(base + "/search?" + q)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		body := string(b)
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d\n%s", q, res.StatusCode, body)
		}
		if got := strings.Contains(body, nac); got != want {
			t.Errorf("%s: finds the item about acetylcysteine: %v, want %v", q, got, want)
		}
		ranked := map[bool]string{true: "hybrid", false: "lexical"}[want]
		if !strings.Contains(body, "Ranked "+ranked+".") {
			t.Errorf("%s: the page does not say it ranked %s", q, ranked)
		}
	}
}
