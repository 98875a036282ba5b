#!/usr/bin/env python3
"""Helper of eval-builtin-semantic.sh: WordNet synonym query expansion, an experiment.

expand WORDNET_DIR CORPUS QUERIES SENSES MAXDF MODE
        queries.jsonl -> the same queries on stdout, each text replaced by
        (MODE only) or followed by (MODE plus) the WordNet synonyms of its
        words; a query with none keeps its own text (with only, its second
        ranking then repeats the first). SENSES: how
        many of a word's most frequent senses give synonyms (0: all).
        MAXDF: only words found in at most this fraction of the corpus's
        documents are expanded (1: every word). A synonym is kept only when
        it is one word, not a stopword, and occurs in the corpus.
fuse RUN1 RUN2 W
        weighted reciprocal rank fusion of two run files, as ll-find's
        hybrid mode fuses (docs/retrieval.md): (1-W)/(60+r1) + W/(60+r2);
        top 100 per query on stdout.

WORDNET_DIR is Debian's wordnet-base data (index.noun, data.noun, ...).
The files are parsed here, no library needed.
"""
import json
import os
import re
import sys
from collections import defaultdict

POS = ("noun", "verb", "adj", "adv")
WORD = re.compile(r"[a-z]+")
STOP = set("""a about above after again against all am an and any are as at be because been
before being below between both but by can could did do does doing down during each few for
from further had has have having he her here hers herself him himself his how i if in into is
it its itself just me more most my myself no nor not now of off on once only or other our ours
out over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which while
who whom why will with would you your yours""".split())
# morphy's detachment rules (suffix, replacement) per part of speech
RULES = {
    "noun": [("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"), ("ies", "y")],
    "verb": [("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")],
    "adj": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    "adv": [],
}


def load_wordnet(d):
    index = {}  # (pos, lemma) -> [offsets, most frequent sense first]
    exc = {}  # (pos, inflected) -> [base forms]
    for pos in POS:
        with open(os.path.join(d, "index." + pos), encoding="latin-1") as f:
            for line in f:
                if line.startswith(" "):
                    continue
                p = line.split()
                lemma, n_synsets, n_ptr = p[0], int(p[2]), int(p[3])
                offsets = p[4 + n_ptr + 2:]
                index[(pos, lemma)] = offsets[:n_synsets]
        path = os.path.join(d, pos[:3] + ".exc" if pos != "noun" else "noun.exc")
        if os.path.exists(path):
            with open(path, encoding="latin-1") as f:
                for line in f:
                    p = line.split()
                    if len(p) >= 2:
                        exc[(pos, p[0])] = p[1:]
    return index, exc


def synset_words(d, pos, offset, cache={}, files={}):
    key = (pos, offset)
    if key not in cache:
        if pos not in files:
            files[pos] = open(os.path.join(d, "data." + pos), encoding="latin-1")
        f = files[pos]
        f.seek(int(offset))
        p = f.readline().split()
        n = int(p[3], 16)
        cache[key] = [re.sub(r"\(.*\)$", "", w).lower() for w in p[4:4 + 2 * n:2]]
    return cache[key]


def bases(word, pos, index, exc):
    out = []
    if (pos, word) in index:
        out.append(word)
    for b in exc.get((pos, word), []):
        if (pos, b) in index:
            out.append(b)
    for suf, rep in RULES[pos]:
        if word.endswith(suf) and len(word) > len(suf) + 2:
            b = word[: -len(suf)] + rep
            if (pos, b) in index:
                out.append(b)
    return list(dict.fromkeys(out))


def expand(d, corpus, queries, senses, maxdf, mode):
    senses, maxdf = int(senses), float(maxdf)
    df = defaultdict(int)
    n_docs = 0
    with open(corpus) as f:
        for line in f:
            doc = json.loads(line)
            n_docs += 1
            for w in set(WORD.findall((doc.get("title", "") + " " + doc.get("text", "")).lower())):
                df[w] += 1
    index, exc = load_wordnet(d)
    n_expanded = 0
    with open(queries) as f:
        for line in f:
            q = json.loads(line)
            words = [w for w in WORD.findall(q["text"].lower()) if w not in STOP]
            own = set(words)
            syn = []
            for w in words:
                if df.get(w, 0) > maxdf * n_docs:
                    continue
                for pos in POS:
                    for b in bases(w, pos, index, exc):
                        offs = index[(pos, b)]
                        for off in offs[:senses] if senses > 0 else offs:
                            for s in synset_words(d, pos, off):
                                if "_" in s or "-" in s or not s.isalpha() or s in STOP:
                                    continue
                                if s in own or s == b or s in syn or df.get(s, 0) == 0:
                                    continue
                                syn.append(s)
            if syn:
                n_expanded += 1
                q["text"] = " ".join(syn) if mode == "only" else q["text"] + " " + " ".join(syn)
            print(json.dumps(q, ensure_ascii=False))
    print(f"eval-wordnet: expanded {n_expanded} queries", file=sys.stderr)


def read_run(path):
    run = defaultdict(list)
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 2 and p[1] not in run[p[0]]:
                run[p[0]].append(p[1])
    return run


def fuse(run1, run2, w):
    w = float(w)
    a, b = read_run(run1), read_run(run2)
    for q in sorted(set(a) | set(b), key=lambda x: (len(x), x)):
        score = defaultdict(float)
        for r, doc in enumerate(a.get(q, []), 1):
            score[doc] += (1 - w) / (60 + r)
        for r, doc in enumerate(b.get(q, []), 1):
            score[doc] += w / (60 + r)
        for doc, _ in sorted(score.items(), key=lambda kv: -kv[1])[:100]:
            print(q, doc)


if __name__ == "__main__":
    if sys.argv[1:2] == ["expand"] and len(sys.argv) == 8:
        expand(*sys.argv[2:])
    elif sys.argv[1:2] == ["fuse"] and len(sys.argv) == 5:
        fuse(*sys.argv[2:])
    else:
        sys.exit("usage: eval-wordnet.py expand WORDNET_DIR CORPUS QUERIES SENSES MAXDF only|plus | fuse RUN1 RUN2 W")
