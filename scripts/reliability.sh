#!/usr/bin/env bash
# reliability.sh: hostile inputs through the filters (make reliability).
# For each: peak resident memory, wall time and output size of the whole
# process, measured with GNU time. The inputs are generated locally by
# scripts/hostile; nothing touches the network. See docs/reliability.md.
#
#   BIN=dir       binaries to measure (default: bin/, built by make build)
#   BASELINE=dir  also measure binaries in dir (an older build) for comparison
#   WORD_MB, TEXT_MB, PDF_PAGES, TAGS  sizes of the inputs (20, 50, 10000, 250000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${BIN:-$root/bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/hostile" "$root/scripts/hostile"

word_mb=${WORD_MB:-20}
text_mb=${TEXT_MB:-50}
pages=${PDF_PAGES:-10000}
tags=${TAGS:-250000}
"$work/hostile" word $((word_mb << 20)) > "$work/word.ndjson"
"$work/hostile" text $((text_mb << 20)) > "$work/text.ndjson"
for _ in 1 2 3 4; do "$work/hostile" text $((word_mb << 20)); done > "$work/four.ndjson"
"$work/hostile" tags "$tags" > "$work/tags.ndjson"
"$work/hostile" pdf "$pages" > "$work/pdf.ndjson"

if [ -x /usr/bin/time ]; then
  timer=(/usr/bin/time -f "%M %e" -o "$work/t")
else
  echo "(no GNU time at /usr/bin/time: peak memory not measured; apt-get install time)"
  timer=()
fi

# run LABEL INPUT CMD...: runs CMD < INPUT and prints one line of figures.
run() {
  local label=$1 input=$2; shift 2
  local code=0 kb=0 secs="?"
  : > "$work/t"
  if [ ${#timer[@]} -gt 0 ]; then
    "${timer[@]}" "$@" < "$input" > "$work/out" 2> "$work/err" || code=$?
    read -r kb secs < <(tail -n 1 "$work/t") || true
  else
    "$@" < "$input" > "$work/out" 2> "$work/err" || code=$?
  fi
  printf "%-58s %6s MB %7s s %9s B out  exit %s\n" "$label" $((kb / 1024)) "$secs" "$(wc -c < "$work/out")" "$code"
  grep -m1 . "$work/err" | cut -c1-160 | sed 's/^/    stderr: /' || true
}

measure() {
  local b=$1 name=$2
  echo "== $name ($b)"
  run "ll-parse: one ${word_mb} MB word" "$work/word.ndjson" "$b/ll-parse"
  if "$b/ll-parse" --help | grep -q max-text-bytes; then
    run "ll-parse --max-text-bytes 64MiB: the word, chunked whole" "$work/word.ndjson" "$b/ll-parse" --max-text-bytes $((64 << 20))
  fi
  run "ll-parse: ${text_mb} MB of text in one record" "$work/text.ndjson" "$b/ll-parse"
  run "ll-parse --concurrency 4: four ${word_mb} MB records" "$work/four.ndjson" "$b/ll-parse" --concurrency 4
  if command -v pdftotext > /dev/null; then
    run "ll-parse: $(($(wc -c < "$work/pdf.ndjson") >> 10)) KB PDF record, ${pages} pages of text" "$work/pdf.ndjson" "$b/ll-parse"
  else
    echo "(pdftotext not installed: PDF case skipped; make setup installs poppler-utils)"
  fi
  run "ll-index: hand-made record, ${text_mb} MB of text" "$work/text.ndjson" "$b/ll-index" --db "$work/$name.db"
  echo "    database: $(($(du -k "$work/$name.db"* | awk '{s += $1} END {print s}') >> 10)) MB"
  run "ll-save: ${tags} tags, one of 1 MB" "$work/tags.ndjson" "$b/ll-save" --db "$work/$name.db"
}

measure "$bin" current
if [ -n "${BASELINE:-}" ]; then
  echo
  measure "$BASELINE" baseline
fi
