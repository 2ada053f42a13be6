#pragma once

// The built-in `hashing` embedder: deterministic, no weights, no network.
//
// Features of a text: its word unigrams and bigrams (terms from the text
// module's Tokenizer: normalized, stop words dropped, English stemmed) and
// the character 3-grams of each term with boundary marks ("<ru", "run",
// "un>"). Each feature is hashed (a fixed 64-bit hash, stable across
// platforms and releases) to one of D dimensions with a sign from the same
// hash, weighted by group (unigram 1.0, bigram 0.6, char 3-gram 0.3) times
// a sublinear term frequency 1 + ln(tf), summed, and the vector is
// L2-normalized. A text without terms gives the zero vector.
//
// It is LEXICAL, not semantic: texts score as similar when they share
// words, word pairs or word pieces, never because they mean the same thing
// ("car" and "automobile" are unrelated to it). Queries and documents are
// embedded alike.
//
// Thread safety: Embed may be called concurrently (per-thread scratch).

#include <memory>
#include <string>

#include "model/embedder.h"
#include "text/tokenizer.h"

namespace skald {

struct HashingEmbedderOptions {
  // Vector length D (16..8192).
  int dimension = 512;

  Status Validate() const;
};

// The hashing embedder over `tokenizer` (owned). Its model() is
// "skald-hash-v1[<tokenizer name>]" so that a change of tokenizer changes
// the stored identity.
Result<std::unique_ptr<Embedder>> NewHashingEmbedder(std::unique_ptr<Tokenizer> tokenizer,
                                                     const HashingEmbedderOptions& options = {});

// The hashing embedder with the default ICU tokenizer.
Result<std::unique_ptr<Embedder>> NewDefaultHashingEmbedder(
    const HashingEmbedderOptions& options = {});

// The 64-bit feature hash (exposed for tests): little-endian reads composed
// byte by byte, so every platform gets the same value.
uint64_t FeatureHash(std::string_view data, uint64_t seed);

}  // namespace skald
