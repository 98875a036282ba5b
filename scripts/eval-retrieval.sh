#!/usr/bin/env bash
# eval-retrieval.sh: retrieval quality on BEIR SciFact (train split).
#
# Loads the corpus into a temporary database through ll-index (each
# abstract becomes a record {url: https://eval.local/doc/<_id>, title,
# text}; ll-index chunks it), runs every train query through one
# `ll-find --queries` process (top 100), writes the run file and prints
# nDCG@10 and Recall@100 with the shared scorer, then a proxy score for
# ll-find --related (eval-related.py). Extra arguments go to
# ll-find (e.g. --w-title 3). Skips (exit 0) when the shared eval data is
# absent. LL_EVAL_LOADER=benchfind loads with scripts/benchfind instead of
# ll-index (same store.Index code, without the pipeline).
# LL_EVAL_DATA (default ../shared/eval), LL_EVAL_SET (default scifact) and
# LL_EVAL_SPLIT (default train) pick another BEIR-style set:
# $LL_EVAL_DATA/$LL_EVAL_SET/{corpus.jsonl,queries-$SPLIT.jsonl,qrels-$SPLIT.tsv}.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data=${LL_EVAL_DATA:-$root/../shared/eval}
set_dir="$data/${LL_EVAL_SET:-scifact}"
split=${LL_EVAL_SPLIT:-train}
if [ ! -f "$set_dir/corpus.jsonl" ] || [ ! -f "$set_dir/queries-$split.jsonl" ] || [ ! -f "$data/score_retrieval.py" ]; then
  echo "eval-retrieval: $set_dir (corpus, queries-$split) not found; skipping"
  exit 0
fi
command -v python3 > /dev/null || { echo "eval-retrieval: python3 not found; skipping"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
loader=${LL_EVAL_LOADER:-ll-index}
if [ "$loader" = ll-index ] && [ ! -d cmd/ll-index ]; then
  echo "eval-retrieval: cmd/ll-index not found; loading with scripts/benchfind" >&2
  loader=benchfind
fi
go build -tags sqlite_fts5 -o "$work/" ./cmd/ll-find ./scripts/benchfind
[ "$loader" = ll-index ] && go build -tags sqlite_fts5 -o "$work/" ./cmd/ll-index
export LINKLEDGER_DB="$work/eval.db"

python3 "$root/scripts/eval-retrieval.py" records "$set_dir/corpus.jsonl" > "$work/records.ndjson"
start=$(date +%s)
if [ "$loader" = ll-index ]; then
  "$work/ll-index" -q < "$work/records.ndjson" > /dev/null
else
  "$work/benchfind" load -db "$LINKLEDGER_DB" < "$work/records.ndjson"
fi
echo "eval-retrieval: loaded $(wc -l < "$work/records.ndjson") documents with $loader in $(( $(date +%s) - start ))s" >&2

start=$(date +%s)
"$work/ll-find" --queries "$set_dir/queries-$split.jsonl" --limit 100 --snippets 0 --stale-after 0 "$@" \
  | python3 "$root/scripts/eval-retrieval.py" run > "$work/run.txt"
echo "eval-retrieval: ran $(wc -l < "$set_dir/queries-$split.jsonl") queries in $(( $(date +%s) - start ))s" >&2
python3 "$data/score_retrieval.py" "$set_dir/qrels-$split.tsv" "$work/run.txt"
# --related, scored by a proxy: documents relevant to the same query
# should be related (scripts/eval-related.py).
python3 "$root/scripts/eval-related.py" "$work/ll-find" "$set_dir/qrels-$split.tsv"
