#!/usr/bin/env python3
"""Helper of eval-retrieval.sh.

records CORPUS  BEIR corpus.jsonl -> linkledger records {url, title, text}
run             ll-find --queries output (stdin) -> run file "query-id doc-id"
"""
import json
import sys
from urllib.parse import quote, unquote

# Each document becomes an item at PREFIX + its id, percent-encoded so that
# any id (spaces, slashes, '#') survives URL canonicalization.
PREFIX = "https://eval.local/doc/"


def records(path):
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            rec = {"url": PREFIX + quote(d["_id"], safe=""), "source_type": "text", "title": d.get("title", ""), "text": d.get("text", "")}
            print(json.dumps(rec, ensure_ascii=False))


def run():
    for line in sys.stdin:
        r = json.loads(line)
        url = r.get("canonical_url", "")
        if url.startswith(PREFIX):
            print(r["query_id"], unquote(url[len(PREFIX):]))


if __name__ == "__main__":
    if sys.argv[1:2] == ["records"]:
        records(sys.argv[2])
    elif sys.argv[1:2] == ["run"]:
        run()
    else:
        sys.exit("usage: eval-retrieval.py records CORPUS | run")
