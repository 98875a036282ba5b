#!/usr/bin/env python3
"""eval-codes.py: an experiment, not part of the product (issue 22).

How well does a semantic search's first pass (the binary code of every
chunk's vector, compared by Hamming distance; docs/retrieval.md
"Storage") keep the chunks an exact cosine scan ranks first? It embeds a
BEIR corpus with LSA (a dense embedder with a strong common direction,
as real embedding models have; see eval-lsa.py), cuts each document into
chunks of about 80 words, folds every chunk and query into the latent
space, and for each code reports recall@10: the share of the exact top 10
items (an item ranks by its best chunk) that the first pass keeps when it
rescores the KEEP nearest chunks by Hamming distance, KEEP a fixed share
of all chunks (800 of 100,000 is 0.8%, what ll-find rescores at that
size).

Codes: "axis" is the sign of every value (what migration 0013 stored);
"rotated" the signs of a randomized Hadamard rotation (what 0014 stores:
three rounds of random signs and a Walsh-Hadamard transform of the vector
padded to a power of two, the first min(P, 768) values). Needs numpy and
scipy (Debian: python3-numpy python3-scipy; run with the system python3).

    eval-codes.py CORPUS QUERIES [K ...]
"""
import importlib.util
import json
import os
import sys
from collections import Counter

import numpy as np
from scipy.sparse.linalg import svds

# words and the tf-idf map are eval-lsa.py's
_spec = importlib.util.spec_from_file_location("eval_lsa", os.path.join(os.path.dirname(os.path.abspath(__file__)), "eval-lsa.py"))
lsa = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lsa)
words = lsa.words
CHUNK_WORDS = 80


def chunks(text):
    ws = text.split()
    return [" ".join(ws[i:i + CHUNK_WORDS]) for i in range(0, len(ws), CHUNK_WORDS)] or [""]


def hadamard(a):
    h = 1
    n = a.shape[1]
    while h < n:
        a = a.reshape(a.shape[0], -1, 2, h)
        x, y = a[:, :, 0, :].copy(), a[:, :, 1, :].copy()
        a[:, :, 0, :], a[:, :, 1, :] = x + y, x - y
        a = a.reshape(a.shape[0], n)
        h *= 2
    return a


def rotated(v, signs, bits):
    p = signs.shape[1]
    a = np.zeros((v.shape[0], p))
    a[:, :v.shape[1]] = v
    for s in signs:
        a = hadamard(a * s)
    return a[:, :bits] > 0


def axis(v, signs, bits):
    return v > 0


def main(corpus, queries, ks):
    docs, items = [], []
    with open(corpus) as f:
        for n, line in enumerate(f):
            d = json.loads(line)
            for c in chunks(d.get("title", "") + " " + d.get("text", "")):
                docs.append(Counter(words(c)))
                items.append(n)
    items = np.array(items)
    vec_rows = lsa.tfidf(docs)
    x = vec_rows(docs)
    qs = []
    with open(queries) as f:
        for line in f:
            qs.append(Counter(words(json.loads(line)["text"])))
    rng = np.random.default_rng(1)
    for k in ks:
        _, _, vt = svds(x, k=k)
        unit = lambda m: m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
        d = unit(x @ vt.T)
        q = unit(vec_rows(qs) @ vt.T)
        p = 1 << (k - 1).bit_length()
        bits = min(p, 768)
        signs = rng.choice([-1.0, 1.0], size=(3, p))
        exact = q @ d.T
        print(f"K={k}: {d.shape[0]} chunks of {items.max() + 1} items, {q.shape[0]} queries;"
              f" mean cosine of a chunk to a query {exact.mean():.3f}")
        for name, code in (("axis", axis), ("rotated", rotated)):
            for centered in (False, True):
                c = d.mean(axis=0) if centered else 0
                dc = code(d - c, signs, bits)
                qc = code(q - c, signs, bits)
                ham = (qc[:, None, :] != dc[None, :, :]).sum(axis=2) if len(qs) * len(docs) < 2e7 else None
                if ham is None:
                    ham = np.stack([(qc[i] != dc).sum(axis=1) for i in range(len(qs))])
                for share in (0.004, 0.008, 0.016):
                    keep = max(10, int(share * d.shape[0]))
                    r10 = 0.0
                    for i in range(len(qs)):
                        top = best_items(exact[i], items, np.arange(d.shape[0]), 10)
                        kept = np.argsort(ham[i], kind="stable")[:keep]
                        got = set(best_items(exact[i], items, kept, 10 ** 6))
                        r10 += sum(1 for t in top if t in got) / len(top)
                    print(f"  {name:7s} {'centered' if centered else '        '} {len(dc[0]):4d} bits,"
                          f" keep {keep:4d} ({share:.1%}): recall@10 {r10 / len(qs):.3f}")


def best_items(sims, items, rows, n):
    order = rows[np.argsort(-sims[rows], kind="stable")]
    out, seen = [], set()
    for r in order:
        if items[r] not in seen:
            seen.add(items[r])
            out.append(items[r])
            if len(out) == n:
                break
    return out


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: eval-codes.py CORPUS QUERIES [K ...]")
    main(sys.argv[1], sys.argv[2], [int(k) for k in sys.argv[3:]] or [384])
