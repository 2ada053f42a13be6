#!/usr/bin/env python3
"""A model of routing_eval's routing@k, for trying directory summaries without re-importing.

Reads the workspace that `routing_eval --workspace DIR` leaves behind (its catalog, skald.db,
and its content files) and ranks the leaf directories for each query the way Find(levels 0,1)
in QUICK mode does with embedded defaults (BM25 only): BM25F with k1 1.2, b 0.75, title weight
2, each column normalized by its own average over all records, Lucene's idf over all records;
a directory's L0 is a record with its abstract column filled, its L1 one with its body column,
both titled with the directory's name, and a leaf takes the rank of its best record. Terms are
lower-cased words without the tokenizer's 33 stop words, Snowball-stemmed (English): close to,
not the same as, the ICU tokenizer (on the extractive:v2 and v3 workspaces the model's
routing@3 was within 0.003 of the bench's).

Queries in query-id order; tune = even positions, report = odd (as routing_eval).

  --records indexed    the L0 and L1 records as written (the bench's setting)
  --records l1         each leaf's L1 record alone
  --records combined   one record per leaf: L0 + L1 in the body column

Usage: bench/routing_model.py --workspace /tmp/rws --beir ../shared/data/scifact-dev [--records l1]
Needs python3-snowballstemmer (scripts/install-deps.sh installs it).
"""

import argparse
import json
import math
import os
import re
import sqlite3
import sys
from collections import Counter, defaultdict

import snowballstemmer

STOP = set("a an and are as at be but by for if in into is it no not of on or such that the "
           "their then there these they this to was will with".split())
WORD = re.compile(r"\w+", re.U)
K1, B, TITLE_WEIGHT = 1.2, 0.75, 2.0


class Terms:
    def __init__(self):
        self.stemmer = snowballstemmer.stemmer("english")
        self.cache = {}

    def __call__(self, text):
        out = []
        for word in WORD.findall(text.lower()):
            for w in word.replace("_", " ").split():
                if w in STOP:
                    continue
                stem = self.cache.get(w)
                if stem is None:
                    stem = self.cache[w] = self.stemmer.stemWord(w)
                out.append(stem)
        return out


def load_beir(path):
    queries = {}
    with open(os.path.join(path, "queries.jsonl")) as f:
        for line in f:
            q = json.loads(line)
            queries[q["_id"]] = q["text"]
    qrels = defaultdict(dict)
    with open(os.path.join(path, "qrels.tsv")) as f:
        for line in f:
            p = line.split()
            if len(p) >= 3 and p[0] != "query-id" and p[2].lstrip("-").isdigit() and int(p[2]) > 0:
                qrels[p[0]][p[1]] = int(p[2])
    return queries, qrels


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workspace", required=True, help="routing_eval's --workspace DIR")
    ap.add_argument("--beir", required=True)
    ap.add_argument("--records", choices=["indexed", "l1", "combined"], default="indexed")
    args = ap.parse_args()
    ws = os.path.join(args.workspace, "ws")
    db = sqlite3.connect(os.path.join(ws, "skald.db"))
    rows = db.execute("select uri, level, abstract from records where deleted = 0").fetchall()
    leaf_file = re.compile(r"^(.*/)t\d+/l\d+/[^/]+\.md$")
    roots = {m.group(1) for u, level, _ in rows if level == 2 and (m := leaf_file.match(u))}
    if len(roots) != 1:
        sys.exit("expected one tree root (tNN/lM/ID.md) in the workspace")
    root = roots.pop()
    terms = Terms()

    # Records: (name, leaf or None, level, [title, abstract, body] term lists).
    records, leaf_of = [], {}
    dirs = defaultdict(dict)
    for uri, level, text in rows:
        if level == 2:
            path = os.path.join(ws, "content/default/resources", uri[len("viking://resources/"):])
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    body = f.read()
            except OSError:
                body = ""
            rel = uri[len(root):].split("/") if uri.startswith(root) else []
            if len(rel) == 3 and rel[2].endswith(".md"):
                leaf_of[rel[2][:-3]] = rel[0] + "/" + rel[1]
            records.append((None, 2, [terms(uri.rsplit("/", 1)[1]), terms(text), terms(body)]))
        else:
            dirs[uri][level] = text
    leaves = set(leaf_of.values())
    for uri, texts in dirs.items():
        rel = uri[len(root):] if uri.startswith(root) else ""
        leaf = rel if rel in leaves else None
        title = terms(uri.rsplit("/", 1)[1])
        l0, l1 = texts.get(0, ""), texts.get(1, "")
        if args.records == "indexed" or leaf is None:
            records.append((leaf, 0, [title, terms(l0), []]))
            records.append((leaf, 1, [title, [], terms(l1)]))
        elif args.records == "l1":
            records.append((leaf, 1, [title, [], terms(l1)]))
        else:
            records.append((leaf, 1, [title, [], terms(l0 + "\n" + l1)]))

    n = len(records)
    avg = [sum(len(r[2][c]) for r in records) / n for c in range(3)]
    df = Counter()
    postings = defaultdict(list)
    for i, (leaf, level, cols) in enumerate(records):
        counts = [Counter(c) for c in cols]
        for t in set().union(*cols):
            df[t] += 1
            if level < 2 and leaf is not None:
                postings[t].append((i, [c.get(t, 0) for c in counts]))
    norms = [[1 - B + B * len(r[2][c]) / avg[c] if avg[c] else 1 for c in range(3)] for r in records]

    queries, qrels = load_beir(args.beir)
    splits = [[0, 0, 0], [0, 0, 0]]
    position = 0
    for qid in sorted(qrels):
        if qid not in queries:
            continue
        wanted = {leaf_of[d] for d in qrels[qid] if d in leaf_of}
        if not wanted:
            continue
        scores = defaultdict(float)
        for t in set(terms(queries[qid])):
            idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            for i, tf in postings.get(t, ()):
                weighted = sum(w * f / norms[i][c]
                               for c, (w, f) in enumerate(zip((TITLE_WEIGHT, 1, 1), tf)) if f)
                scores[i] += idf * weighted * (K1 + 1) / (weighted + K1)
        routed = []
        for i in sorted(scores, key=lambda i: -scores[i]):
            if records[i][0] not in routed:
                routed.append(records[i][0])
        s = splits[position % 2]
        position += 1
        s[0] += 1
        s[1] += bool(set(routed[:1]) & wanted)
        s[2] += bool(set(routed[:3]) & wanted)
    print(f"model: records={args.records} leaves={len(leaves)} queries={position}")
    for name, s in zip(("tune", "report"), splits):
        print(f"split={name} queries={s[0]} routing@1={s[1] / max(s[0], 1):.3f} "
              f"routing@3={s[2] / max(s[0], 1):.3f}")


if __name__ == "__main__":
    main()
