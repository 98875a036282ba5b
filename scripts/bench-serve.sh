#!/usr/bin/env bash
# bench-serve.sh: the served ledger under load (make bench; docs/benchmarks.md
# "Served ledger under load"): linkledger serve on loopback over a fresh
# ledger, W clients saving and S clients searching over MCP on streamable
# HTTP with a write token each, for BENCH_SERVE_SECONDS (default 60); then
# every acknowledged save is looked up again (scripts/loadserve). The floor
# is loopback HTTP POSTs by as many clients in the same run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/bin"
work=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill -INT "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
secs=${BENCH_SERVE_SECONDS:-60}
go build -o "$work/loadserve" "$root/scripts/loadserve"
db="$work/serve.db"
# a ledger with some content to search: the demo's pages are saved (not fetched)
awk 'BEGIN { for (i = 0; i < 2000; i++) printf "https://site%d.example/agent-memory/%d\n", i % 41, i }' \
  | "$bin/ll-save" --db "$db" -q > /dev/null
token=$("$bin/linkledger" token add agent:load --scope write --db "$db" | awk '{ print $NF }')
"$bin/linkledger" serve --db "$db" --addr 127.0.0.1:0 --no-worker > "$work/url" 2> "$work/serve.log" &
pid=$!
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -1 "$work/url")
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
LOADSERVE_TOKEN=$token "$work/loadserve" -url "$url" -writers "${BENCH_SERVE_WRITERS:-8}" -searchers "${BENCH_SERVE_SEARCHERS:-8}" -duration "${secs}s"
