#pragma once

// Tokenizer: splits text into normalized search terms. Used by the lexical
// index (BM25), the hashing embedder and token estimation.
//
// The default implementation (NewIcuTokenizer) segments with ICU word
// break rules (so Chinese, Japanese and Thai are split into words),
// normalizes with NFKC + case folding, stems English with Snowball and drops
// stop words. Invalid UTF-8 never fails: bad bytes are skipped.
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

struct TokenizerOptions {
  // Snowball stemming for words in Latin script (English stemmer).
  bool stem_english = true;
  // Drop stop words (after normalization, before stemming).
  bool remove_stop_words = true;
  // Stop words to use; empty means the built-in English list.
  std::vector<std::string> stop_words;

  Status Validate() const;
};

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  // Stable identity stored beside indexes built with it ("icu-snowball-en:v1");
  // changing behaviour must change the name.
  virtual std::string Name() const = 0;

  // Appends the tokens of `text` to `out` in order.
  virtual void Tokenize(std::string_view text, std::vector<Token>* out) const = 0;
};

Result<std::unique_ptr<Tokenizer>> NewIcuTokenizer(const TokenizerOptions& options = {});

}  // namespace skald
