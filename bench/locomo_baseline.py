#!/usr/bin/env python3
"""Lexical baselines for bench/locomo_eval: the figures Skald's memory is compared with.

Reproduces the baselines quoted in ../shared/data/README.md with the same metric and the same
splits as locomo_eval, so the two print comparable lines:

  evidence_recall@B  mean over questions (categories 1-4) of the fraction of the question's
                     evidence turns whose text is in the context
  turn_recall@B      the same pooled over all evidence turns
  split              tune = first half of the conversations (rounded down), report = the rest

Units ranked, with Okapi BM25 (k1, b below) over lowercase word tokens, Snowball-stemmed (English)
unless --no-stem:
  --unit turn        each turn alone
  --unit window      each turn with --width neighbours on either side (default 1)
  --unit session     whole sessions
The context takes units in rank order, lines already in it not repeated, until the budget is spent
(the first unit that does not fit ends it). Tokens are estimated as locomo_eval does for English
text: a quarter token per character, rounded up, plus one per line.

Usage: bench/locomo_baseline.py --data ../shared/data/locomo-dev/locomo-dev.json
           [--unit window] [--width 1] [--budget 500 --budget 1000 ...] [--no-stem]
Needs python3-snowballstemmer (scripts/install-deps.sh installs it).
"""

import argparse
import json
import math
import re
import sys
from collections import Counter

WORD = re.compile(r"[a-z0-9]+")


def collapse(text):
    return " ".join(text.split())


def estimate_tokens(line):
    # English text only here: OpenViking's estimate is 0.25 per character outside CJK.
    return math.ceil(len(line) * 0.25)


class Bm25:
    def __init__(self, docs, k1, b):
        self.k1, self.b = k1, b
        self.tf = [Counter(d) for d in docs]
        self.len = [len(d) for d in docs]
        self.avg = sum(self.len) / max(len(docs), 1)
        df = Counter()
        for c in self.tf:
            df.update(c.keys())
        n = len(docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def rank(self, query):
        terms = [t for t in set(query) if t in self.idf]
        scored = []
        for i, tf in enumerate(self.tf):
            s = 0.0
            norm = self.k1 * (1 - self.b + self.b * self.len[i] / self.avg)
            for t in terms:
                f = tf.get(t)
                if f:
                    s += self.idf[t] * f * (self.k1 + 1) / (f + norm)
            if s > 0:
                scored.append((-s, i))
        scored.sort()
        return [i for _, i in scored]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--unit", choices=["turn", "window", "session"], default="window")
    ap.add_argument("--width", type=int, default=1)
    ap.add_argument("--budget", type=int, action="append")
    ap.add_argument("--no-stem", action="store_true")
    ap.add_argument("--k1", type=float, default=1.2)
    ap.add_argument("--b", type=float, default=0.75)
    args = ap.parse_args()
    budgets = sorted(args.budget or [500, 1000, 2000])

    stem = None
    if not args.no_stem:
        try:
            import snowballstemmer
        except ImportError:
            sys.exit("needs python3-snowballstemmer (apt-get install python3-snowballstemmer)")
        stemmer = snowballstemmer.stemmer("english")
        stem = stemmer.stemWords

    def tokens(text):
        words = WORD.findall(text.lower())
        return stem(words) if stem else words

    samples = json.load(open(args.data))
    tune_end = len(samples) // 2
    totals = {}  # (split, budget) -> [question_recall_sum, recalled, evidence, tokens, questions]
    for s, sample in enumerate(samples):
        conv = sample["conversation"]
        sessions = []
        for k in range(1, 101):
            turns = conv.get("session_%d" % k)
            if not isinstance(turns, list):
                continue
            sessions.append([t for t in turns if t.get("text")])
        turn_text = {}
        for turns in sessions:
            for t in turns:
                turn_text[t["dia_id"]] = collapse(t["text"])
        # Units as lists of lines ("speaker: text").
        units = []
        for turns in sessions:
            lines = ["%s: %s" % (t["speaker"], collapse(t["text"])) for t in turns]
            if args.unit == "session":
                units.append(lines)
            elif args.unit == "turn":
                units.extend([line] for line in lines)
            else:
                w = args.width
                for i in range(len(lines)):
                    units.append(lines[max(0, i - w): i + w + 1])
        index = Bm25([tokens(" ".join(u)) for u in units], args.k1, args.b)
        split = "tune" if s < tune_end else "report"
        for qa in sample["qa"]:
            if not 1 <= qa.get("category", 0) <= 4:
                continue
            ids = []
            for e in qa.get("evidence", []):
                ids.extend(re.split(r"[;,\s]+", e.strip()))
            evidence = [turn_text[i] for i in ids if turn_text.get(i)]
            if not evidence:
                continue
            ranked = index.rank(tokens(qa["question"]))
            for budget in budgets:
                used, seen, context = 0, set(), []
                for u in ranked:
                    fresh = [line for line in units[u] if line not in seen]
                    cost = sum(estimate_tokens(line) + 1 for line in fresh)
                    if used + cost > budget:
                        break
                    used += cost
                    seen.update(fresh)
                    context.extend(fresh)
                text = "\n".join(context)
                recalled = sum(1 for e in evidence if e in text)
                for name in (split, "all"):
                    t = totals.setdefault((name, budget), [0.0, 0, 0, 0, 0])
                    t[0] += recalled / len(evidence)
                    t[1] += recalled
                    t[2] += len(evidence)
                    t[3] += used
                    t[4] += 1

    print("command: bench/locomo_baseline.py --data %s --unit %s --width %d%s" %
          (args.data, args.unit, args.width, " --no-stem" if args.no_stem else ""))
    for (name, budget), t in sorted(totals.items()):
        print("split=%s evidence_recall@%d=%.3f turn_recall@%d=%.3f tokens_per_question=%.0f "
              "questions=%d" % (name, budget, t[0] / t[4], budget, t[1] / max(t[2], 1),
                                t[3] / t[4], t[4]))


if __name__ == "__main__":
    main()
