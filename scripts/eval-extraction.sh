#!/bin/sh
# eval-extraction.sh scores ll-parse's article extraction on the development
# half of the article-extraction benchmark kept in ../shared/eval (next to
# the repository). It builds the real ll-parse, feeds it each page as the
# record ll-fetch would write, and prints the scorer's precision, recall and
# F1 for all pages, then for half A and half B (extraction_records.py
# halves: even and odd positions of the sorted page ids). Exits 0 with a "skipped" line when ../shared/eval is not there.
# LL_EVAL_DATA names another folder laid out the same way.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
eval_dir="${LL_EVAL_DATA:-$root/../shared/eval}"
if [ ! -f "$eval_dir/extraction/ground-truth.json" ] || [ ! -f "$eval_dir/score_extraction.py" ]; then
	echo "skipped: ../shared/eval not found"
	exit 0
fi

cd "$root"
go build -tags sqlite_fts5 -o bin/ll-parse ./cmd/ll-parse

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 scripts/extraction_records.py records "$eval_dir/extraction" >"$tmp/fetched.ndjson"
start=$(date +%s)
# Exit 3 means some pages failed; they count as empty extractions.
rc=0
bin/ll-parse -q <"$tmp/fetched.ndjson" >"$tmp/parsed.ndjson" || rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
	echo "eval-extraction: ll-parse failed with exit $rc" >&2
	exit 1
fi
end=$(date +%s)
python3 scripts/extraction_records.py predictions <"$tmp/parsed.ndjson" >"$tmp/predictions.json"
pages=$(wc -l <"$tmp/fetched.ndjson" | tr -d ' ')
echo "ll-parse: $pages pages in $((end - start))s"
python3 "$eval_dir/score_extraction.py" "$eval_dir/extraction/ground-truth.json" "$tmp/predictions.json"
python3 scripts/extraction_records.py halves "$eval_dir/extraction/ground-truth.json" "$tmp"
for half in A B; do
	echo "half $half:"
	python3 "$eval_dir/score_extraction.py" "$tmp/truth-$half.json" "$tmp/predictions.json"
done
