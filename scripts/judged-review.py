#!/usr/bin/env python3
"""judged-review.py: run the default brief for each judged-review task, as an
agent would, and write the briefs for a blind judge (issue 28).

usage: scripts/judged-review.py [--out DIR] [--pages-dir DIR] [--port N]

1. Builds ll-save, ll-fetch, ll-parse, ll-index, linkledger and
   scripts/tokencount into a temporary folder.
2. Serves the pages listed in docs/judged-review/pages.txt (real pages of
   the article-extraction benchmark, read from ../shared/eval/extraction,
   never copied into the project) from an HTTP server on 127.0.0.1 that it
   starts itself: a page whose original address is https://HOST/PATH is at
   http://127.0.0.1:PORT/HOST/PATH. PORT is 38641 unless --port or
   LL_JR_PORT says otherwise (a fixed port keeps the briefs' URLs, and so
   their sizes, the same from run to run); 0 takes any free port.
3. Ingests them through the real pipeline into a fresh ledger in the
   temporary folder: ll-save | ll-fetch | ll-parse | ll-index, each stage's
   output kept in a file so failures can be counted.
4. Starts `linkledger mcp --db LEDGER --no-worker` and talks to it as an MCP
   client does (JSON-RPC 2.0 over stdio, one message per line): initialize,
   notifications/initialized, then for each task of
   docs/judged-review/tasks.jsonl one tools/call of `brief` with the task's
   text as the query and no other argument (the defaults).
5. Writes DIR/NN.md per task (default docs/judged-review/briefs): the task,
   the brief's size, and the text block of the result (what an agent's model
   reads), nothing about how it was made; and DIR/sizes.tsv. The text each
   page's extraction kept is dumped to --pages-dir (default
   /tmp/judged-review/pages/ID.txt) for the judge, with the JSON results in
   /tmp/judged-review/json/.

Prints the mean and median brief size. Exits 0 with a "skipped" line when
../shared/eval (or LL_EVAL_DATA) is absent; 1 on any failure.
"""
import argparse
import gzip
import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REVIEW = os.path.join(ROOT, "docs", "judged-review")


def die(msg):
    print("judged-review: " + msg, file=sys.stderr)
    sys.exit(1)


def loopback_path(url):
    """https://host/a/b?q -> /host/a/b?q (the path the local server answers)."""
    u = urllib.parse.urlsplit(url)
    path = "/" + u.netloc + (u.path or "/")
    if u.query:
        path += "?" + u.query
    return path


def load_pages(data):
    truth = json.load(open(os.path.join(data, "extraction", "ground-truth.json"), encoding="utf-8"))
    pages = []
    for line in open(os.path.join(REVIEW, "pages.txt"), encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        page_id = line.split()[0]
        if page_id not in truth:
            die("pages.txt: %s is not in ground-truth.json" % page_id)
        pages.append((page_id, truth[page_id]["url"]))
    return pages


def serve(data, pages, port):
    by_path = {loopback_path(url): pid for pid, url in pages}
    html_dir = os.path.join(data, "extraction", "html")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            pid = by_path.get(self.path)
            if pid is None:
                self.send_error(404)
                return
            with gzip.open(os.path.join(html_dir, pid + ".html.gz"), "rb") as f:
                body = f.read()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    try:
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    except OSError:
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print("judged-review: port %d busy, using %d" % (port, srv.server_address[1]), file=sys.stderr)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def run_stage(cmd, stdin_path, stdout_path, env, ok=(0, 3)):
    with open(stdin_path, "rb") as i, open(stdout_path, "wb") as o:
        p = subprocess.run(cmd, stdin=i, stdout=o, stderr=subprocess.PIPE, env=env)
    if p.returncode not in ok:
        die("%s exited %d: %s" % (os.path.basename(cmd[0]), p.returncode, p.stderr.decode(errors="replace")[-2000:]))
    return p.returncode


class MCPClient:
    """A minimal MCP client: JSON-RPC 2.0 over the server's stdin/stdout."""

    def __init__(self, cmd, env):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env)
        self.next_id = 0

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def call(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.p.stdout.readline()
            if not line:
                die("the MCP server closed its output")
            msg = json.loads(line)
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    die("%s: %s" % (method, msg["error"]))
                return msg["result"]

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def main():
    ap = argparse.ArgumentParser(description="run the judged-review briefs")
    ap.add_argument("--out", default=os.path.join(REVIEW, "briefs"))
    ap.add_argument("--pages-dir", default="/tmp/judged-review/pages")
    ap.add_argument("--port", type=int, default=int(os.environ.get("LL_JR_PORT", "38641")))
    args = ap.parse_args()

    data = os.environ.get("LL_EVAL_DATA", os.path.join(ROOT, "..", "shared", "eval"))
    if not os.path.isfile(os.path.join(data, "extraction", "ground-truth.json")):
        print("skipped: ../shared/eval not found")
        return
    tasks = [json.loads(l) for l in open(os.path.join(REVIEW, "tasks.jsonl"), encoding="utf-8") if l.strip()]
    pages = load_pages(data)

    work = tempfile.mkdtemp(prefix="judged-review-")
    bins = ["ll-save", "ll-fetch", "ll-parse", "ll-index", "linkledger"]
    subprocess.run(["go", "build", "-tags", "sqlite_fts5", "-o", work + "/"] +
                   ["./cmd/" + b for b in bins] + ["./scripts/tokencount"], cwd=ROOT, check=True)
    b = {n: os.path.join(work, n) for n in bins + ["tokencount"]}

    srv = serve(data, pages, args.port)
    base = "http://127.0.0.1:%d" % srv.server_address[1]
    env = {k: v for k, v in os.environ.items()
           if not k.upper().endswith("_PROXY") and not k.startswith("LINKLEDGER_")}
    env["LINKLEDGER_DB"] = os.path.join(work, "ledger.db")

    urls = os.path.join(work, "urls.txt")
    with open(urls, "w") as f:
        for _, url in pages:
            f.write(base + loopback_path(url) + "\n")
    stages = [("saved", [b["ll-save"], "-q"]), ("fetched", [b["ll-fetch"], "-q"]),
              ("parsed", [b["ll-parse"], "-q"]), ("indexed", [b["ll-index"], "-q"])]
    src = urls
    for name, cmd in stages:
        dst = os.path.join(work, name + ".ndjson")
        run_stage(cmd, src, dst, env)
        src = dst
    failed = []
    for line in open(os.path.join(work, "indexed.ndjson"), encoding="utf-8"):
        rec = json.loads(line)
        if rec.get("error"):
            failed.append((rec.get("url"), rec["error"].get("code")))
    print("judged-review: ingested %d pages, %d failed %s" % (len(pages), len(failed), failed or ""), file=sys.stderr)

    # the text each page's extraction kept, for the judge
    os.makedirs(args.pages_dir, exist_ok=True)
    id_by_url = {base + loopback_path(url): pid for pid, url in pages}
    for line in open(os.path.join(work, "parsed.ndjson"), encoding="utf-8"):
        rec = json.loads(line)
        pid = id_by_url.get(rec.get("url"))
        if pid:
            with open(os.path.join(args.pages_dir, pid + ".txt"), "w", encoding="utf-8") as f:
                f.write((rec.get("title") or "") + "\n\n" + (rec.get("text") or ""))

    jdir = os.path.join(os.path.dirname(args.pages_dir.rstrip("/")), "json")
    os.makedirs(jdir, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    client = MCPClient([b["linkledger"], "mcp", "--db", env["LINKLEDGER_DB"], "--no-worker"], env)
    client.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "reviewer", "version": "1"}})
    client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    rows = []
    for t in tasks:
        n = t["n"]
        res = client.call("tools/call", {"name": "brief", "arguments": {"query": t["task"]}})
        with open(os.path.join(jdir, "%02d.json" % n), "w", encoding="utf-8") as f:
            json.dump(res, f, ensure_ascii=False, indent=1)
        text = "\n".join(c.get("text", "") for c in res.get("content", []) if c.get("type") == "text")
        sc = res.get("structuredContent") or {}
        tmp = os.path.join(work, "brief.txt")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        text_tokens = int(subprocess.run([b["tokencount"], tmp], capture_output=True, check=True).stdout.split()[0])
        items = len(sc.get("items") or [])
        rows.append((n, text_tokens, sc.get("tokens", ""), items, bool(res.get("isError"))))
        with open(os.path.join(args.out, "%02d.md" % n), "w", encoding="utf-8") as f:
            f.write("# Brief %02d\n\n" % n)
            f.write("Task: %s\n\n" % t["task"])
            f.write("Size: %d tokens as read (cl100k_base); %d full entries.\n\n" % (text_tokens, items))
            f.write("````text\n%s\n````\n" % text.rstrip("\n"))
    client.close()
    srv.shutdown()

    with open(os.path.join(args.out, "sizes.tsv"), "w") as f:
        f.write("task\ttokens_read\tpack_tokens\tentries\terror\n")
        for r in rows:
            f.write("%02d\t%d\t%s\t%d\t%s\n" % (r[0], r[1], r[2], r[3], "yes" if r[4] else ""))
    sizes = [r[1] for r in rows]
    packs = [r[2] for r in rows if isinstance(r[2], int)]
    print("briefs: %d; tokens as read: mean %.0f, median %.0f, max %d" %
          (len(sizes), statistics.mean(sizes), statistics.median(sizes), max(sizes)))
    if packs:
        print("pack tokens (JSON form): mean %.0f, median %.0f, max %d" %
              (statistics.mean(packs), statistics.median(packs), max(packs)))
    print("briefs in %s; page texts in %s" % (os.path.relpath(args.out, ROOT), args.pages_dir))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
