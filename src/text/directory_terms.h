#pragma once

// DirectoryWords: the single words that tell a directory's entries apart,
// for overviews that a keyword search can route by. A query usually targets
// one entry of a directory that may hold hundreds, so a directory's overview
// must carry the distinctive words of every entry, not only its most
// frequent ones; a word said once is enough for BM25, so words are listed
// once each (no bigram repeating its words, no entry names).
//
// Words are the unigram terms of ExtractTerms (keyphrases.h): an entry's
// word scores (1 + ln count) × idf², idf = ln((N + 1) / (df + 0.5)) against
// the background (df at least the number of entries holding it), or, with
// no usable background, 1 + ln((n + 1) / (held + 0.5)) over the n entries
// themselves (× kLeadWordWeight for a word of the entry's lead); the
// directory's score of a word is the sum over its entries. Words with an
// idf below 1 (in more than about a third of the background) are left out.
// Measured with bench/routing_eval (docs/benchmarks.md).
//
// Thread safety: pure functions of their arguments.

#include <cstddef>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "text/keyphrases.h"
#include "text/summarizer.h"
#include "text/term_group.h"

namespace skald {

struct DirectoryWords {
  std::vector<std::string> keys;     // term keys (stems), most salient first
  std::vector<std::string> display;  // the spelling shown for keys[i]
  // For each entry, indices into keys of its words, most distinctive first.
  std::vector<std::vector<size_t>> entries;
};

// An entry's word that is also in its lead (its name and title, or leading
// sentence) scores this many times more: the title says what a document is
// about (routing@3 on the tune half of bench/routing_eval: 0.763 without,
// 0.778 with 1.5 or 2, 0.795 with 3, 0.790 with 4; docs/benchmarks.md).
inline constexpr double kLeadWordWeight = 3.0;

// The words of a directory whose entries have the terms `entry_terms`
// (ExtractTerms of each entry's text) and `lead_terms` (ExtractTerms of
// each entry's lead; empty: no lead), against `background` (may be null).
DirectoryWords RankDirectoryWords(std::span<const std::vector<TextTerm>> entry_terms,
                                  std::span<const std::vector<TextTerm>> lead_terms,
                                  const TermStatistics* background);

// "a, b, c": the directory's most salient words whose keys are not in
// `said`, within `max_chars` characters; the keys listed are added to `said`.
std::string SalientWordList(const DirectoryWords& words, size_t max_chars,
                            std::unordered_set<std::string>* said);

// "a, b; c; d, e": entry by entry in order, each entry's most distinctive
// words not in `said`, entries separated by "; ". Words are taken in rounds
// (each entry's best word, then each entry's second...) so that every entry
// is represented before any gets a second word, until `max_chars`
// characters are used. The keys listed are added to `said`. Empty when no
// word is left.
std::string EntryWordGroups(const DirectoryWords& words, size_t max_chars,
                            std::unordered_set<std::string>* said);

// ---------------------------------------------------------------------------
// The topic part of the extractive summarizer's overview (internal to
// skald_text).

// What a directory is about: its entries' keyphrases and words.
struct DirectoryTopics {
  std::string brief;  // "Covers a, b and c." within kAbstractMaxChars; "" = no keyphrase
  std::vector<Keyphrase> phrases;  // ranked over every entry (RankKeyphrases)
  size_t in_brief = 0;             // phrases[0..in_brief) are in the brief
  DirectoryWords words;            // single words, for the word lists
  std::unordered_set<std::string> brief_keys;  // word keys the brief says
};

// The topics of a directory of entries `all`, each entry's text being its
// name (its extension dropped, '_' and '-' as spaces) and summary, and its
// lead the name and `leads[i]` (its summary's leading sentence; missing:
// the name alone), against `background` (may be null). No brief when no
// keyphrase fits.
// `scanned[i]`, when given and not null, is entry i scanned ahead
// (ScanFileEntry of its name and summary; its lead is then not read).
DirectoryTopics DirectoryTopicsOf(std::span<const EntrySummary> all,
                                  std::span<const std::string> leads,
                                  const TermStatistics* background,
                                  std::span<const EntryTerms* const> scanned = {});

// The "\n\n## ..." sections of `topics` placed before an overview's
// coverage: `## Topics` (further salient words, SalientWordList, at most
// `topics_chars`), `## Where to Look` (the leading keyphrases and up to 3
// entries holding each, at most `where_chars`) and `## Entry Keywords`
// (EntryWordGroups, at most `entry_chars`); nothing the brief or an earlier
// section said is repeated. A budget of 0 leaves its section out, as does
// a directory of one entry the last two.
std::string TopicSections(const DirectoryTopics& topics, std::span<const EntrySummary> all,
                          size_t topics_chars, size_t where_chars, size_t entry_chars);

}  // namespace skald
