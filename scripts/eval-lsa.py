#!/usr/bin/env python3
"""eval-lsa.py: an experiment, not part of the product (issue 22).

LSA trained on a BEIR corpus: tf-idf (log tf, words in at least 2
documents, English stopwords dropped) over title and text, truncated SVD
of rank K; each query is folded into the same space and the documents are
ranked by cosine. Writes a run file ("query-id doc-id", top 100) on stdout,
to be fused with ll-find's lexical run by `eval-wordnet.py fuse` (weighted
RRF, as hybrid mode fuses a semantic side). Needs numpy and scipy
(Debian: python3-scipy; run with the system python3).

    eval-lsa.py CORPUS QUERIES K > run.txt
"""
import json
import math
import re
import sys
from collections import Counter

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.linalg import svds

WORD = re.compile(r"[a-z][a-z0-9]+")
STOP = set("""about above after again against all and any are because been before being below
between both but can could did does doing down during each few for from further had has have
having her here hers him his how into its itself just more most not now off once only other our
out over own same she should some such than that the their them then there these they this those
through too under until very was were what when where which while who whom why will with would
you your""".split())


def words(text):
    return [w for w in WORD.findall(text.lower()) if w not in STOP]


def tfidf(docs):
    """The tf-idf map of a corpus (word counts per document): log tf, idf
    of the words in at least 2 documents, rows scaled to unit length."""
    df = Counter(w for c in docs for w in c)
    vocab = {w: i for i, w in enumerate(sorted(w for w, n in df.items() if n >= 2))}
    idf = np.zeros(len(vocab))
    for w, i in vocab.items():
        idf[i] = math.log(len(docs) / df[w])

    def vec_rows(counters):
        rows, cols, vals = [], [], []
        for r, c in enumerate(counters):
            for w, tf in c.items():
                if w in vocab:
                    rows.append(r)
                    cols.append(vocab[w])
                    vals.append((1 + math.log(tf)) * idf[vocab[w]])
        m = csr_matrix((vals, (rows, cols)), shape=(len(counters), len(vocab)))
        norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1)).ravel())
        norms[norms == 0] = 1
        return csr_matrix(m.multiply(1 / norms[:, None]))

    return vec_rows


def main(corpus, queries, k):
    ids, docs = [], []
    with open(corpus) as f:
        for line in f:
            d = json.loads(line)
            ids.append(d["_id"])
            docs.append(Counter(words(d.get("title", "") + " " + d.get("text", ""))))
    vec_rows = tfidf(docs)
    x = vec_rows(docs)
    u, s, vt = svds(x, k=int(k))
    d = u * s  # documents in the latent space
    d /= np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-12)
    qids, qs = [], []
    with open(queries) as f:
        for line in f:
            q = json.loads(line)
            qids.append(q["_id"])
            qs.append(Counter(words(q["text"])))
    qv = vec_rows(qs) @ vt.T  # fold-in: q V, the same map as the documents (U S = X V)
    qv /= np.maximum(np.linalg.norm(qv, axis=1, keepdims=True), 1e-12)
    sims = qv @ d.T
    for qi, qid in enumerate(qids):
        top = np.argsort(-sims[qi])[:100]
        for j in top:
            print(qid, ids[j])


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: eval-lsa.py CORPUS QUERIES K")
    main(*sys.argv[1:])
