#!/usr/bin/env bash
# replica-kill.sh: the served ledger copied by Litestream, killed mid-write
# (docs/several-machines.md "Tested"): linkledger serve --replica file://DIR
# takes saves from 8 clients (and searches from 8) over MCP for
# REPLICA_KILL_SECONDS (default 60); 5 s before the end the server is
# killed with SIGKILL; the replica is restored elsewhere and checked
# (integrity and search index), and every save the server acknowledged
# must be in it. Needs the litestream binary (make setup).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/bin"
export LINKLEDGER_LITESTREAM=${LINKLEDGER_LITESTREAM:-$bin/litestream}
work=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$work"' EXIT
secs=${REPLICA_KILL_SECONDS:-60}
go build -o "$work/loadserve" "$root/scripts/loadserve"
db="$work/serve.db"
token=$("$bin/linkledger" token add agent:load --scope write --db "$db" | awk '{ print $NF }')
"$bin/linkledger" serve --db "$db" --addr 127.0.0.1:0 --no-worker --replica "file://$work/replica" > "$work/url" 2> "$work/serve.log" &
pid=$!
for _ in $(seq 600); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -1 "$work/url")
LOADSERVE_TOKEN=$token "$work/loadserve" -url "$url" -duration "${secs}s" -acked "$work/acked.txt" -no-verify > "$work/load.txt" 2>&1 &
load=$!
sleep $((secs - 5))
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
pid=""
echo "server killed with SIGKILL after $((secs - 5)) s of load"
wait "$load" || true
acked=$(wc -l < "$work/acked.txt")
# Litestream ships the rest and exits by itself: restore until the count
# stops being short, for at most 30 s
for _ in $(seq 60); do
  rm -f "$work/restored.db"
  if out=$("$bin/linkledger" restore-replica "file://$work/replica" --db "$work/restored.db" 2>/dev/null); then
    items=$(printf '%s' "$out" | sed -n 's/.*"items":\([0-9]*\).*/\1/p')
    [ "${items:-0}" -ge "$acked" ] && break
  fi
  sleep 0.5
done
echo "restore: $out"
python3 - "$work/restored.db" "$work/acked.txt" <<'PY'
import sqlite3, sys
have = {r[0] for r in sqlite3.connect(sys.argv[1]).execute("SELECT canonical_url FROM items")}
acked = [l.strip() for l in open(sys.argv[2]) if l.strip()]
lost = [u for u in acked if u not in have]
print(f"acknowledged saves: {len(acked)}; in the restored replica: {len(acked) - len(lost)}; lost: {len(lost)}")
sys.exit(1 if lost else 0)
PY
