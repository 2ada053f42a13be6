#pragma once

// Built-in stop word lists for the tokenizer.
//
// Thread safety: immutable static data.

#include <span>
#include <string_view>

namespace skald {

// The default English stop words: Lucene's EnglishAnalyzer list (33 words:
// articles, auxiliaries, common prepositions and conjunctions). Small on
// purpose: BM25's IDF already discounts frequent words, and a longer list
// removes words that matter in queries (measured on SciFact in
// docs/benchmarks.md). Lower-case, already NFKC-case-folded.
std::span<const std::string_view> EnglishStopWords();

}  // namespace skald
