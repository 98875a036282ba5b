#!/usr/bin/env python3
"""Helper of eval-extraction.sh.

usage: extraction_records.py records EXTRACTION_DIR > fetched.ndjson
       extraction_records.py predictions < parsed.ndjson > predictions.json

"records" turns each benchmark page (html/<id>.html.gz and its URL from
ground-truth.json) into the record ll-fetch would have written for it:
fetch.content_type text/html, fetch.final_url, body. The page id travels in
an extra key, bench_id, which ll-parse passes through untouched.
"predictions" collects ll-parse's text per bench_id into the
{id: {"articleBody": text}} form the scorer reads.
"""
import gzip
import json
import os
import re
import sys


CHARSET = re.compile(rb"""<meta[^>]+charset=["']?([A-Za-z0-9_.:-]+)""", re.I)


def decode(raw):
    """Decode a page as ll-fetch does: UTF-8 when valid, else the charset
    the page declares, else windows-1252."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    m = CHARSET.search(raw[:8192])
    for name in ([m.group(1).decode("ascii")] if m else []) + ["windows-1252"]:
        try:
            return raw.decode(name, errors="replace")
        except LookupError:
            continue
    return raw.decode("utf-8", errors="replace")


def records(directory):
    truth = json.load(open(os.path.join(directory, "ground-truth.json")))
    out = sys.stdout
    for page_id in sorted(truth):
        path = os.path.join(directory, "html", page_id + ".html.gz")
        with gzip.open(path, "rb") as f:
            body = decode(f.read())
        url = truth[page_id].get("url", "")
        rec = {
            "url": url,
            "fetch": {"final_url": url, "status": 200, "content_type": "text/html; charset=utf-8"},
            "body": body,
            "bench_id": page_id,
        }
        out.write(json.dumps(rec, ensure_ascii=False) + "\n")


def predictions():
    pred = {}
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        rec = json.loads(line)
        page_id = rec.get("bench_id")
        if page_id:
            pred[page_id] = {"articleBody": rec.get("text", "")}
    json.dump(pred, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "records":
        records(sys.argv[2])
    elif len(sys.argv) == 2 and sys.argv[1] == "predictions":
        predictions()
    else:
        sys.exit(__doc__)
