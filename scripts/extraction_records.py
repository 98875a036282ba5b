#!/usr/bin/env python3
"""Helper of eval-extraction.sh.

usage: extraction_records.py records EXTRACTION_DIR > fetched.ndjson
       extraction_records.py predictions < parsed.ndjson > predictions.json
       extraction_records.py halves GROUND_TRUTH.json OUT_DIR

"records" turns each benchmark page (html/<id>.html.gz and its URL from
ground-truth.json) into the record ll-fetch would have written for it:
fetch.content_type text/html, fetch.final_url, body. The page id travels in
an extra key, bench_id, which ll-parse passes through untouched.
"predictions" collects ll-parse's text per bench_id into the
{id: {"articleBody": text}} form the scorer reads.
"halves" writes OUT_DIR/truth-A.json and OUT_DIR/truth-B.json: the pages at
even and odd positions of the ids in sorted order (the ids are hashes, so
this is a fixed, unbiased split; 46 and 45 of the 91 pages). A quality
change is chosen on half A and kept only if half B confirms it.
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


def halves(truth_path, out_dir):
    truth = json.load(open(truth_path))
    ids = sorted(truth)
    for name, part in (("A", ids[0::2]), ("B", ids[1::2])):
        with open(os.path.join(out_dir, "truth-" + name + ".json"), "w") as f:
            json.dump({k: truth[k] for k in part}, f, ensure_ascii=False)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "records":
        records(sys.argv[2])
    elif len(sys.argv) == 2 and sys.argv[1] == "predictions":
        predictions()
    elif len(sys.argv) == 4 and sys.argv[1] == "halves":
        halves(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
