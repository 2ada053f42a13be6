#!/usr/bin/env python3
"""Model of a list-question fill for locomo_eval's context mode, and what its budget pays for.

Reads what `locomo_eval --dump FILE --workspace DIR` leaves behind (one JSON line per question with
its context at each budget; the workspace with the extracted memory files) and asks:

1. --breakdown: what share of each context's tokens is conversation turns, image captions, session
   headings, memory headings (`[events] viking://…`), memory statements; how full the budget is.
2. the list-intent fill (the hypothesis of issue 10's item 7, 2026-12-02/03): when a question names
   exactly one conversation participant and asks for a set of things — its head noun is plural
   ("What activities does Melanie…", "Which cities has Jon…", "What are Melanie's pets' names?"),
   or it reads "What has NAME …", "Where has NAME …", "How many …" — the context keeps its first
   (1 - fill) of the budget and the rest is filled with that participant's own memories (every
   memory file whose speaker is the participant, any type), each rendered as its quoted lines (the
   turn as said; 11 tokens for a session heading when its session is new), ranked by:
     bm25      BM25 of the question's content words (function words and the name left out) over
               the memory's statement and quotes, ties by type (events, preferences, entities,
               profile)
     wordnet   bm25 + W x the number of the memory's words that are WordNet hyponyms (incl.
               instances, every sense, --depth levels) of the head noun ("cities" -> Rome)
     prior     bm25 + W x a type/cue prior from the head noun, general English: places/cities/
               countries/… -> a capitalized word inside the quote; people/friends/children/pets/… ->
               an entities memory; activities/hobbies/things/events/… -> an event (attribute
               `event`) or an activity/habit/likes preference
   --weak K fills only when the head noun occurs in at most K lines of the context ("its content
   words match weakly").
A context line is recalled as locomo_eval counts it: the evidence turn's text is in the context.

Usage:
  build/release/bench/locomo_eval --data ../shared/data/locomo-dev/locomo-dev.json --split all \\
      --workspace /tmp/ws --dump /tmp/dump.jsonl
  bench/locomo_list_intent.py --data ../shared/data/locomo-dev/locomo-dev.json \\
      --dump /tmp/dump.jsonl --workspace /tmp/ws [--breakdown] [--grid]
      [--fill 0.25] [--rank bm25|wordnet|prior] [--weight 1] [--depth 3] [--weak K]
  bench/locomo_list_intent.py --self-test     # the intent detector on fixed questions
Needs python3-snowballstemmer and wordnet-base (scripts/install-deps.sh); run with /usr/bin/python3.
"""

import argparse
import json
import math
import os
import re
import sys
from collections import Counter

WORDNET = "/usr/share/wordnet/"
FUNCTION_WORDS = set("""a an the what which who whom whose where when why how is are was were be
been being do does did has have had i you he she it we they me him her us them my your his its our
their mine yours hers ours theirs this that these those of in on at to for from by with about as
into over after before and or but if so than too very can could would should will shall may might
must not no any some all each every both either neither much many more most such own same other
another there here then now also just only""".split())
AUXILIARIES = {"has", "have", "does", "do", "did", "is", "are", "was", "were"}
TYPE_ORDER = {"events": 0, "preferences": 1, "entities": 2, "profile": 3}
PLACE_HEADS = {"places", "cities", "countries", "states", "areas", "towns", "destinations",
               "locations", "spots", "parks", "beaches", "restaurants", "shelters"}
PEOPLE_HEADS = {"people", "friends", "children", "kids", "names", "individuals", "family",
                "artists", "musicians", "bands", "authors", "pets", "dogs", "cats"}
ACTIVITY_HEADS = {"activities", "hobbies", "things", "events", "exercises", "sports", "classes",
                  "ways", "trips"}


def tokens_of(line):
    # locomo_eval's estimate for English text: a quarter token per character, rounded up, + 1.
    return math.ceil(len(line) * 0.25) + 1


class WordNet:
    """Nouns of WordNet 3.0 (wndb(5)): lemmas, plural exceptions, hyponym pointers."""

    def __init__(self, root=WORDNET):
        self.offsets = {}
        for line in open(root + "index.noun", encoding="latin-1"):
            if line.startswith(" "):
                continue
            p = line.split()
            pointers = int(p[3])
            self.offsets[p[0]] = p[4 + pointers + 2:]
        self.exceptions = {}
        for line in open(root + "noun.exc", encoding="latin-1"):
            parts = line.split()
            if len(parts) >= 2:
                self.exceptions[parts[0]] = parts[1]
        self.synsets = None
        self.root = root

    def singular(self, word):
        """The noun a plural word is a form of, None when it is not a plural noun."""
        word = word.lower()
        if word in self.exceptions:
            return self.exceptions[word]
        for suffix, replace in (("ies", "y"), ("ses", "s"), ("xes", "x"), ("ches", "ch"),
                                ("shes", "sh"), ("s", "")):
            if word.endswith(suffix) and len(word) > len(suffix) + 1:
                base = word[:-len(suffix)] + replace
                if base in self.offsets:
                    return base
        return None

    def hyponyms(self, noun, depth):
        if self.synsets is None:
            self.synsets = {}
            for line in open(self.root + "data.noun", encoding="latin-1"):
                if line.startswith(" "):
                    continue
                p = line.split(" ")
                count = int(p[3], 16)
                words = [p[4 + 2 * i].lower() for i in range(count)]
                k = 4 + 2 * count
                links = [p[k + 2 + 4 * i] for i in range(int(p[k]))
                         if p[k + 1 + 4 * i] in ("~", "~i") and p[k + 3 + 4 * i] == "n"]
                self.synsets[p[0]] = (words, links)
        out, frontier = set(), list(self.offsets.get(noun, []))
        for _ in range(depth):
            following = []
            for offset in frontier:
                for target in self.synsets[offset][1]:
                    out.update(w for w in self.synsets[target][0] if "_" not in w)
                    following.append(target)
            frontier = following
        return out


def list_intent(question, participants, wordnet):
    """(participant, head noun) when the question asks for a set of things of one participant."""
    words = re.findall(r"[A-Za-z][A-Za-z'.]*", question)
    named = [n for n in participants if n in words or n + "'s" in words]
    if len(named) != 1:
        return None
    name = named[0]
    lower = [w.lower() for w in words]
    if len(lower) < 2:
        return None
    if lower[0] in ("what", "which"):
        i = 1
        if lower[i] in ("kind", "kinds", "type", "types", "sort", "sorts") and \
                i + 1 < len(lower) and lower[i + 1] == "of":
            i += 2
        for j in range(i, min(i + 4, len(lower))):
            if lower[j] in AUXILIARIES or lower[j] in (name.lower(), name.lower() + "'s"):
                break
            single = wordnet.singular(lower[j])
            if single and single != lower[j]:
                return name, lower[j]
        if lower[1] in ("has", "have"):
            return name, "things"
        if lower[1] == "are" and name.lower() + "'s" in lower:
            for w in lower[3:]:
                single = wordnet.singular(w.rstrip("'"))
                if single and single != w.rstrip("'"):
                    return name, w.rstrip("'")
        return None
    if lower[0] == "where" and lower[1] in ("has", "have"):
        return name, "places"
    if lower[0] == "how" and lower[1] == "many":
        return name, lower[2] if len(lower) > 2 else "things"
    return None


SELF_TEST = [  # (question, participants, expected intent), general English
    ("What activities does Melanie partake in?", ["Caroline", "Melanie"], ("Melanie", "activities")),
    ("Which cities has Jon visited?", ["Jon", "Gina"], ("Jon", "cities")),
    ("What kinds of books does Ann like?", ["Ann", "Bo"], ("Ann", "books")),
    ("What are Melanie's pets' names?", ["Caroline", "Melanie"], ("Melanie", "pets")),
    ("What has Maria done to feel closer to her faith?", ["John", "Maria"], ("Maria", "things")),
    ("Where has Melanie camped?", ["Caroline", "Melanie"], ("Melanie", "places")),
    ("How many children does Melanie have?", ["Caroline", "Melanie"], ("Melanie", "children")),
    ("What is Caroline's identity?", ["Caroline", "Melanie"], None),
    ("When did Melanie paint a sunrise?", ["Caroline", "Melanie"], None),
    ("What did Caroline research?", ["Caroline", "Melanie"], None),
    ("What subject have Caroline and Melanie both painted?", ["Caroline", "Melanie"], None),
    ("What activities do people enjoy?", ["Caroline", "Melanie"], None),
]


def self_test(wordnet):
    failed = 0
    for question, participants, expected in SELF_TEST:
        got = list_intent(question, participants, wordnet)
        if got != expected:
            failed += 1
            print("FAIL %r: %r, expected %r" % (question, got, expected))
    print("self-test: %d of %d as expected" % (len(SELF_TEST) - failed, len(SELF_TEST)))
    return 1 if failed else 0


def load_memories(workspace, user):
    """Every memory file of `user`: its header fields, type (directory) and statement."""
    root = os.path.join(workspace, "content", "default", "user", user, "memories")
    out = []
    for folder, _, files in os.walk(root):
        for name in files:
            if name.startswith("."):
                continue
            text = open(os.path.join(folder, name), encoding="utf-8").read()
            if not text.startswith("---\n") or "\n---\n" not in text[4:]:
                continue
            head, body = text[4:].split("\n---\n", 1)
            memory = {"type": os.path.relpath(folder, root).split(os.sep)[0], "text": body.strip()}
            for line in head.split("\n"):
                key, _, value = line.partition(": ")
                memory[key] = value
            memory["quotes"] = json.loads(memory.get("quotes") or "[]")
            out.append(memory)
    return out


class Filler:
    def __init__(self, args, samples):
        import snowballstemmer
        self.stemmer = snowballstemmer.stemmer("english")
        self.stems = {}
        self.wordnet = WordNet()
        self.participants = {s["sample_id"]: [s["conversation"]["speaker_a"],
                                              s["conversation"]["speaker_b"]] for s in samples}
        self.everyone = {n for v in self.participants.values() for n in v}
        self.memories = {u: load_memories(args.workspace, u) for u in self.participants}
        self.indexes = {}
        self.hyponym_cache = {}

    def stem(self, word):
        if word not in self.stems:
            self.stems[word] = self.stemmer.stemWord(word)
        return self.stems[word]

    def terms(self, text):
        return [self.stem(w) for w in re.findall(r"[a-z0-9]+", text.lower())]

    def index(self, user, name):
        key = (user, name)
        if key not in self.indexes:
            memories = [m for m in self.memories[user] if m.get("speaker") == name]
            words = [set(re.findall(r"[a-z]+", (m["text"] + " " + " ".join(m["quotes"])).lower()))
                     for m in memories]
            docs = [{self.stem(w) for w in ws} for ws in words]
            df = Counter()
            for d in docs:
                df.update(d)
            self.indexes[key] = (memories, docs, words, df)
        return self.indexes[key]

    def prior(self, memory, head):
        said = " ".join(q.split(": ", 1)[-1] for q in memory["quotes"]) or memory["text"]
        if head in PLACE_HEADS:
            inner = re.findall(r"(?<=[a-z,] )([A-Z][a-z]+)", said)
            return 1.0 if [w for w in inner if w not in self.everyone] else 0.0
        if head in PEOPLE_HEADS:
            return 1.0 if memory["type"] == "entities" else 0.0
        if head in ACTIVITY_HEADS:
            return 1.0 if (memory["type"] == "events" and memory.get("attribute") == "event") or \
                memory.get("attribute") in ("activity", "habit", "likes") else 0.0
        return 0.0

    def ranked(self, record, name, head, args):
        memories, docs, words, df = self.index(record["user"], name)
        content = [w for w in re.findall(r"[A-Za-z']+", record["question"])
                   if w.lower() not in FUNCTION_WORDS and w not in (name, name + "'s")]
        query = set(self.terms(" ".join(content)))
        n = len(memories)
        hyponyms = set()
        if args.rank == "wordnet":
            single = self.wordnet.singular(head) or head
            if (single, args.depth) not in self.hyponym_cache:
                self.hyponym_cache[(single, args.depth)] = self.wordnet.hyponyms(single, args.depth)
            hyponyms = self.hyponym_cache[(single, args.depth)]

        def score(i):
            s = sum(math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in query if t in docs[i])
            if args.rank == "wordnet":
                s += args.weight * len(words[i] & hyponyms)
            elif args.rank == "prior":
                s += args.weight * self.prior(memories[i], head)
            return s

        order = sorted(range(n), key=lambda i: (-score(i), TYPE_ORDER.get(memories[i]["type"], 9)))
        return [memories[i] for i in order]

    def context(self, record, budget, args):
        text = record["context@%d" % budget]
        intent = list_intent(record["question"], self.participants[record["user"]], self.wordnet)
        if not intent or args.fill <= 0:
            return text
        name, head = intent
        if args.weak is not None:
            head_term = self.stem(self.wordnet.singular(head) or head)
            if sum(1 for line in text.split("\n") if head_term in self.terms(line)) > args.weak:
                return text
        kept, used = [], 0
        for line in text.split("\n"):
            cost = tokens_of(line) if line else 1
            if used + cost > (1 - args.fill) * budget:
                break
            kept.append(line)
            used += cost
        lines, sessions = set(kept), set()
        for memory in self.ranked(record, name, head, args):
            fresh = [q for q in memory["quotes"] if q not in lines]
            if not fresh:
                continue
            cost = sum(tokens_of(q) for q in fresh) + (11 if memory.get("session") not in sessions else 0)
            if used + cost > budget:
                continue
            used += cost
            kept += fresh
            lines.update(fresh)
            sessions.add(memory.get("session"))
        return "\n".join(kept)


def recall_line(filler, records, budgets, args):
    total, count = Counter(), Counter()
    for r in records:
        for b in budgets:
            text = filler.context(r, b, args)
            total[(r["split"], b)] += sum(1 for e in r["evidence"] if e in text) / len(r["evidence"])
            count[(r["split"], b)] += 1
    return " ".join("%s@%d=%.3f" % (k[0], k[1], total[k] / count[k]) for k in sorted(total))


def breakdown(records, budgets):
    for b in budgets:
        shares, full = Counter(), 0
        for r in records:
            for line in r["context@%d" % b].split("\n"):
                if not line:
                    continue
                cost = tokens_of(line)
                full += cost
                if line.startswith("[session "):
                    shares["session headings"] += cost
                elif re.match(r"^\[\w+\] viking://", line):
                    shares["memory headings"] += cost
                elif re.match(r"^[A-Z][a-z]+: ", line):
                    caption = re.search(r" \[shares [^\]]*\]$", line)
                    extra = math.ceil(len(caption.group(0)) * 0.25) if caption else 0
                    shares["image captions"] += extra
                    shares["turns"] += cost - extra
                else:
                    shares["memory statements"] += cost
        print("@%d: %s; %.1f%% of the budget used" % (
            b, ", ".join("%s %.1f%%" % (k, 100.0 * v / full) for k, v in shares.most_common()),
            100.0 * full / (b * len(records))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--self-test", action="store_true", help="check the intent detector, exit")
    ap.add_argument("--data")
    ap.add_argument("--dump")
    ap.add_argument("--workspace")
    ap.add_argument("--split", choices=["tune", "report", "all"], default="all")
    ap.add_argument("--breakdown", action="store_true")
    ap.add_argument("--grid", action="store_true", help="the settings of docs/benchmarks.md")
    ap.add_argument("--fill", type=float, default=0.0)
    ap.add_argument("--rank", choices=["bm25", "wordnet", "prior"], default="bm25")
    ap.add_argument("--weight", type=float, default=1.0)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--weak", type=int)
    args = ap.parse_args()
    if args.self_test:
        return self_test(WordNet())
    if not (args.data and args.dump and args.workspace):
        ap.error("--data, --dump and --workspace are needed (or --self-test)")
    samples = json.load(open(args.data))
    records = [json.loads(line) for line in open(args.dump)]
    records = [r for r in records if args.split == "all" or r["split"] == args.split]
    budgets = sorted(int(k.split("@")[1]) for k in records[0] if k.startswith("context@"))
    if args.breakdown:
        breakdown([r for r in records if r["split"] == "tune"], budgets)
        return
    filler = Filler(args, samples)
    if not args.grid:
        print(recall_line(filler, records, budgets, args))
        return
    settings = [(0.0, "bm25", 1.0, None)]
    for fill in (0.25, 0.5):
        settings.append((fill, "bm25", 1.0, None))
        settings += [(fill, "wordnet", w, None) for w in (0.5, 2.0)]
        settings += [(fill, "prior", w, k) for w in (1.0, 3.0) for k in (None, 0, 2)]
    for fill, rank, weight, weak in settings:
        args.fill, args.rank, args.weight, args.weak = fill, rank, weight, weak
        print("fill=%.2f rank=%s weight=%g weak=%s: %s" % (
            fill, rank, weight, weak, recall_line(filler, records, budgets, args)))


if __name__ == "__main__":
    sys.exit(main())
