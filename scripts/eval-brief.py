#!/usr/bin/env python3
"""Helper of eval-brief.sh: does the default brief hold the evidence?

eval-brief.py LL_BRIEF QUERIES QRELS [ll-brief flags...]

With $LL_EVAL_FIND (ll-find's records for every query, top 100, from
`ll-find --queries`) it also prints the ceiling the ranking sets: the
share of queries with a relevant document in ll-find's top k, for the
depths a pack reaches, and nDCG@10, per half; and with $LL_EVAL_CORPUS the same for
plain FTS5 (one in-memory table of title and text, porter unicode61
remove_diacritics 2, every query word OR-ed, bm25 with the title weighing
2), when Python's sqlite3 has FTS5.

Runs one `ll-brief --query CLAIM` process per query (two at a time) against
the database in $LINKLEDGER_DB and prints, for each half of the queries
(half A: even query ids, half B: odd; a deterministic split, so a change
can be chosen on one half and confirmed on the other) and for both:
  hit      share of queries whose pack holds at least one relevant
           document (a full item or a pointer of the tail)
  tokens   mean and max tokens of a pack (and how many went over budget)
  per-candidate  mean tokens per document the pack names
and the mean number of full items and of pointers.
"""
import collections
import concurrent.futures
import json
import math
import os
import re
import sqlite3
import subprocess
import sys
from urllib.parse import unquote

PREFIX = "https://eval.local/doc/"


def doc_ids(pack):
    ids = []
    for part in ("items", "pointers"):
        for it in pack.get(part) or []:
            url = it.get("url", "")
            if url.startswith(PREFIX):
                ids.append(unquote(url[len(PREFIX):]))
    return ids


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: eval-brief.py LL_BRIEF QUERIES QRELS [ll-brief flags...]")
    exe, queries_path, qrels_path, extra = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    rel = collections.defaultdict(set)
    with open(qrels_path) as f:
        next(f)
        for line in f:
            qid, did, score = line.rstrip("\n").split("\t")
            if int(score) > 0:
                rel[qid].add(did)
    queries = []
    with open(queries_path) as f:
        for line in f:
            q = json.loads(line)
            if q["_id"] in rel:
                queries.append((q["_id"], q["text"]))

    def run(q):
        qid, text = q
        out = subprocess.run([exe, "--format", "json", "--stale-after", "0", *extra, "--query", text],
                             capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"eval-brief: query {qid}: ll-brief exit {out.returncode}: {out.stderr.strip()}")
        return qid, json.loads(out.stdout)

    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        packs = dict(ex.map(run, queries))

    def half(name, ids):
        hits = sum(1 for q in ids if set(doc_ids(packs[q])) & rel[q])
        toks = [packs[q]["tokens"] for q in ids]
        over = sum(1 for q in ids if packs[q]["tokens"] > packs[q]["max_tokens"])
        items = [len(packs[q]["items"]) for q in ids]
        ptrs = [len(packs[q].get("pointers") or []) for q in ids]
        per = [packs[q]["tokens"] / max(1, len(doc_ids(packs[q]))) for q in ids]
        n = len(ids)
        print(f"{name:<8} queries {n:4d}  hit {hits / n:.3f}  tokens mean {sum(toks) / n:.0f} max {max(toks)} "
              f"over-budget {over}  items {sum(items) / n:.2f} pointers {sum(ptrs) / n:.2f}  "
              f"tokens/candidate {sum(per) / n:.0f}")

    ids = [q for q, _ in queries]
    half("half A", [q for q in ids if _parity(q) == 0])
    half("half B", [q for q in ids if _parity(q) == 1])
    half("train", ids)
    if os.environ.get("LL_EVAL_FIND"):
        ceiling("ll-find", find_run(os.environ["LL_EVAL_FIND"]), ids, rel)
    if os.environ.get("LL_EVAL_CORPUS"):
        run = plain_run(os.environ["LL_EVAL_CORPUS"], queries)
        if run is not None:
            ceiling("fts5", run, ids, rel)


DEPTHS = (5, 10, 15, 25, 29, 40, 60, 80, 100)


def ceiling(name, run, ids, rel):
    """Share of queries with a relevant document in the ranking's top k."""
    for label, part in (("A", 0), ("B", 1)):
        qs = [q for q in ids if _parity(q) == part]
        cells = " ".join(f"{k}:{sum(1 for q in qs if set(run.get(q, [])[:k]) & rel[q]) / len(qs):.3f}" for k in DEPTHS)
        ndcg = sum(_ndcg10(run.get(q, []), rel[q]) for q in qs) / len(qs)
        print(f"top-k {name:<7} half {label}  {cells}  nDCG@10 {ndcg:.4f}")


def _ndcg10(ranked, rel):
    """nDCG@10 with gain 1 for a relevant document (SciFact's only grade)."""
    dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(ranked[:10]) if d in rel)
    idcg = sum(1 / math.log2(i + 2) for i in range(min(10, len(rel))))
    return dcg / idcg if idcg else 0.0


def find_run(path):
    run = collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            url = r.get("canonical_url", "")
            if url.startswith(PREFIX):
                run[r["query_id"]].append(unquote(url[len(PREFIX):]))
    return run


def plain_run(corpus, queries):
    """Plain FTS5 over OR-ed query words: the floor ll-find is measured against."""
    db = sqlite3.connect(":memory:")
    try:
        db.execute("CREATE VIRTUAL TABLE t USING fts5(id UNINDEXED, title, body, tokenize='porter unicode61 remove_diacritics 2')")
    except sqlite3.OperationalError:
        print("eval-brief: Python's sqlite3 has no FTS5; no plain FTS5 ceiling", file=sys.stderr)
        return None
    with open(corpus) as f:
        db.executemany("INSERT INTO t VALUES (?, ?, ?)",
                       ((d["_id"], d.get("title", ""), d.get("text", "")) for d in map(json.loads, f)))
    run = {}
    for qid, text in queries:
        words = list(dict.fromkeys(re.findall(r"\w+", text.lower())))
        if words:
            match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
            run[qid] = [r[0] for r in db.execute("SELECT id FROM t WHERE t MATCH ? ORDER BY bm25(t, 0, 2, 1) LIMIT 100", (match,))]
    return run


def _parity(qid):
    # SciFact ids are numbers; any other id is split by its last character.
    try:
        return int(qid) % 2
    except ValueError:
        return ord(qid[-1]) % 2 if qid else 0


if __name__ == "__main__":
    main()
