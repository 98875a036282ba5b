package e2e

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync"
)

// newTestServer serves testdata/site and a few dynamic paths:
//
//	/status/N        answers HTTP status N
//	/flaky           500 on the first request, then the page
//	/limited/NAME    429 with Retry-After: the ra query value; counts requests
//	/hits/NAME       how many requests /limited/NAME has had
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
	mux.Handle("/", files)
	return httptest.NewServer(mux)
}
