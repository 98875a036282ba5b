#!/usr/bin/env bash
# eval-brief.sh: does the default brief hold the evidence? (BEIR SciFact, train)
#
# Loads the corpus as eval-retrieval.sh does (through ll-index), then runs
# one `ll-brief --query CLAIM` per train claim at the default budget and
# items, and prints for half A (even query ids), half B (odd) and all of
# train: the share of claims whose pack holds at least one relevant
# document, mean and max pack tokens, packs over budget, and tokens per
# document named (scripts/eval-brief.py). Then the ceiling the ranking
# sets: for each half, the share of claims with a relevant document in
# the top k of ll-find (default flags) and of plain FTS5 over OR-ed words,
# k = 5..100 (a pack of 5 items and 24 pointers reaches k = 29). Extra
# arguments go to ll-brief (e.g. --max-pointers 0). Choose a change on one
# half, confirm it on the other.
#
# The loaded database is kept in $LL_EVAL_CACHE (default
# ${TMPDIR:-/tmp}/linkledger-eval-cache), keyed by the corpus and the
# ll-index binary, so a second run skips the load. Skips (exit 0) when the
# shared eval data is absent. LL_EVAL_DATA, LL_EVAL_SET and LL_EVAL_SPLIT
# as in eval-retrieval.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data=${LL_EVAL_DATA:-$root/../shared/eval}
set_dir="$data/${LL_EVAL_SET:-scifact}"
split=${LL_EVAL_SPLIT:-train}
if [ ! -f "$set_dir/corpus.jsonl" ] || [ ! -f "$set_dir/queries-$split.jsonl" ] || [ ! -f "$set_dir/qrels-$split.tsv" ]; then
  echo "eval-brief: $set_dir (corpus, queries-$split, qrels-$split) not found; skipping"
  exit 0
fi
command -v python3 > /dev/null || { echo "eval-brief: python3 not found; skipping"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
go build -tags sqlite_fts5 -o "$work/" ./cmd/ll-index ./cmd/ll-brief ./cmd/ll-find

cache=${LL_EVAL_CACHE:-${TMPDIR:-/tmp}/linkledger-eval-cache}
key=$(cat "$set_dir/corpus.jsonl" "$work/ll-index" | sha256sum | cut -c1-16)
db="$cache/brief-$key.db"
if [ ! -f "$db" ]; then
  mkdir -p "$cache"
  rm -f "$cache"/brief-*.db "$cache"/brief-*.db-*
  python3 "$root/scripts/eval-retrieval.py" records "$set_dir/corpus.jsonl" > "$work/records.ndjson"
  start=$(date +%s)
  LINKLEDGER_DB="$work/eval.db" "$work/ll-index" -q < "$work/records.ndjson" > /dev/null
  # the last connection's close checkpoints the WAL; move any side file too
  for f in "$work"/eval.db*; do mv "$f" "$db${f#"$work"/eval.db}"; done
  echo "eval-brief: loaded $(wc -l < "$work/records.ndjson") documents in $(( $(date +%s) - start ))s (cached in $db)" >&2
else
  echo "eval-brief: using the loaded database $db" >&2
fi
export LINKLEDGER_DB="$db"
# the ranking's ceiling: ll-find's top 100 for every query, default flags
"$work/ll-find" --queries "$set_dir/queries-$split.jsonl" --limit 100 --snippets 0 --stale-after 0 > "$work/find.ndjson"
export LL_EVAL_FIND="$work/find.ndjson" LL_EVAL_CORPUS="$set_dir/corpus.jsonl"
start=$(date +%s)
python3 "$root/scripts/eval-brief.py" "$work/ll-brief" "$set_dir/queries-$split.jsonl" "$set_dir/qrels-$split.tsv" "$@"
echo "eval-brief: ran $(wc -l < "$set_dir/queries-$split.jsonl") briefs in $(( $(date +%s) - start ))s" >&2
