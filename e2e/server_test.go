package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	imageHandlers(mux)
	mux.Handle("/", files)
	return httptest.NewServer(mux)
}

// imageHandlers serve an article with images, good and hostile (issue 29):
//
//	/images/page?other=PORT  the article: a chart (a real PNG), HTML served
//	                 as image/png, an SVG, a PNG that declares 5 GB, an
//	                 image that redirects to /images/hit.png on the server
//	                 at PORT (another loopback server: refused), and one
//	                 that is not found
//	/images/hits     how many requests /images/hit.png has had
func imageHandlers(mux *http.ServeMux) {
	var buf bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 40, 20))
	for x := 0; x < 40; x++ {
		for y := 0; y < 20; y++ {
			img.Set(x, y, color.RGBA{uint8(x * 6), 80, 160, 255})
		}
	}
	png.Encode(&buf, img)
	chart := buf.Bytes()
	var hits atomic.Int64
	mux.HandleFunc("/images/page", func(w http.ResponseWriter, r *http.Request) {
		other := r.URL.Query().Get("other")
		if _, err := strconv.Atoi(other); err != nil {
			other = "1"
		}
		p := func(s string) string { return "<p>" + strings.Repeat(s+" ", 3) + "</p>\n" }
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pictures of a benchmark</title></head><body>
<nav><a href="/">Home</a></nav><article><h1>Pictures of a benchmark</h1>`+
			p("This article about sorting benchmarks comes with several pictures, some of which are not pictures at all.")+
			`<figure><img src="/images/chart.png" alt="Bar chart of the times"><figcaption>Figure 1: the median times.</figcaption></figure>`+
			p("The second picture is a web page that its server calls a PNG image, which the reader must never show.")+
			`<p><img src="/images/fake.png" alt="A fake picture"> <img src="/images/vector.svg" alt="A drawing"></p>`+
			p("The third picture claims to be five gigabytes long, and the fourth one sends the fetcher elsewhere.")+
			`<p><img src="/images/huge.png" alt="A huge picture"> <img src="/redirect/`+other+`/images/hit.png" alt="A redirected picture"> <img src="/images/gone.png" alt="A lost picture"></p>`+
			p("That is all the pictures this page has, and the text ends here with a last sentence about sorting.")+
			`</article></body></html>`)
	})
	mux.HandleFunc("/images/chart.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(chart)
	})
	mux.HandleFunc("/images/fake.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		fmt.Fprint(w, "<!doctype html><script>alert(1)</script>")
	})
	mux.HandleFunc("/images/vector.svg", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		fmt.Fprint(w, `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)
	})
	mux.HandleFunc("/images/huge.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Header().Set("Content-Length", "5000000000")
		w.Write(chart)
	})
	mux.HandleFunc("/images/hit.png", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "image/png")
		w.Write(chart)
	})
	mux.HandleFunc("/images/hits", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, hits.Load())
	})
}
