#!/usr/bin/env bash
# eval-builtin-semantic.sh: an experiment, not part of the product. Does a
# semantic signal that needs no model download (WordNet synonym query
# expansion, or LSA trained on the corpus) help retrieval on BEIR SciFact
# (train)?
# (issue 22, "a semantic signal that needs no download"; the result is in
# docs/retrieval.md, "A semantic signal that needs no download".)
#
# Loads the corpus as eval-retrieval.sh does, runs the train queries
# (lexical, top 100), then for each expansion variant runs a second
# ranking and prints nDCG@10 and Recall@100 per train half (A: even query
# ids, B: odd) for:
#   plus-S-D      each query followed by its synonyms, one ranking
#   only-S-D@W    the synonyms alone as a second query, fused with the
#                 plain ranking by weighted RRF at weight W (as hybrid
#                 mode fuses its semantic side)
#   lsa-K@W       LSA of rank K trained on the corpus (scripts/eval-lsa.py),
#                 fused the same way
# S: senses per word (0: all), D: only words in at most this fraction of
# documents are expanded (scripts/eval-wordnet.py). WordNet needs Debian's
# wordnet-base (WordNet data in /usr/share/wordnet, or LL_WORDNET_DIR);
# LSA needs numpy and scipy (Debian's python3-scipy) in LL_LSA_PYTHON
# (default /usr/bin/python3). Either part is skipped when what it needs is
# absent; all of it without the shared eval data.
# LL_WORDNET_VARIANTS (default "1:1 0:1 1:0.01"), LL_LSA_RANKS (default
# "200 400") and LL_FUSE_WEIGHTS (default "0.01 0.02 0.05 0.1 0.2 0.3")
# pick what runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data=${LL_EVAL_DATA:-$root/../shared/eval}
set_dir="$data/scifact"
wn=${LL_WORDNET_DIR:-/usr/share/wordnet}
if [ ! -f "$set_dir/corpus.jsonl" ] || [ ! -f "$data/score_retrieval.py" ]; then
  echo "eval-builtin-semantic: $set_dir not found; skipping"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
go build -tags sqlite_fts5 -o "$work/" ./cmd/ll-find ./cmd/ll-index
export LINKLEDGER_DB="$work/eval.db"
python3 scripts/eval-retrieval.py records "$set_dir/corpus.jsonl" | "$work/ll-index" -q > /dev/null

queries="$set_dir/queries-train.jsonl"
qrels="$set_dir/qrels-train.tsv"
find_run() { # QUERIES RUN
  "$work/ll-find" --queries "$1" --limit 100 --snippets 0 --stale-after 0 \
    | python3 scripts/eval-retrieval.py run > "$2"
}
score() { # RUN LABEL
  python3 scripts/eval-retrieval.py halves "$data/score_retrieval.py" "$qrels" "$1" "$2"
}
fuse_scores() { # RUN LABEL: RUN fused with the lexical run at each weight
  for w in $weights; do
    python3 scripts/eval-wordnet.py fuse "$work/run-lexical.txt" "$1" "$w" > "$work/run-fused.txt"
    score "$work/run-fused.txt" "$2@$w"
  done
}
find_run "$queries" "$work/run-lexical.txt"
score "$work/run-lexical.txt" lexical
weights=${LL_FUSE_WEIGHTS:-0.01 0.02 0.05 0.1 0.2 0.3}
variants=${LL_WORDNET_VARIANTS:-1:1 0:1 1:0.01}
if [ ! -f "$wn/index.noun" ]; then
  echo "eval-builtin-semantic: no WordNet data in $wn; skipping WordNet (hint: apt-get install wordnet-base)" >&2
  variants=
fi
for v in $variants; do
  s=${v%%:*} d=${v#*:}
  for mode in plus only; do
    python3 scripts/eval-wordnet.py expand "$wn" "$set_dir/corpus.jsonl" "$queries" "$s" "$d" "$mode" > "$work/q.jsonl"
    find_run "$work/q.jsonl" "$work/run-$mode.txt"
  done
  score "$work/run-plus.txt" "plus-$s-$d"
  fuse_scores "$work/run-only.txt" "only-$s-$d"
done
py=${LL_LSA_PYTHON:-/usr/bin/python3}
ranks=${LL_LSA_RANKS:-200 400}
if ! "$py" -c 'import numpy, scipy.sparse.linalg' 2> /dev/null; then
  echo "eval-builtin-semantic: no numpy/scipy in $py; skipping LSA (hint: apt-get install python3-scipy)" >&2
  ranks=
fi
for k in $ranks; do
  "$py" scripts/eval-lsa.py "$set_dir/corpus.jsonl" "$queries" "$k" > "$work/run-lsa.txt"
  score "$work/run-lsa.txt" "lsa-$k"
  fuse_scores "$work/run-lsa.txt" "lsa-$k"
done
