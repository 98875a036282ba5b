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
#
# Semantic and hybrid retrieval (docs/retrieval.md): with EMBED_URL (an
# OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1 for Ollama)
# and EMBED_MODEL (e.g. nomic-embed-text), the stored chunks are embedded
# with `linkledger embed --all` and the queries run again with --mode
# semantic and --mode hybrid; a table gives nDCG@10 and Recall@100 per
# train half (A: even query ids, B: odd) for each mode. EMBED_URL=fake
# uses scripts/embedfake (hashed words: it measures the plumbing, not a
# model). EMBED_KEY is passed as LINKLEDGER_EMBED_KEY.
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

# per half, and semantic and hybrid when an endpoint is given
modes="lexical"
if [ -n "${EMBED_URL:-}" ]; then
  : "${EMBED_MODEL:?eval-retrieval: EMBED_URL needs EMBED_MODEL}"
  go build -tags sqlite_fts5 -o "$work/" ./cmd/linkledger ./scripts/embedfake
  url=$EMBED_URL
  if [ "$url" = fake ]; then
    mkfifo "$work/fake.in"
    "$work/embedfake" < "$work/fake.in" > "$work/fake.url" &
    exec 9> "$work/fake.in" # the fake ends when this closes (on exit)
    while [ ! -s "$work/fake.url" ]; do sleep 0.05; done
    url=$(cat "$work/fake.url")
  fi
  export LINKLEDGER_EMBED_URL="$url" LINKLEDGER_EMBED_MODEL="$EMBED_MODEL" LINKLEDGER_EMBED_KEY="${EMBED_KEY:-}"
  start=$(date +%s)
  "$work/linkledger" embed --all -q > /dev/null
  echo "eval-retrieval: embedded the chunks with $EMBED_MODEL in $(( $(date +%s) - start ))s" >&2
  modes="lexical semantic hybrid"
fi
for mode in $modes; do
  "$work/ll-find" --queries "$set_dir/queries-$split.jsonl" --limit 100 --snippets 0 --stale-after 0 --mode "$mode" "$@" \
    | python3 "$root/scripts/eval-retrieval.py" run > "$work/run-$mode.txt"
  python3 "$root/scripts/eval-retrieval.py" halves "$data/score_retrieval.py" "$set_dir/qrels-$split.tsv" "$work/run-$mode.txt" "$mode"
done
