// Command benchfind builds test stores for retrieval benchmarks and
// evaluation (scripts/bench-find.sh, scripts/eval-retrieval.sh).
//
//	benchfind gen -db FILE -items N      synthetic article-like items (Zipf vocabulary)
//	benchfind load -db FILE < records    records {url, title, text}, chunked like ll-index
//	benchfind queries -n N               varied queries, one per line
//	benchfind vectors -db FILE -model M  the fake model's vectors (lib/embed/embedfake)
//	                                     for every stored chunk, as linkledger embed stores them
//	benchfind stream -n N [-seed S]      N article-sized records {url, title, text}
//	                                     (NDJSON on stdout, deterministic): the
//	                                     ingest benchmark's input (bench.sh)
//	benchfind ingest -stream FILE -bin DIR -floor BENCHFLOOR -n RUNS
//	                                     ll-save | ll-index of the stream into a new
//	                                     database against benchfloor load of it,
//	                                     interleaved: p50s, ratio, records/s, peak RSS
//	benchfind parse -pages DIR -bin DIR -n RUNS
//	                                     ll-parse of real pages (DIR/*.html.gz, served
//	                                     by a loopback server and fetched once by
//	                                     ll-fetch): pages/s per core, peak RSS
//	benchfind time -queries FILE -n RUNS -label L -- CMD ARGS  whole-process timings;
//	                                     "{q}" in an argument is the next query of FILE
//
// gen and load write through ledger.Index (one transaction per item), the
// same code ll-index uses; they skip the pipeline's process and JSON
// overhead so a 100k-item store builds in minutes.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/linkledger/linkledger/lib/chunk"
	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/embed/embedfake"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "benchfind: usage: benchfind gen|load|queries|vectors|recall|stream|ingest|parse|time|ratio [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "load":
		err = load(os.Args[2:])
	case "queries":
		err = queries(os.Args[2:])
	case "vectors":
		err = vectors(os.Args[2:])
	case "recall":
		err = recall(os.Args[2:])
	case "stream":
		err = stream(os.Args[2:])
	case "ingest":
		err = ingest(os.Args[2:])
	case "parse":
		err = parseBench(os.Args[2:])
	case "time":
		err = timeRuns(os.Args[2:])
	case "ratio":
		err = ratioRuns(os.Args[2:])
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchfind: %v\n", err)
		os.Exit(1)
	}
}

// vocab is a deterministic pseudo-English vocabulary: real function words
// first (so they are the most frequent under Zipf), then made-up words.
func vocab(n int, rng *rand.Rand) []string {
	words := strings.Fields(`the of and to a in is that for it as was with be by on not he this are or his from at which but have an they
		you were her she there been one all we their has would when if so no will more about can out up what said some into them than
		other time only new could these two may first then do any like my now over such our man me even most made after also did many
		before must through back years where much your way well down should because each just those people how too little state good
		very make world still own see men work long get here between both life being under never day same another know while last
		might us great old year off come since against go came right used take three system data model memory search agent network`)
	syll := []string{"ka", "lo", "mi", "ren", "tu", "sa", "vel", "dor", "pi", "qua", "ne", "zo", "bar", "lin", "ex", "tra", "mon", "fi", "gra", "ust"}
	seen := map[string]bool{}
	for _, w := range words {
		seen[w] = true
	}
	for len(words) < n {
		k := 2 + rng.Intn(3)
		var b strings.Builder
		for i := 0; i < k; i++ {
			b.WriteString(syll[rng.Intn(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words
}

// text generates sentences of Zipf-distributed words.
type textGen struct {
	rng   *rand.Rand
	zipf  *rand.Zipf
	words []string
}

func newTextGen(seed int64) *textGen {
	rng := rand.New(rand.NewSource(seed))
	words := vocab(50000, rng)
	return &textGen{rng: rng, zipf: rand.NewZipf(rng, 1.07, 2, uint64(len(words)-1)), words: words}
}

func (g *textGen) sentence() string {
	n := 8 + g.rng.Intn(16)
	var b strings.Builder
	for i := 0; i < n; i++ {
		w := g.words[g.zipf.Uint64()]
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	b.WriteString(". ")
	return b.String()
}

func (g *textGen) phrase(n int) string {
	var b []string
	for i := 0; i < n; i++ {
		b = append(b, g.words[g.zipf.Uint64()])
	}
	return strings.Join(b, " ")
}

func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	db := fs.String("db", "", "database file")
	items := fs.Int("items", 10000, "items")
	chunks := fs.Int("chunks", 10, "chunks per item (average)")
	seed := fs.Int64("seed", 1, "random seed")
	merge := fs.Bool("merge", true, "merge index segments at the end, as ll-index does")
	fs.Parse(args)
	ctx := context.Background()
	st, err := ledger.Open(ctx, *db, ledger.OpenOptions{})
	if err != nil {
		return err
	}
	defer st.Close()
	g := newTextGen(*seed)
	types := []string{"article", "article", "article", "pdf", "youtube", "x", "text"}
	for i := 0; i < *items; i++ {
		url := fmt.Sprintf("https://bench%d.example/post/%d", i%211, i)
		rec := &record.Record{URL: url, CanonicalURL: url, ID: record.ItemID(url), SourceType: types[i%len(types)]}
		rec.Title = strings.TrimSuffix(strings.TrimSpace(g.sentence()), ".")
		n := 1 + g.rng.Intn(2**chunks-1)
		var all strings.Builder
		for c := 0; c < n; c++ {
			var b strings.Builder
			for b.Len() < 1200 {
				b.WriteString(g.sentence())
			}
			t := strings.TrimSpace(b.String())
			all.WriteString(t + "\n\n")
			rec.Chunks = append(rec.Chunks, record.Chunk{Index: c, Text: t, Tokens: len(t) / 5})
		}
		text := all.String()
		rec.Text = &text
		if _, err := st.Index(ctx, rec, spec.IndexOptions{}); err != nil {
			return fmt.Errorf("item %d: %w", i, err)
		}
		// A few items carry tags and annotations, as a real library does.
		if i%10 == 0 {
			in := &record.Record{ID: rec.ID, CanonicalURL: url, Tags: []string{fmt.Sprintf("topic%d", i%23)}}
			c := 0.3 + 0.6*g.rng.Float64()
			// an agent's highlight quotes its source exactly (the store
			// refuses one that does not): the first chunk's first sentence
			quote := rec.Chunks[0].Text
			if k := strings.Index(quote, ". "); k > 0 {
				quote = quote[:k+1]
			}
			g.sentence() // the same random sequence as before
			in.Annotations = []record.Annotation{
				{Type: "highlight", Text: g.sentence(), Actor: "human", Pinned: i%30 == 0},
				{Type: "highlight", Text: quote, Actor: "agent:bench", Confidence: &c},
				{Type: "note", Text: g.sentence(), Actor: "human"},
			}
			if _, err := st.SaveRecord(ctx, in, spec.SaveOptions{}); err != nil {
				return fmt.Errorf("item %d: %w", i, err)
			}
		}
		if (i+1)%5000 == 0 {
			fmt.Fprintf(os.Stderr, "benchfind: %d items\n", i+1)
		}
	}
	// As ll-index does at the end of its input: merge index segments
	// with a budget proportional to the items indexed.
	if *merge {
		if _, err := st.MergeIndex(ctx, *items*spec.MergePagesPerItem); err != nil {
			return err
		}
	}
	return nil
}

// vectors stores the fake model's vector of every chunk without one, item
// by item, through ledger.PutVectors (what linkledger embed does, without
// the endpoint).
func vectors(args []string) error {
	fs := flag.NewFlagSet("vectors", flag.ExitOnError)
	db := fs.String("db", "", "database file")
	model := fs.String("model", "hash-768", "fake model name (hash-N: N dimensions)")
	fs.Parse(args)
	ctx := context.Background()
	st, err := ledger.Open(ctx, *db, ledger.OpenOptions{})
	if err != nil {
		return err
	}
	defer st.Close()
	after := ""
	for {
		items, err := st.ItemsToEmbed(ctx, *model, nil, after, 256)
		if err != nil || len(items) == 0 {
			return err
		}
		for _, it := range items {
			for i := range it.Chunks {
				it.Chunks[i].Vector = embedfake.Vector(*model, it.Chunks[i].Text)
			}
			if _, err := st.PutVectors(ctx, it.ID, *model, it.Chunks); err != nil {
				return err
			}
			after = it.ID
		}
	}
}

// recall prints how many of the exact top 10 items (by their best
// chunk's cosine to the query, every stored vector of the fake model read)
// the semantic side of a search (codes, first pass, rescoring) ranks in its
// own top 10, over the queries of a file (docs/retrieval.md, "Codes").
func recall(args []string) error {
	fs := flag.NewFlagSet("recall", flag.ExitOnError)
	db := fs.String("db", "", "database file")
	model := fs.String("model", "hash-768", "fake model name (hash-N: N dimensions)")
	queries := fs.String("queries", "", "file of queries, one a line")
	fs.Parse(args)
	ctx := context.Background()
	st, err := ledger.Open(ctx, *db, ledger.OpenOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer st.Close()
	qs, err := readLines(*queries)
	if err != nil {
		return err
	}
	type vec struct {
		item string
		v    []float32
	}
	var all []vec
	// the vectors as stored, read beside the ledger (read-only) for the
	// exact reference ranking
	raw, err := sql.Open("sqlite3", "file:"+*db+"?mode=ro")
	if err != nil {
		return err
	}
	defer raw.Close()
	rows, err := raw.QueryContext(ctx, `SELECT item_id, vector FROM chunk_vectors WHERE model = ?`, *model)
	if err != nil {
		return err
	}
	for rows.Next() {
		var (
			id   string
			blob []byte
		)
		if err := rows.Scan(&id, &blob); err != nil {
			rows.Close()
			return err
		}
		v, err := embed.FromBytes(blob)
		if err != nil {
			rows.Close()
			return err
		}
		all = append(all, vec{id, v})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	kept, total := 0, 0
	for _, q := range qs {
		qv := embedfake.Vector(*model, q)
		best := map[string]float32{}
		for _, c := range all {
			var d float32
			for i, x := range c.v {
				d += x * qv[i]
			}
			if b, ok := best[c.item]; !ok || d > b {
				best[c.item] = d
			}
		}
		exact := make([]string, 0, len(best))
		for id := range best {
			exact = append(exact, id)
		}
		sort.Slice(exact, func(i, j int) bool {
			if best[exact[i]] != best[exact[j]] {
				return best[exact[i]] > best[exact[j]]
			}
			return exact[i] < exact[j]
		})
		exact = exact[:min(10, len(exact))]
		// the semantic side's own top 10 (why_ranked.fusion.semantic_rank),
		// not the page, which pins and confidence penalties reorder
		res, err := st.Search(ctx, spec.SearchOptions{Text: q, Limit: 80,
			Semantic: &spec.Semantic{Vector: qv, Model: *model, Mode: spec.ModeSemantic}})
		if err != nil {
			return err
		}
		got := map[string]bool{}
		for _, h := range res.Hits {
			if f := h.Hit.WhyRanked.Fusion; f != nil && f.SemanticRank >= 1 && f.SemanticRank <= 10 {
				got[h.ID] = true
			}
		}
		for _, id := range exact {
			total++
			// an item tied with the 10th counts as found either way
			if got[id] || best[id] == best[exact[len(exact)-1]] {
				kept++
			}
		}
	}
	if total == 0 {
		return fmt.Errorf("no vectors of %s", *model)
	}
	fmt.Printf("recall@10 of the semantic ranking against an exact scan: %.3f (%d queries, %d chunks)\n", float64(kept)/float64(total), len(qs), len(all))
	return nil
}

func load(args []string) error {
	fs := flag.NewFlagSet("load", flag.ExitOnError)
	db := fs.String("db", "", "database file")
	fs.Parse(args)
	ctx := context.Background()
	st, err := ledger.Open(ctx, *db, ledger.OpenOptions{})
	if err != nil {
		return err
	}
	defer st.Close()
	br := bufio.NewReaderSize(os.Stdin, 1<<20)
	n := 0
	for {
		line, rerr := br.ReadBytes('\n')
		if len(line) > 0 {
			var rec record.Record
			if err := json.Unmarshal(line, &rec); err != nil {
				return fmt.Errorf("line %d: %w", n+1, err)
			}
			rec.CanonicalURL = rec.URL
			rec.ID = record.ItemID(rec.URL)
			if rec.SourceType == "" {
				rec.SourceType = record.SourceText
			}
			var pieces []chunk.Piece
			for _, p := range strings.Split(rec.TextValue(), "\n\n") {
				if p = strings.TrimSpace(p); p != "" {
					pieces = append(pieces, chunk.Piece{Text: p})
				}
			}
			rec.Chunks = chunk.Split(pieces, chunk.Options{})
			if _, err := st.Index(ctx, &rec, spec.IndexOptions{}); err != nil {
				return fmt.Errorf("line %d: %w", n+1, err)
			}
			n++
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return rerr
		}
	}
	fmt.Fprintf(os.Stderr, "benchfind: loaded %d records\n", n)
	_, err = st.MergeIndex(ctx, n*spec.MergePagesPerItem) // as ll-index does
	return err
}

// stream writes n article-sized records {url, title, text} as NDJSON: a
// text of 3 to 16 paragraphs (about 6.9 KB on average, as the 2,000
// records of 13.8 MB) of Zipf-distributed pseudo-English words, with the
// odd number, comma and question a real article has. The same n and seed
// give the same bytes; the default seed (11) is not gen's (1), so the text
// is never one a store of the find benchmarks already holds.
func stream(args []string) error {
	fs := flag.NewFlagSet("stream", flag.ExitOnError)
	n := fs.Int("n", 2000, "records")
	seed := fs.Int64("seed", 11, "random seed")
	fs.Parse(args)
	g := newTextGen(*seed)
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := 0; i < *n; i++ {
		var text strings.Builder
		paras := 3 + g.rng.Intn(15)
		for p := 0; p < paras; p++ {
			if p > 0 {
				text.WriteString("\n\n")
			}
			sentences := 3 + g.rng.Intn(8)
			for s := 0; s < sentences; s++ {
				if s > 0 {
					text.WriteByte(' ')
				}
				t := strings.TrimSpace(g.sentence())
				switch g.rng.Intn(12) {
				case 0:
					t = strings.TrimSuffix(t, ".") + "?"
				case 1:
					t = strings.Replace(t, " ", ", ", 1)
				case 2:
					t = strings.TrimSuffix(t, ".") + fmt.Sprintf(" in %d.", 1990+g.rng.Intn(36))
				}
				text.WriteString(t)
			}
		}
		rec := struct {
			URL   string `json:"url"`
			Title string `json:"title"`
			Text  string `json:"text"`
		}{
			URL:   fmt.Sprintf("https://ingest%d.example/%d/article-%d", i%113, *seed, i),
			Title: strings.TrimSuffix(strings.TrimSpace(g.sentence()), "."),
			Text:  text.String(),
		}
		if err := enc.Encode(rec); err != nil {
			return err
		}
	}
	return w.Flush()
}

// ingest times, interleaved, the raw load of a stream (benchfloor load,
// one FTS5 table) and ll-save | ll-index of the same stream, each into a
// new database, and prints each one's wall and CPU p50 and p95, the ratios
// of the p50s to the floor's, ll-index's records/s, and the peak RSS of
// each process. -bin may name several folders (comma-separated: builds to
// compare, each timed in every round).
func ingest(args []string) error {
	fs := flag.NewFlagSet("ingest", flag.ExitOnError)
	file := fs.String("stream", "", "NDJSON records (benchfind stream)")
	bins := fs.String("bin", "bin", "folders holding ll-save and ll-index, comma-separated")
	floor := fs.String("floor", "", "benchfloor binary")
	n := fs.Int("n", 5, "timed runs of each")
	label := fs.String("label", "", "name printed with the result")
	fs.Parse(args)
	if *file == "" || *floor == "" {
		return fmt.Errorf("ingest: need -stream and -floor")
	}
	b, err := os.ReadFile(*file)
	if err != nil {
		return err
	}
	records := strings.Count(string(b), "\n")
	dir, err := os.MkdirTemp("", "benchingest")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db := dir + "/ingest.db"
	fresh := func() {
		for _, s := range []string{"", "-wal", "-shm"} {
			os.Remove(db + s)
		}
	}
	// usage is what one process cost: its CPU time and peak RSS.
	type usage struct {
		cpu time.Duration
		rss int64 // KB
	}
	of := func(ps *os.ProcessState) usage {
		u := usage{cpu: ps.UserTime() + ps.SystemTime()}
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			u.rss = ru.Maxrss
		}
		return u
	}
	runFloor := func() (time.Duration, usage, error) {
		fresh()
		in, err := os.Open(*file)
		if err != nil {
			return 0, usage{}, err
		}
		defer in.Close()
		cmd := exec.Command(*floor, "load", db)
		cmd.Stdin, cmd.Stderr = in, os.Stderr
		start := time.Now()
		err = cmd.Run()
		return time.Since(start), of(cmd.ProcessState), err
	}
	runPipe := func(bin string) (time.Duration, usage, usage, error) {
		fresh()
		in, err := os.Open(*file)
		if err != nil {
			return 0, usage{}, usage{}, err
		}
		defer in.Close()
		save := exec.Command(bin+"/ll-save", "-q", "--db", db)
		index := exec.Command(bin+"/ll-index", "-q", "--db", db)
		save.Stdin, save.Stderr, index.Stderr = in, os.Stderr, os.Stderr
		pipe, err := save.StdoutPipe()
		if err != nil {
			return 0, usage{}, usage{}, err
		}
		index.Stdin = pipe
		start := time.Now()
		if err := save.Start(); err != nil {
			return 0, usage{}, usage{}, err
		}
		if err := index.Start(); err != nil {
			save.Process.Kill()
			save.Wait()
			return 0, usage{}, usage{}, err
		}
		errS, errI := save.Wait(), index.Wait()
		d := time.Since(start)
		if errS != nil || errI != nil {
			return 0, usage{}, usage{}, fmt.Errorf("%s: ll-save: %v, ll-index: %v", bin, errS, errI)
		}
		return d, of(save.ProcessState), of(index.ProcessState), nil
	}
	// series are one command's timings.
	type series struct {
		wall, cpu, indexCPU []time.Duration
		rss, saveRSS        int64
		size                int64 // database bytes after the run
	}
	dirs := strings.Split(*bins, ",")
	var fl series
	pipes := make([]series, len(dirs))
	for i := -1; i < *n; i++ { // one warm-up round
		fd, fu, err := runFloor()
		if err != nil {
			return fmt.Errorf("floor: %w", err)
		}
		if i >= 0 {
			fl.wall, fl.cpu, fl.rss = append(fl.wall, fd), append(fl.cpu, fu.cpu), max(fl.rss, fu.rss)
		}
		for k, bin := range dirs {
			pd, su, iu, err := runPipe(bin)
			if err != nil {
				return err
			}
			if i < 0 {
				continue
			}
			p := &pipes[k]
			p.wall, p.cpu, p.indexCPU = append(p.wall, pd), append(p.cpu, su.cpu+iu.cpu), append(p.indexCPU, iu.cpu)
			p.rss, p.saveRSS = max(p.rss, iu.rss), max(p.saveRSS, su.rss)
			if st, err := os.Stat(db); err == nil {
				p.size = st.Size()
			}
		}
	}
	q := func(d []time.Duration, p float64) time.Duration {
		sort.Slice(d, func(a, b int) bool { return d[a] < d[b] })
		return d[int(p*float64(len(d)-1)+0.5)]
	}
	sec := func(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
	fw, fc := q(fl.wall, 0.5), q(fl.cpu, 0.5)
	fmt.Printf("%s (interleaved, runs=%d each, %d records, %.1f MB; load average %s)\n", *label, *n, records, float64(len(b))/1e6, loadAvg())
	fmt.Printf("  %-28s wall p50=%s p95=%s  CPU p50=%s  peak RSS %d MB\n", "floor: benchfloor load", sec(fw), sec(q(fl.wall, 0.95)), sec(fc), fl.rss>>10)
	for k, p := range pipes {
		pw, pc := q(p.wall, 0.5), q(p.cpu, 0.5)
		fmt.Printf("  %-28s wall p50=%s p95=%s  CPU p50=%s  wall/floor=%.2f  CPU/floor=%.2f  %.0f records/s\n",
			"ll-save | ll-index", sec(pw), sec(q(p.wall, 0.95)), sec(pc), float64(pw)/float64(fw), float64(pc)/float64(fc), float64(records)/pw.Seconds())
		fmt.Printf("  %-28s ll-index CPU p50=%s  peak RSS ll-index %d MB, ll-save %d MB  database %.1f MB  (%s)\n", "", sec(q(p.indexCPU, 0.5)), p.rss>>10, p.saveRSS>>10, float64(p.size)/1e6, dirs[k])
	}
	return nil
}

// parseBench times ll-parse on real pages: it serves DIR/*.html.gz from a
// loopback HTTP server, fetches them once with ll-fetch (untimed), then
// runs ll-parse on the fetched records n times with one worker and with
// its default concurrency, and prints the p50 wall time, the CPU time,
// pages/s per core (pages over CPU seconds) and the peak RSS.
func parseBench(args []string) error {
	fs := flag.NewFlagSet("parse", flag.ExitOnError)
	dir := fs.String("pages", "", "folder of *.html.gz pages")
	bin := fs.String("bin", "bin", "folder holding ll-fetch and ll-parse")
	n := fs.Int("n", 5, "timed runs")
	fs.Parse(args)
	files, err := filepath.Glob(filepath.Join(*dir, "*.html.gz"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("parse: no *.html.gz in %q", *dir)
	}
	pages := map[string][]byte{}
	var size int
	for _, f := range files {
		b, err := gunzipFile(f)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		pages["/"+strings.TrimSuffix(filepath.Base(f), ".gz")] = b
		size += len(b)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write(b)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	var urls strings.Builder
	for p := range pages {
		fmt.Fprintf(&urls, "http://%s%s\n", ln.Addr(), p)
	}
	fetch := exec.Command(*bin+"/ll-fetch", "-q", "--host-interval", "0", "--per-host", "8", "--concurrency", "8")
	fetch.Stdin, fetch.Stderr = strings.NewReader(urls.String()), os.Stderr
	fetched, err := fetch.Output()
	if err != nil {
		return fmt.Errorf("ll-fetch: %w", err)
	}
	if got := bytes.Count(fetched, []byte("\n")); got != len(pages) {
		return fmt.Errorf("ll-fetch wrote %d records for %d pages", got, len(pages))
	}
	fmt.Printf("ll-parse of %d real pages (%.1f MB of HTML, served on loopback, fetched once; runs=%d; load average %s)\n", len(pages), float64(size)/1e6, *n, loadAvg())
	for _, conc := range []string{"1", ""} {
		var walls, cpus []time.Duration
		var rss int64
		for i := -1; i < *n; i++ {
			a := []string{"-q"}
			if conc != "" {
				a = append(a, "--concurrency", conc)
			}
			cmd := exec.Command(*bin+"/ll-parse", a...)
			cmd.Stdin, cmd.Stderr = bytes.NewReader(fetched), os.Stderr
			start := time.Now()
			// exit 3: some pages failed (no text); they count as parsed
			if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() != 3 {
				return fmt.Errorf("ll-parse: %w", err)
			}
			d := time.Since(start)
			if i < 0 {
				continue
			}
			walls, cpus = append(walls, d), append(cpus, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				rss = max(rss, ru.Maxrss)
			}
		}
		med := func(d []time.Duration) time.Duration {
			sort.Slice(d, func(a, b int) bool { return d[a] < d[b] })
			return d[len(d)/2]
		}
		w, c := med(walls), med(cpus)
		label := "ll-parse --concurrency 1"
		if conc == "" {
			label = "ll-parse (default concurrency)"
		}
		fmt.Printf("  %-32s wall p50=%.2f s  CPU p50=%.2f s  %.1f pages/s  %.1f pages/s per core  peak RSS %d MB\n",
			label, w.Seconds(), c.Seconds(), float64(len(pages))/w.Seconds(), float64(len(pages))/c.Seconds(), rss>>10)
	}
	return nil
}

// gunzipFile returns the decompressed bytes of a .gz file.
func gunzipFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(zr, 64<<20))
}

// loadAvg is the 1-minute load average, or "?".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// queries prints n varied queries over the generator's vocabulary: short
// keyword queries of rare, mid and common words, and long natural-language
// ones (20-60 words).
func queries(args []string) error {
	fs := flag.NewFlagSet("queries", flag.ExitOnError)
	n := fs.Int("n", 60, "queries")
	seed := fs.Int64("seed", 7, "random seed")
	fs.Parse(args)
	g := newTextGen(1) // same vocabulary as gen
	rng := rand.New(rand.NewSource(*seed))
	pick := func(lo, hi int) string { return g.words[lo+rng.Intn(hi-lo)] }
	for i := 0; i < *n; i++ {
		var q string
		switch i % 6 {
		case 0:
			q = pick(200, 5000) // one mid-frequency word
		case 1:
			q = pick(2, 50) + " " + pick(500, 20000) // a common and a rarer word
		case 2:
			q = pick(1000, 40000) + " " + pick(1000, 40000) + " " + pick(100, 1000)
		case 3:
			q = "the " + pick(0, 30) // stopword-heavy, common words only
		case 4:
			q = strings.TrimSpace(g.phrase(20 + rng.Intn(20)))
		default:
			q = strings.TrimSpace(g.phrase(40+rng.Intn(20))) + "?"
		}
		fmt.Println(q)
	}
	return nil
}

// timeRuns runs a command once per run (after a warm-up), each run with the
// next query, and prints the median and p95 wall time of the whole process.
func timeRuns(args []string) error {
	fs := flag.NewFlagSet("time", flag.ExitOnError)
	qfile := fs.String("queries", "", "queries file, one per line")
	n := fs.Int("n", 200, "timed runs")
	label := fs.String("label", "", "name printed with the result")
	fs.Parse(args)
	cmdArgs := fs.Args()
	qs, err := readLines(*qfile)
	if err != nil {
		return err
	}
	if len(qs) == 0 || len(cmdArgs) == 0 {
		return fmt.Errorf("time: need -queries FILE and a command")
	}
	run := func(i int) (time.Duration, error) {
		a := make([]string, len(cmdArgs))
		for j, s := range cmdArgs {
			a[j] = strings.ReplaceAll(s, "{q}", qs[i%len(qs)])
		}
		cmd := exec.Command(a[0], a[1:]...)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		d := time.Since(start)
		if err != nil {
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 4 {
				return 0, fmt.Errorf("run %d: %v\n%s", i, err, out)
			}
		}
		return d, nil
	}
	for i := 0; i < 5; i++ {
		if _, err := run(i); err != nil {
			return err
		}
	}
	ds := make([]time.Duration, *n)
	for i := range ds {
		if ds[i], err = run(i); err != nil {
			return err
		}
	}
	sort.Slice(ds, func(a, b int) bool { return ds[a] < ds[b] })
	q := func(p float64) time.Duration { return ds[int(p*float64(len(ds)-1)+0.5)] }
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
	fmt.Printf("%-44s runs=%d queries=%d  p50=%s  p95=%s  min=%s  max=%s\n", *label, *n, len(qs), ms(q(0.5)), ms(q(0.95)), ms(ds[0]), ms(ds[len(ds)-1]))
	return nil
}

// ratioRuns times commands interleaved (run i of each, then run i+1 of
// each, same query), so a machine that gets busier or quieter mid-run
// shifts them all alike, and prints each command's p50 and p95 and its
// p50 over the first command's (the floor):
//
//	benchfind ratio -queries F -n 200 -label L -- FLOOR ARGS {q} ::: CMD ARGS {q} [::: ...]
func ratioRuns(args []string) error {
	fs := flag.NewFlagSet("ratio", flag.ExitOnError)
	qfile := fs.String("queries", "", "queries file, one per line")
	n := fs.Int("n", 200, "timed runs of each command")
	label := fs.String("label", "", "name printed with the result")
	fs.Parse(args)
	var cmds [][]string
	cur := []string{}
	for _, a := range fs.Args() {
		if a == ":::" {
			cmds, cur = append(cmds, cur), []string{}
			continue
		}
		cur = append(cur, a)
	}
	cmds = append(cmds, cur)
	qs, err := readLines(*qfile)
	if err != nil {
		return err
	}
	if len(qs) == 0 || len(cmds) < 2 || len(cmds[0]) == 0 || len(cmds[1]) == 0 {
		return fmt.Errorf("ratio: need -queries FILE and two or more commands separated by :::")
	}
	run := func(c []string, i int) (time.Duration, error) {
		a := make([]string, len(c))
		for j, s := range c {
			a[j] = strings.ReplaceAll(s, "{q}", qs[i%len(qs)])
		}
		cmd := exec.Command(a[0], a[1:]...)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		d := time.Since(start)
		if err != nil {
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 4 {
				return 0, fmt.Errorf("%s run %d: %v\n%s", a[0], i, err, out)
			}
		}
		return d, nil
	}
	ds := make([][]time.Duration, len(cmds))
	for i := -5; i < *n; i++ {
		for k, c := range cmds {
			d, err := run(c, i+5)
			if err != nil {
				return err
			}
			if i >= 0 {
				ds[k] = append(ds[k], d)
			}
		}
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
	var floor time.Duration
	fmt.Printf("%s (interleaved, runs=%d each, queries=%d)\n", *label, *n, len(qs))
	for k, d := range ds {
		sort.Slice(d, func(a, b int) bool { return d[a] < d[b] })
		q := func(p float64) time.Duration { return d[int(p*float64(len(d)-1)+0.5)] }
		if k == 0 {
			floor = q(0.5)
		}
		name := cmds[k][0]
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		if len(cmds[k]) > 1 {
			name += " " + cmds[k][1]
		}
		fmt.Printf("  %-40s p50=%s  p95=%s  p50/floor=%.2f\n", name, ms(q(0.5)), ms(q(0.95)), float64(q(0.5))/float64(floor))
	}
	return nil
}

// readLines returns the lines of a file that are not blank, trimmed.
func readLines(file string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out, nil
}
