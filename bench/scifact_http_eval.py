#!/usr/bin/env python3
"""nDCG@10 of find through the HTTP API, the path a client takes, on a BEIR set.

Writes one Markdown file per document (`# title` + text) under a temporary directory, imports
it with `skald --data WS add-resource DIR` (embedded defaults), serves the workspace with
`skald serve`, and sends every query with qrels to POST /api/v1/search/find (limit 10, level 2
unless --all-levels). Prints nDCG@10 for the tune half (queries at even positions of the qrels
order), the report half (odd) and all, as bench/retrieval_eval splits them.

Usage: bench/scifact_http_eval.py --skald build/release/skald --beir ../shared/data/scifact-dev
           [--port 19601] [--workspace DIR] [--mode quick|thinking] [--config skald.conf]
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request


def load(beir):
    docs = [json.loads(line) for line in open(os.path.join(beir, "corpus.jsonl"))]
    queries = {}
    for line in open(os.path.join(beir, "queries.jsonl")):
        q = json.loads(line)
        queries[q["_id"]] = q["text"]
    qrels, order = {}, []
    for i, line in enumerate(open(os.path.join(beir, "qrels.tsv"))):
        parts = line.strip().split("\t")
        if i == 0 and not parts[-1].isdigit():
            continue
        qid, did, grade = parts[0], parts[1], int(parts[2])
        if qid not in qrels:
            qrels[qid] = {}
            order.append(qid)
        qrels[qid][did] = grade
    return docs, queries, qrels, order


def ndcg10(ranked, rels):
    dcg = sum(rels.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted(rels.values(), reverse=True)[:10]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def post(port, path, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skald", required=True)
    ap.add_argument("--beir", required=True)
    ap.add_argument("--port", type=int, default=19601)
    ap.add_argument("--workspace")
    ap.add_argument("--mode", choices=["quick", "thinking", "auto"], default="auto")
    ap.add_argument("--all-levels", action="store_true")
    ap.add_argument("--config", help="a skald.conf for the server (retrieval settings)")
    args = ap.parse_args()
    docs, queries, qrels, order = load(args.beir)
    tmp = tempfile.mkdtemp(prefix="scifact-http-")
    ws = args.workspace or os.path.join(tmp, "ws")
    src = os.path.join(tmp, "scifact")
    os.makedirs(src)
    for d in docs:
        with open(os.path.join(src, f"d{d['_id']}.md"), "w") as f:
            f.write(f"# {d['title']}\n\n{d['text']}\n")
    start = time.time()
    conf = ["--config", args.config] if args.config else []
    subprocess.run([args.skald, "--data", ws, "add-resource", src], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    imported = time.time() - start
    server = subprocess.Popen([args.skald, "serve", "--port", str(args.port), "--data", ws] + conf,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{args.port}/health", timeout=1)
                break
            except Exception:
                time.sleep(0.1)
        scores = {"tune": [], "report": [], "all": []}
        start = time.time()
        for i, qid in enumerate(order):
            if qid not in queries:
                continue
            body = {"query": queries[qid], "limit": 10, "target_uri": "viking://resources/scifact"}
            if not args.all_levels:
                body["level"] = 2
            if args.mode != "auto":
                body["retrieval_mode"] = args.mode
            hits = post(args.port, "/api/v1/search/find", body)["result"]["resources"]
            ranked = [h["uri"].rsplit("/d", 1)[-1].removesuffix(".md") for h in hits
                      if h["level"] == 2]
            s = ndcg10(ranked, qrels[qid])
            scores["tune" if i % 2 == 0 else "report"].append(s)
            scores["all"].append(s)
        elapsed = time.time() - start
    finally:
        server.terminate()
        server.wait()
        if not args.workspace:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"command: bench/scifact_http_eval.py --beir {args.beir} --mode {args.mode}"
          f"{' --all-levels' if args.all_levels else ''}"
          f"{' --config ' + args.config if args.config else ''}")
    print(f"imported docs={len(docs)} in {imported:.1f} s; queries={len(scores['all'])} in "
          f"{elapsed:.1f} s")
    for name in ("tune", "report", "all"):
        v = scores[name]
        print(f"split={name} ndcg@10={sum(v) / max(len(v), 1):.4f} queries={len(v)}")


if __name__ == "__main__":
    sys.exit(main())
