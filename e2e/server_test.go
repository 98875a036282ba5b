package e2e

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/linkledger/linkledger/lib/embed/embedfake"
)

// newTestServer serves testdata/site and a few dynamic paths:
//
//	/status/N        answers HTTP status N
//	/flaky           500 on the first request, then the page
//	/limited/NAME    429 with Retry-After: the ra query value; counts requests
//	/hits/NAME       how many requests /limited/NAME has had
//	/v1/chat/completions  a fake model server (ll-enrich --llm): 401
//	                 unless the key is e2e-secret-key; model "good" quotes
//	                 the first line of the text and invents a claim,
//	                 model "bad" answers content that is not JSON
//	/embed/...       a fake embeddings server (lib/embed/embedfake):
//	                 /embed/v1 answers deterministic vectors (hashed words,
//	                 a small synonym table: NAC is acetylcysteine);
//	                 /embed/slow/v1 (2s), /embed/401/v1, /embed/429/v1,
//	                 /embed/500/v1, /embed/dim/v1, /embed/nan/v1,
//	                 /embed/short/v1, /embed/huge/v1 fail as named;
//	                 /embed/size/N/v1 answers N dimensions whatever the
//	                 model, /embed/vary/v1 another size every request;
//	                 /embed/api/embed speaks Ollama's native API
//	/embedhits       how many embedding requests the fake answered
//	/counted/NAME    a page titled "Counted NAME", answered after 200ms
//	                 (so ingest loops started together overlap); counts
//	                 requests
//	/countedhits/P   "total=T max=M names=N" over the /counted/ names
//	                 starting with P: requests, most for one name, names
//	/redirect/PORT/REST  307 to http://127.0.0.1:PORT/REST (a loopback
//	                 server of this test: LL_TESTSERVER's or LL_OTHERSERVER's)
func newTestServer() *httptest.Server {
	site, _ := filepath.Abs("testdata/site")
	files := http.FileServer(http.Dir(site))
	var mu sync.Mutex
	flaky := 0
	mux := http.NewServeMux()
	mux.HandleFunc("/status/{code}", func(w http.ResponseWriter, r *http.Request) {
		code, err := strconv.Atoi(r.PathValue("code"))
		if err != nil || code < 100 || code > 599 {
			code = 400
		}
		w.WriteHeader(code)
	})
	mux.HandleFunc("/flaky", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		flaky++
		n := flaky
		mu.Unlock()
		if n == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<html><head><title>Flaky page</title></head><body><article><h1>Flaky page</h1><p>This page failed once and then answered with real content about resilient pipelines and retries.</p></article></body></html>`))
	})
	hits := map[string]int{}
	mux.HandleFunc("/limited/{name}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.PathValue("name")]++
		mu.Unlock()
		w.Header().Set("Retry-After", r.URL.Query().Get("ra"))
		w.WriteHeader(http.StatusTooManyRequests)
	})
	mux.HandleFunc("/hits/{name}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n := hits[r.PathValue("name")]
		mu.Unlock()
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(strconv.Itoa(n)))
	})
	counted := map[string]int{}
	mux.HandleFunc("/counted/{name}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		mu.Lock()
		counted[name]++
		mu.Unlock()
		time.Sleep(200 * time.Millisecond)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<html><head><title>Counted %[1]s</title></head><body><article><h1>Counted %[1]s</h1><p>The page %[1]s is served by the test server, which counts how many times each of these pages was fetched, so a test can tell whether two ingest loops took the same item.</p></article></body></html>`, html.EscapeString(name))
	})
	mux.HandleFunc("/countedhits/{prefix}", func(w http.ResponseWriter, r *http.Request) {
		total, most, names := 0, 0, 0
		mu.Lock()
		for name, n := range counted {
			if strings.HasPrefix(name, r.PathValue("prefix")) {
				total, most, names = total+n, max(most, n), names+1
			}
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "total=%d max=%d names=%d", total, most, names)
	})
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer e2e-secret-key" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) == 0 {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		content := "this is not JSON"
		if req.Model == "good" {
			first := ""
			for _, l := range strings.Split(req.Messages[len(req.Messages)-1].Content, "\n") {
				if first = strings.TrimSpace(l); len(first) >= 20 {
					break
				}
			}
			b, _ := json.Marshal(map[string]any{
				"summary":    "A fake model's summary.",
				"claims":     []any{map[string]string{"text": first}, map[string]string{"text": "The moon is made of cheese."}},
				"highlights": []any{map[string]string{"text": first}, map[string]string{"text": "An invented highlight."}},
				"tags":       []string{"fake"},
			})
			content = string(b)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": content}}},
			"usage":   map[string]int{"prompt_tokens": 11, "completion_tokens": 7},
		})
	})
	fake := &embedfake.Server{Slow: 2 * time.Second}
	mux.Handle("/embed/", http.StripPrefix("/embed", fake))
	mux.HandleFunc("/embedhits", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(strconv.FormatInt(fake.Requests(), 10)))
	})
	mux.HandleFunc("/redirect/{port}/{rest...}", func(w http.ResponseWriter, r *http.Request) {
		port, err := strconv.Atoi(r.PathValue("port"))
		if err != nil || port < 1 || port > 65535 {
			http.NotFound(w, r)
			return
		}
		http.Redirect(w, r, "http://127.0.0.1:"+strconv.Itoa(port)+"/"+r.PathValue("rest"), http.StatusTemporaryRedirect)
	})
	mux.Handle("/", files)
	return httptest.NewServer(mux)
}
