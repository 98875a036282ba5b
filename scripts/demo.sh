#!/usr/bin/env bash
# demo.sh runs linkledger's main job offline: it serves the bundled sample
# pages (scripts/demo/site, written for this demo) from a local HTTP server,
# saves them, runs the worker (fetch, parse, index), then searches and briefs.
# The demo database is left in .demo/linkledger.db to explore.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/bin"
for b in linkledger ll-save ll-find ll-brief; do
  [ -x "$bin/$b" ] || { echo "demo: $bin/$b missing: run make build" >&2; exit 1; }
done
mkdir -p "$root/.demo"
export LINKLEDGER_DB="$root/.demo/linkledger.db"
rm -f "$LINKLEDGER_DB" "$LINKLEDGER_DB-wal" "$LINKLEDGER_DB-shm"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 "$port" --directory "$root/scripts/demo/site" >/dev/null 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null && break
  sleep 0.1
done
base="http://127.0.0.1:$port"

# Steps are bold only on a terminal, and never with NO_COLOR.
bold='' plain=''
if [ -t 2 ] && [ -z "${NO_COLOR:-}" ]; then bold=$'\033[1m' plain=$'\033[0m'; fi
step() { printf '\n%s$ %s%s\n' "$bold" "$*" "$plain" >&2; }

step "linkledger save $base/agent-memory.html --tags ai,memory --note 'why agents re-read pages'"
"$bin/linkledger" save "$base/agent-memory.html?utm_source=demo" --tags ai,memory --note "why agents re-read pages" --jq '{id, canonical_url, new}' -q
step "save four more (plain lines on stdin)"
printf '%s\n' "$base/sqlite-wal.html" "$base/tokenizers.html" "$base/reading-list.md" "$base/changelog.txt" \
  | "$bin/ll-save" --tags demo --jq '{id, canonical_url, source_type}' -q
step "linkledger worker   # ll-find --pending | ll-fetch | ll-parse | ll-index"
"$bin/linkledger" worker -q --jq '{title, source_type, status, chunks: .index.chunks, adapter: .parse.adapter}'

id=$("$bin/ll-find" -r --jq .id -q --limit 1 "agents forget sources")
step "linkledger annotate $id --highlight '…' --confidence 0.82 --actor agent:researcher"
"$bin/linkledger" annotate "$id" --highlight "Re-reading whole pages to recover a few sentences multiplies the cost of every follow-up task" \
  --confidence 0.82 --actor agent:researcher --jq '{id, annotation_ids: .save.annotation_ids}' -q

step "ll-find 'agent memory' --limit 3   # a view at a terminal, NDJSON records in a pipe"
"$bin/ll-find" "agent memory" --limit 3
step "ll-find 'agent memory' --limit 3 --jq '{rank: .hit.rank, title, score: .hit.score}'"
"$bin/ll-find" "agent memory" --limit 3 --jq '{rank: .hit.rank, title, score: .hit.score}'

step "ll-find 'agent memory' | ll-brief --format md --max-tokens 400"
"$bin/ll-find" "agent memory" --limit 5 | "$bin/ll-brief" --format md --max-tokens 400

printf '\ndemo database: %s (try: LINKLEDGER_DB=%s bin/ll-find "write-ahead log")\n' "$LINKLEDGER_DB" "$LINKLEDGER_DB" >&2
printf 'web app on it: LINKLEDGER_DB=%s bin/linkledger ui   # then open the address it prints (docs/ui.md)\n' "$LINKLEDGER_DB" >&2
