#pragma once

// Tokenizer: splits text into normalized search terms. Used by the lexical
// index (BM25), the hashing embedder and token estimation.
//
// The default implementation (NewIcuTokenizer) segments with ICU word
// break rules (so Chinese, Japanese and Thai are split into words by ICU's
// dictionaries), keeps only word segments (letters, numbers, ideographs,
// kana; punctuation, spaces, symbols and emoji are dropped), normalizes with
// NFKC + case folding, drops stop words and stems Latin-script words with the
// English Snowball stemmer. Invalid UTF-8 never fails: each bad byte is
// skipped and acts as a word separator.
//
// Thread safety: Tokenize() is const and safe to call concurrently;
// implementations keep per-thread scratch state internally.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "skald/result.h"

namespace skald {

struct Token {
  std::string term;    // normalized (and stemmed) form used for matching
  uint32_t begin = 0;  // byte offset of the source word in the input
  uint32_t end = 0;    // one past its last byte
};

// Receives the terms of a text one at a time (Tokenizer::ForEachTerm).
class TermSink {
 public:
  virtual ~TermSink() = default;
  // One term, in text order. `term` is valid only during the call.
  virtual void Term(std::string_view term) = 0;
};

struct TokenizerOptions {
  // Snowball stemming for words in Latin script (English stemmer). Words in
  // other scripts are never stemmed.
  bool stem_english = true;
  // Drop stop words (after normalization, before stemming).
  bool remove_stop_words = true;
  // Stop words to use; empty means the built-in English list
  // (text/stop_words.h). They are normalized like the text (NFKC + case
  // folding), so "The" and "the" are the same entry.
  std::vector<std::string> stop_words;

  // InvalidArgument when a stop word is empty or not valid UTF-8.
  Status Validate() const;
};

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  // Stable identity stored beside indexes built with it; it changes whenever
  // the output could change (options, stop list, ICU major version, code
  // version), so an index is never silently reused with other terms.
  virtual std::string Name() const = 0;

  // Appends the tokens of `text` to `out` in order. Terms longer than
  // kMaxTermBytes after normalization are dropped (base64 blobs and the like).
  // Inputs longer than kMaxInputBytes are tokenized up to that length only.
  virtual void Tokenize(std::string_view text, std::vector<Token>* out) const = 0;

  // Calls sink->Term(t.term) for every token t that Tokenize would append,
  // in the same order, without building the tokens (no string per token):
  // for callers that need the terms only. The default calls Tokenize.
  // REQUIRES: the sink does not tokenize on this thread during the call
  // (the ICU tokenizer's per-thread scratch is in use).
  virtual void ForEachTerm(std::string_view text, TermSink* sink) const {
    std::vector<Token> tokens;
    Tokenize(text, &tokens);
    for (const Token& t : tokens) sink->Term(t.term);
  }

  static constexpr size_t kMaxTermBytes = 128;
  static constexpr size_t kMaxInputBytes = size_t{1} << 30;  // 1 GiB: offsets fit in int32
};

// The ICU + Snowball tokenizer described at the top of this file.
// Returns InvalidArgument for bad options, Unavailable when ICU data or the
// English stemmer cannot be loaded.
Result<std::unique_ptr<Tokenizer>> NewIcuTokenizer(const TokenizerOptions& options = {});

}  // namespace skald
