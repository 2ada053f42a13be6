#pragma once

// Built-in stop word lists for the tokenizer.
//
// Thread safety: immutable static data.

#include <span>
#include <string>
#include <string_view>

namespace skald {

// The default English stop words: Lucene's EnglishAnalyzer list (33 words:
// articles, auxiliaries, common prepositions and conjunctions). Small on
// purpose: BM25's IDF already discounts frequent words, and a longer list
// removes words that matter in queries (measured on SciFact in
// docs/benchmarks.md). Lower-case, already NFKC-case-folded.
std::span<const std::string_view> EnglishStopWords();

// English function words that carry no topic in a *query*: pronouns,
// question words, auxiliaries, determiners, prepositions and frequent
// adverbs ("What did she do with her sister?" asks about "sister"). Sorted,
// lower-case ASCII. Not used on documents: only queries are filtered.
std::span<const std::string_view> QueryFunctionWords();

// `query` with every ASCII word (a run of letters) that is a query function
// word (case-insensitive) replaced by a space; all other bytes (numbers,
// punctuation, non-ASCII text) are kept. When nothing but function words
// remains, returns `query` unchanged, so "who are you" still searches.
// BM25 gives frequent words little weight, but not none: in conversations
// "what", "did", "you" match nearly every turn and pull weak matches up
// (measured with bench/locomo_eval, docs/benchmarks.md).
std::string StripQueryFunctionWords(std::string_view query);

// True when `query` reads as an English question: it ends with '?' (after
// trailing white space) or its first word is a question word or an
// auxiliary that opens a question ("what", "when", "did", "is", "can"...).
// Statements and keyword lists are not questions: SciFact's claims lose
// nDCG when their function words go ("more", "after", "only" carry
// meaning there), questions gain recall (docs/benchmarks.md).
bool IsQuestion(std::string_view query);

}  // namespace skald
