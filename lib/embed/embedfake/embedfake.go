// Package embedfake is a deterministic OpenAI-compatible embeddings server
// for tests and benchmarks: POST …/embeddings (and Ollama's /api/embed)
// answer with vectors made by hashing words, after a small synonym table
// maps words of one meaning to one word. So "NAC" and "acetylcysteine",
// which share no letters, get the same vector, and a query can find a text
// it shares no word with, as a real embedding model would.
//
// The path before /embeddings picks a behaviour, so one server serves
// every failure a test needs: /v1 answers; /slow/v1 waits Slow before
// answering; /401/v1, /500/v1 answer that status; /429/v1 answers 429 with
// Retry-After: 1 to every other request; /dim/v1 gives the last vector one
// dimension too many; /nan/v1 puts NaN in the answer; /short/v1 leaves
// the last vector out; /huge/v1 streams an endless answer;
// /prefix/MARKER/v1 (MARKER path-escaped, e.g. search_document:%20) acts
// as a model trained with a task prefix: it refuses (422) a request with
// an input that does not start with MARKER, and hashes the text after it,
// so a test sees that a prefix was sent and gets the vectors of /v1;
// /size/N/v1 answers vectors of N dimensions whatever the model (a model
// whose size changed under its name); /vary/v1 answers a size that
// changes with every request (8 + the request's number, modulo 512).
// The model name sets the vectors: "hash-N" has N dimensions (default
// 64); another name changes the hashing, so two models never agree.
package embedfake

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
)

// Synonyms maps a word to the word of its meaning.
var Synonyms = map[string]string{
	"nac":        "acetylcysteine",
	"car":        "automobile",
	"cars":       "automobile",
	"vehicle":    "automobile",
	"vehicles":   "automobile",
	"physician":  "doctor",
	"physicians": "doctor",
	"doctors":    "doctor",
	"heart":      "cardiac",
	"attack":     "infarction",
	"kitten":     "cat",
	"kittens":    "cat",
	"cats":       "cat",
	"feline":     "cat",
	"felines":    "cat",
}

// Server is the fake's handler. Slow is the wait of /slow/ (default 5s).
type Server struct {
	Slow     time.Duration
	requests atomic.Int64
	texts    atomic.Int64
}

// Requests is how many embedding requests the server answered or refused.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Texts is how many texts the server was asked to embed.
func (s *Server) Texts() int64 { return s.texts.Load() }

// Vector is the fake model's vector of text.
func Vector(model, text string) []float32 {
	dim := 64
	if n, err := strconv.Atoi(strings.TrimPrefix(model, "hash-")); err == nil && strings.HasPrefix(model, "hash-") && n > 0 && n <= 4096 {
		dim = n
	}
	return VectorOfSize(model, text, dim)
}

// VectorOfSize is the fake model's vector of text with dim dimensions
// (as the model of that name would answer after a change of size).
func VectorOfSize(model, text string, dim int) []float32 {
	v := make([]float64, dim)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, w := range words {
		if len(w) < 3 && w != "ai" {
			continue
		}
		if s, ok := Synonyms[w]; ok {
			w = s
		}
		h := fnv.New64a()
		h.Write([]byte(model))
		h.Write([]byte{0})
		h.Write([]byte(w))
		x := h.Sum64()
		sign := 1.0
		if x>>63 == 1 {
			sign = -1
		}
		v[x%uint64(dim)] += sign
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, dim)
	if norm == 0 {
		out[0] = 1
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	ollama := strings.HasSuffix(p, "/api/embed")
	if r.Method != http.MethodPost || (!strings.HasSuffix(p, "/embeddings") && !ollama) {
		http.NotFound(w, r)
		return
	}
	n := s.requests.Add(1)
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<20)).Decode(&req); err != nil || req.Model == "" {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	s.texts.Add(int64(len(req.Input)))
	mode := strings.Trim(strings.TrimSuffix(strings.TrimSuffix(p, "/embeddings"), "/api/embed"), "/")
	mode, rest, _ := strings.Cut(mode, "/")
	switch mode {
	case "slow":
		d := s.Slow
		if d == 0 {
			d = 5 * time.Second
		}
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
	case "401":
		http.Error(w, `{"error":"invalid api key"}`, http.StatusUnauthorized)
		return
	case "500":
		http.Error(w, `{"error":"internal"}`, http.StatusInternalServerError)
		return
	case "429":
		if n%2 == 1 {
			w.Header().Set("Retry-After", "1")
			http.Error(w, `{"error":"rate limited"}`, http.StatusTooManyRequests)
			return
		}
	case "huge":
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":[{"index":0,"embedding":[`))
		chunk := []byte(strings.Repeat("0.125,", 10000))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		return
	}
	if mode == "prefix" {
		marker, _, _ := strings.Cut(rest, "/")
		for i, t := range req.Input {
			if !strings.HasPrefix(t, marker) {
				http.Error(w, fmt.Sprintf(`{"error":"input %d does not start with the task prefix"}`, i), http.StatusUnprocessableEntity)
				return
			}
			req.Input[i] = strings.TrimPrefix(t, marker)
		}
	}
	vecs := make([][]float32, len(req.Input))
	for i, t := range req.Input {
		vecs[i] = Vector(req.Model, t)
		switch mode {
		case "size":
			size, _, _ := strings.Cut(rest, "/")
			if n, err := strconv.Atoi(size); err == nil && n > 0 && n <= 4096 {
				vecs[i] = VectorOfSize(req.Model, t, n)
			}
		case "vary":
			vecs[i] = VectorOfSize(req.Model, t, 8+int(n%512))
		}
	}
	switch mode {
	case "dim":
		if len(vecs) > 0 {
			vecs[len(vecs)-1] = append(vecs[len(vecs)-1], 0)
		}
	case "short":
		if len(vecs) > 0 {
			vecs = vecs[:len(vecs)-1]
		}
	}
	w.Header().Set("Content-Type", "application/json")
	var b strings.Builder
	if ollama {
		b.WriteString(`{"model":` + strconv.Quote(req.Model) + `,"embeddings":[`)
	} else {
		b.WriteString(`{"object":"list","model":` + strconv.Quote(req.Model) + `,"data":[`)
	}
	for i, v := range vecs {
		if i > 0 {
			b.WriteByte(',')
		}
		if !ollama {
			fmt.Fprintf(&b, `{"object":"embedding","index":%d,"embedding":`, i)
		}
		b.WriteByte('[')
		for k, x := range v {
			if k > 0 {
				b.WriteByte(',')
			}
			if mode == "nan" && k == 0 {
				b.WriteString("NaN")
				continue
			}
			b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
		}
		b.WriteByte(']')
		if !ollama {
			b.WriteByte('}')
		}
	}
	b.WriteString(`]}`)
	w.Write([]byte(b.String()))
}
