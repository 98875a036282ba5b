#!/bin/sh
# eval-structure.sh measures how much of each page's structure ll-parse
# keeps in its Markdown (headings, list items, code blocks, table cells,
# figures) on the development half of the article-extraction benchmark in
# ../shared/eval (scripts/eval_structure.py says how). Exits 0 with a
# "skipped" line when ../shared/eval is not there. LL_EVAL_DATA names
# another folder laid out the same way.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
eval_dir="${LL_EVAL_DATA:-$root/../shared/eval}"
if [ ! -f "$eval_dir/extraction/ground-truth.json" ]; then
	echo "skipped: ../shared/eval not found"
	exit 0
fi

cd "$root"
go build -tags sqlite_fts5 -o bin/ll-parse ./cmd/ll-parse

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 scripts/extraction_records.py records "$eval_dir/extraction" >"$tmp/fetched.ndjson"
rc=0
bin/ll-parse -q <"$tmp/fetched.ndjson" >"$tmp/parsed.ndjson" || rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
	echo "eval-structure: ll-parse failed with exit $rc" >&2
	exit 1
fi
python3 scripts/eval_structure.py "$eval_dir/extraction" <"$tmp/parsed.ndjson"
