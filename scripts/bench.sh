#!/usr/bin/env bash
# bench.sh: linkledger's benchmarks (make bench). Whole-process timings are
# medians and p95 over many runs; the machine may be shared and noisy, so
# compare runs on the same machine only. BENCH_QUICK=1 makes smaller stores.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/bin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/benchproc" "$root/scripts/benchproc"
go build -tags sqlite_fts5 -o "$work/benchfloor" "$root/scripts/benchfloor"
go build -tags sqlite_fts5 -o "$work/benchfind" "$root/scripts/benchfind"
items=${BENCH_ITEMS:-10000}

echo "== process floors on this machine (what any process / any linkledger binary costs)"
"$work/benchproc" -n 200 -label "/bin/true" -- /bin/true
"$work/benchproc" -n 200 -label "ll-save --version (startup only)" -- "$bin/ll-save" --version
"$work/benchfloor" write "$work/floor.db" "$items"
"$work/benchproc" -n 200 -label "floor: minimal cgo+SQLite program, one INSERT (${items} rows)" -- "$work/benchfloor" write "$work/floor.db" "$items"
echo
echo "== ll-save: whole process, one new URL, into a ${items}-item database"
db="$work/save.db"
awk -v n="$items" 'BEGIN { for (i = 0; i < n; i++) printf "https://site%d.example/post/%d?utm_source=x\n", i % 97, i }' \
  | "$bin/ll-save" --db "$db" -q > /dev/null
"$work/benchproc" -n 200 -label "ll-save one URL (${items} items)" -- "$bin/ll-save" --db "$db" -q "https://bench.example/new/{i}"
"$work/benchproc" -n 200 -label "ll-save existing URL (dedupe)" -- "$bin/ll-save" --db "$db" -q "https://site3.example/post/3"
# The ratio to the floor, from interleaved runs (the issue's goal: ll-save <= 1.3x)
seq 100000 109999 > "$work/nums.txt"
"$work/benchfind" ratio -n 200 -queries "$work/nums.txt" -label "floor ratio, ll-save one new URL (${items} items)" -- \
  "$work/benchfloor" write "$work/floor.db" "$items" ::: "$bin/ll-save" --db "$db" -q "https://bench.example/ratio/{q}"

echo
echo "== ingest: start-up of each filter, and one local page through the pipeline"
for f in ll-fetch ll-parse ll-index; do
  "$work/benchproc" -n 100 -label "$f --version (startup only)" -- "$bin/$f" --version
done
page="$root/scripts/demo/site/agent-memory.html"
"$work/benchproc" -n 50 -label "ll-save PAGE | ll-fetch | ll-parse | ll-index (one file:// page)" -- \
  sh -c '"$1/ll-save" --db "$2" -q "$3" | "$1/ll-fetch" -q --allow-files "$(dirname "$3")" | "$1/ll-parse" -q | "$1/ll-index" --db "$2" -q' sh "$bin" "$work/pipe.db" "$page"
"$work/benchproc" -n 50 -label "ll-save PAGE | ll-fetch | ll-parse | ll-enrich | ll-index (one file:// page)" -- \
  sh -c '"$1/ll-save" --db "$2" -q "$3" | "$1/ll-fetch" -q --allow-files "$(dirname "$3")" | "$1/ll-parse" -q | "$1/ll-enrich" -q | "$1/ll-index" --db "$2" -q' sh "$bin" "$work/enrich.db" "$page"

# ll-embed against an endpoint that answers at once (scripts/embedfake,
# 768 dimensions): the stage's own cost per chunk, batches of 32
go build -tags sqlite_fts5 -o "$work/embedfake" "$root/scripts/embedfake"
awk 'BEGIN { for (i = 0; i < 100; i++) { printf "{\"url\":\"https://embed.example/%d\",\"text\":\"t\",\"chunks\":[", i;
  for (k = 0; k < 10; k++) printf "%s{\"index\":%d,\"text\":\"chunk %d of item %d: words about agents, memory and retrieval\",\"tokens\":12}", (k ? "," : ""), k, k, i;
  print "]}" } }' > "$work/embed.ndjson"
mkfifo "$work/fake.in"
"$work/embedfake" < "$work/fake.in" > "$work/fake.url" &
exec 9> "$work/fake.in"
while [ ! -s "$work/fake.url" ]; do sleep 0.05; done
LINKLEDGER_EMBED_URL=$(cat "$work/fake.url") LINKLEDGER_EMBED_MODEL=hash-768 \
  "$work/benchproc" -n 20 -label "ll-embed, 100 records of 10 chunks (1,000 chunks), instant fake endpoint" -- \
  sh -c '"$1/ll-embed" -q < "$2" > /dev/null' sh "$bin" "$work/embed.ndjson"
exec 9>&-

echo
echo "== ingest: ll-save | ll-index of generated article-sized records, against a raw FTS5 load of the same text (issue 23)"
go build -o "$work/benchfind" "$root/scripts/benchfind"
ingest=${BENCH_INGEST_RECORDS:-2000}
"$work/benchfind" stream -n "$ingest" > "$work/stream.ndjson"
"$work/benchfind" ingest -stream "$work/stream.ndjson" -bin "$bin" -floor "$work/benchfloor" -n "${BENCH_INGEST_RUNS:-7}" \
  -label "ingest of ${ingest} records"
# ll-parse on the real extraction dev pages (skipped without ../shared)
pages="${LL_EVAL_DATA:-$root/../shared/eval}/extraction/html"
if [ -d "$pages" ]; then
  "$work/benchfind" parse -pages "$pages" -bin "$bin" -n "${BENCH_PARSE_RUNS:-7}"
else
  echo "ll-parse on real pages: $pages not found; skipped"
fi

echo
echo "== import: a 50,000-link Pocket CSV (rows/s; linkledger import: median of 3 runs into a new database)"
rows=${BENCH_IMPORT_ROWS:-50000}
awk -v n="$rows" 'BEGIN { print "title,url,time_added,tags,status"; for (i = 0; i < n; i++) printf "\"Post %d, \"\"quoted\"\"\",https://site%d.example/post/%d?utm_source=x,%d,a|b%d,%s\n", i, i % 97, i, 1500000000 + i, i % 7, (i % 3 ? "unread" : "archive") }' > "$work/pocket.csv"
secs() { # command...: prints the seconds one run takes
  local t0 t1
  t0=$(date +%s.%N); "$@" > /dev/null; t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
report() { # label, seconds...: prints the median and rows/s
  local label=$1; shift
  printf '%s\n' "$@" | sort -n | awk -v n="$rows" -v l="$label" -v runs="$*" '
    { t[NR] = $1 } END { m = t[int((NR + 1) / 2)]; printf "%-58s %8.2fs %10.0f rows/s   (runs: %s s)\n", l, m, n / m, runs }'
}
report "ll-import pocket.csv (${rows} rows)" "$(secs "$bin/ll-import" -q "$work/pocket.csv")"
# the whole verb, as a user runs it (ll-import | ll-save --batch 5000)
runs=()
for i in 1 2 3; do
  rm -f "$work/import.db" "$work/import.db-wal" "$work/import.db-shm"
  runs+=("$(secs "$bin/linkledger" import -q --db "$work/import.db" "$work/pocket.csv")")
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
report "linkledger import pocket.csv (new database)" "${runs[@]}"
report "the same again (every link there: nothing changes)" "$(secs "$bin/linkledger" import -q --db "$work/import.db" "$work/pocket.csv")"

echo
echo "== Go benchmarks (parse, chunk, canonicalize, fetch, index, enrich: BenchmarkEnrich records/s, docs/enrich.md)"
(cd "$root" && go test -tags sqlite_fts5 -run '^$' -bench . -benchtime 2s ./lib/... 2>/dev/null | grep -E '^Benchmark|ok ' || true)

if [ -x "$root/scripts/bench-find.sh" ]; then
  echo
  echo "== ll-find / ll-brief"
  "$root/scripts/bench-find.sh"
fi

echo
"$root/scripts/bench-serve.sh"
