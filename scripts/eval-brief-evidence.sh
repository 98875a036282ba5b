#!/usr/bin/env bash
# eval-brief-evidence.sh: does the default brief CARRY the evidence, or only
# name its source? (BEIR SciFact, train claims with annotated rationales)
#
# Loads the corpus as eval-brief.sh does (through ll-index, cached in
# $LL_EVAL_CACHE under the same key), then scores one `ll-brief --query
# CLAIM` per claim of scifact/rationales-train.jsonl with
# ../shared/eval/score_brief_evidence.py, for half A (even query ids), half
# B (odd) and all: present (an evidence document is a full entry), carried
# (>= 80% of the words of one of its rationale sentences are in the text the
# brief gives for it), the share of item text on evidence documents, and the
# mean and max tokens of a brief (and how many went over budget). Extra
# arguments go to ll-brief. Choose a change on half A, confirm it on half B.
#
# Skips (exit 0) when the shared eval data or python3 is absent.
# LL_EVAL_DATA as in eval-retrieval.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data=${LL_EVAL_DATA:-$root/../shared/eval}
set_dir="$data/scifact"
rationales="$set_dir/rationales-train.jsonl"
scorer="$data/score_brief_evidence.py"
if [ ! -f "$set_dir/corpus.jsonl" ] || [ ! -f "$rationales" ] || [ ! -f "$scorer" ]; then
  echo "eval-brief-evidence: $set_dir (corpus, rationales-train) or $scorer not found; skipping"
  exit 0
fi
command -v python3 > /dev/null || { echo "eval-brief-evidence: python3 not found; skipping"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
mkdir -p "$work/bin"
go build -tags sqlite_fts5 -o "$work/" ./cmd/ll-index ./cmd/ll-brief

cache=${LL_EVAL_CACHE:-${TMPDIR:-/tmp}/linkledger-eval-cache}
key=$(cat "$set_dir/corpus.jsonl" "$work/ll-index" | sha256sum | cut -c1-16)
db="$cache/brief-$key.db"
if [ ! -f "$db" ]; then
  mkdir -p "$cache"
  rm -f "$cache"/brief-*.db "$cache"/brief-*.db-*
  python3 "$root/scripts/eval-retrieval.py" records "$set_dir/corpus.jsonl" > "$work/records.ndjson"
  start=$(date +%s)
  LINKLEDGER_DB="$work/eval.db" "$work/ll-index" -q < "$work/records.ndjson" > /dev/null
  for f in "$work"/eval.db*; do mv "$f" "$db${f#"$work"/eval.db}"; done
  echo "eval-brief-evidence: loaded $(wc -l < "$work/records.ndjson") documents in $(( $(date +%s) - start ))s (cached in $db)" >&2
else
  echo "eval-brief-evidence: using the loaded database $db" >&2
fi

# The scorer runs `ll-brief` from PATH: a wrapper keeps each brief's
# first line, to count its tokens.
cat > "$work/bin/ll-brief" <<EOF
#!/bin/sh
"$work/ll-brief" "\$@" | tee -a "$work/briefs.ndjson"
EOF
chmod +x "$work/bin/ll-brief"

# the halves: even and odd query ids, as eval-brief.sh splits them
python3 - "$rationales" "$work" <<'EOF'
import json, sys
src, work = sys.argv[1], sys.argv[2]
with open(src) as f, open(work + "/A.jsonl", "w") as a, open(work + "/B.jsonl", "w") as b:
    for line in f:
        (a if int(json.loads(line)["query_id"]) % 2 == 0 else b).write(line)
EOF

tokens() {
  python3 - "$1" <<'EOF'
import json, sys
n = over = 0; total = top = 0
for line in open(sys.argv[1]):
    try: p = json.loads(line)
    except ValueError: continue
    n += 1; t = p.get("tokens", 0); total += t; top = max(top, t)
    over += t > p.get("max_tokens", t)
print(f"briefs {n}: mean tokens {total/max(1, n):.0f}, max {top}, over budget {over}")
EOF
}

start=$(date +%s)
for half in A B; do
  : > "$work/briefs.ndjson"
  printf 'half %s: ' "$half"
  PATH="$work/bin:$PATH" python3 "$scorer" "$work/$half.jsonl" "$db" "$@"
  printf 'half %s: ' "$half"
  tokens "$work/briefs.ndjson"
  cat "$work/briefs.ndjson" >> "$work/all.ndjson"
done
printf 'all: '
tokens "$work/all.ndjson"
echo "eval-brief-evidence: ran $(wc -l < "$rationales") briefs in $(( $(date +%s) - start ))s" >&2
