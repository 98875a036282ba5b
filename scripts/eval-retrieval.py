#!/usr/bin/env python3
"""Helper of eval-retrieval.sh.

records CORPUS  BEIR corpus.jsonl -> linkledger records {url, title, text}
run             ll-find --queries output (stdin) -> run file "query-id doc-id"
halves SCORER QRELS RUN LABEL
                nDCG@10 and Recall@100 of RUN for half A (even query ids),
                half B (odd) and all, with the shared scorer's functions
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


def _parity(qid):
    # SciFact ids are numbers; any other id is split by its last character
    # (as eval-brief.py does).
    try:
        return int(qid) % 2
    except ValueError:
        return ord(qid[-1]) % 2 if qid else 0


def halves(scorer, qrels_path, run_path, label):
    import importlib.util
    spec = importlib.util.spec_from_file_location("score_retrieval", scorer)
    sr = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sr)
    qrels, run = sr.read_qrels(qrels_path), sr.read_run(run_path)
    for name, part in (("half A", 0), ("half B", 1), ("train", None)):
        qs = [q for q in qrels if part is None or _parity(q) == part]
        n = [sr.ndcg(run.get(q, []), qrels[q]) for q in qs]
        r = [len(set(run.get(q, [])[:100]) & set(qrels[q])) / len(qrels[q]) for q in qs]
        print(f"{label:<8} {name:<7} queries {len(qs):4d}  nDCG@10 {sum(n) / len(n):.4f}  Recall@100 {sum(r) / len(r):.4f}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["records"]:
        records(sys.argv[2])
    elif sys.argv[1:2] == ["run"]:
        run()
    elif sys.argv[1:2] == ["halves"] and len(sys.argv) == 6:
        halves(*sys.argv[2:])
    else:
        sys.exit("usage: eval-retrieval.py records CORPUS | run | halves SCORER QRELS RUN LABEL")
