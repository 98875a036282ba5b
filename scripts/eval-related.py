#!/usr/bin/env python3
"""Helper of eval-retrieval.sh: a proxy score for ll-find --related.

usage: eval-related.py LL-FIND QRELS

Documents relevant to the same query should be related to each other. For
every query with two or more relevant documents, each of them is given to
`ll-find --related` (database from $LINKLEDGER_DB); the score is the share
of the query's other relevant documents found in the top 10, averaged over
those documents.
"""
import collections
import json
import subprocess
import sys
from urllib.parse import quote, unquote

PREFIX = "https://eval.local/doc/"  # as eval-retrieval.py writes them


def main(llfind, qrels_path):
    qrels = collections.defaultdict(set)
    with open(qrels_path) as f:
        for i, line in enumerate(f):
            parts = line.split()
            if i == 0 and not parts[-1].lstrip("-").isdigit():
                continue  # header
            if len(parts) >= 3 and int(parts[-1]) > 0:
                qrels[parts[0]].add(parts[1])
    groups = [ds for ds in qrels.values() if len(ds) >= 2]
    total, n = 0.0, 0
    for ds in groups:
        for d in sorted(ds):
            out = subprocess.run([llfind, "-q", "--stale-after", "0", "--limit", "10", "--related", PREFIX + quote(d, safe="")],
                                 capture_output=True, text=True, check=False)
            if out.returncode != 0:
                sys.exit(f"eval-related: ll-find --related {d}: exit {out.returncode}: {out.stderr.strip()}")
            got = set()
            for line in out.stdout.splitlines():
                url = json.loads(line).get("canonical_url", "")
                if url.startswith(PREFIX):
                    got.add(unquote(url[len(PREFIX):]))
            others = ds - {d}
            total += len(got & others) / len(others)
            n += 1
    if n == 0:
        print("related: no query has two relevant documents; skipped")
        return
    print(f"related: {n} documents of {len(groups)} queries  co-relevant@10 {total / n:.4f}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: eval-related.py LL-FIND QRELS")
    main(sys.argv[1], sys.argv[2])
