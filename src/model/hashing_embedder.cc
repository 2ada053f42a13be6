#include "model/hashing_embedder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "text/flat_string_map.h"
#include "text/term_list.h"

namespace skald {
namespace {

constexpr uint64_t kUnigramSeed = 0x9E3779B97F4A7C15ull;
constexpr uint64_t kBigramSeed = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kCharSeed = 0x165667B19E3779F9ull;
constexpr float kUnigramWeight = 1.0f;
constexpr float kBigramWeight = 0.6f;
constexpr float kCharWeight = 0.3f;
constexpr int kCharGram = 3;

uint64_t Load64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

uint64_t Mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 33;
  return h;
}

// Length of the UTF-8 sequence starting with byte `b` (1 for invalid bytes).
size_t Utf8SeqLen(unsigned char b) {
  if (b < 0x80) return 1;
  if ((b >> 5) == 0x6) return 2;
  if ((b >> 4) == 0xE) return 3;
  if ((b >> 3) == 0x1E) return 4;
  return 1;
}

// Term frequencies of one text's features: open addressing on the 64-bit
// feature hash (0 marks an empty slot), reused across texts by one thread.
class FeatureCounts {
 public:
  void Clear() {
    for (uint32_t slot : used_) keys_[slot] = 0;
    used_.clear();
  }

  // Counts one occurrence of `hash`; returns its feature's index in
  // insertion order (for AddCount).
  uint32_t Add(uint64_t hash, float weight) {
    if (hash == 0) hash = 1;
    if ((used_.size() + 1) * 2 > keys_.size()) Grow();
    size_t slot = static_cast<size_t>(hash) & mask_;
    while (keys_[slot] != 0 && keys_[slot] != hash) slot = (slot + 1) & mask_;
    if (keys_[slot] == 0) {
      keys_[slot] = hash;
      tf_[slot] = 0;
      weight_[slot] = weight;
      order_[slot] = static_cast<uint32_t>(used_.size());
      used_.push_back(static_cast<uint32_t>(slot));
    }
    ++tf_[slot];
    return order_[slot];
  }

  // Counts `n` more occurrences of the feature Add numbered `index`.
  void AddCount(uint32_t index, uint32_t n) { tf_[used_[index]] += n; }

  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (uint32_t slot : used_) fn(keys_[slot], tf_[slot], weight_[slot]);
  }

 private:
  void Grow() {
    std::vector<uint64_t> keys = std::move(keys_);
    std::vector<uint32_t> tf = std::move(tf_);
    std::vector<float> weight = std::move(weight_);
    std::vector<uint32_t> used = std::move(used_);
    const size_t capacity = std::max<size_t>(1024, keys.size() * 2);
    keys_.assign(capacity, 0);
    tf_.assign(capacity, 0);
    weight_.assign(capacity, 0.0f);
    order_.assign(capacity, 0);
    mask_ = capacity - 1;
    used_.clear();
    for (uint32_t old : used) {
      size_t slot = static_cast<size_t>(keys[old]) & mask_;
      while (keys_[slot] != 0) slot = (slot + 1) & mask_;
      keys_[slot] = keys[old];
      tf_[slot] = tf[old];
      weight_[slot] = weight[old];
      order_[slot] = static_cast<uint32_t>(used_.size());
      used_.push_back(static_cast<uint32_t>(slot));
    }
  }

  std::vector<uint64_t> keys_;
  std::vector<uint32_t> tf_;
  std::vector<float> weight_;
  std::vector<uint32_t> order_;  // per occupied slot: its index in used_
  std::vector<uint32_t> used_;   // occupied slots, in insertion order
  size_t mask_ = 0;
};

// A term's features: its unigram hash and its char 3-gram hashes
// (Scratch::grams[begin, begin + count)).
struct TermFeatures {
  uint64_t unigram = 0;
  uint32_t begin = 0;
  uint32_t count = 0;
  // The text being embedded when the term last occurred (Scratch::texts),
  // and its entry in that text's Scratch::firsts.
  uint64_t text = 0;
  uint32_t first = 0;
};

// A term's first occurrence in the text being embedded: the features its
// unigram and char 3-grams counted (Scratch::refs[begin, begin + count), as
// FeatureCounts indexes) and how often the term occurs.
struct FirstOccurrence {
  uint32_t begin;
  uint32_t count;
  uint32_t occurrences;
};

// Terms whose features one thread remembers (a vocabulary's worth); past
// it, the memory starts over.
constexpr size_t kRememberedTerms = 1 << 16;

struct Scratch {
  std::vector<size_t> starts;  // code point starts of one marked term
  std::string marked;
  FeatureCounts features;
  // Features by term, computed once per thread: the hashes depend on the
  // term alone (not on the tokenizer, the dimension or the text).
  FlatStringMap<TermFeatures> terms;
  std::vector<uint64_t> grams;
  std::vector<uint32_t> token_terms;  // per token of the text: its index in `terms`
  uint64_t texts = 0;                 // texts embedded on this thread
  std::vector<FirstOccurrence> firsts;
  std::vector<uint32_t> refs;
};

// One per thread, shared by every embedder on it (the features of a term
// do not depend on the embedder).
Scratch& ThisThreadsScratch() {
  thread_local Scratch scratch;
  return scratch;
}

class HashingEmbedder final : public Embedder {
 public:
  HashingEmbedder(std::unique_ptr<Tokenizer> tokenizer, int dimension)
      : tokenizer_(std::move(tokenizer)),
        dimension_(dimension),
        model_(fmt::format("skald-hash-v1[{}]", tokenizer_->Name())) {}

  std::string provider() const override { return "hashing"; }
  bool lexical() const override { return true; }
  bool worth_caching() const override { return false; }
  std::string model() const override { return model_; }
  int Dimension() const override { return dimension_; }

  Result<std::vector<std::vector<float>>> Embed(std::span<const std::string> texts,
                                                EmbedKind) override {
    Scratch& scratch = ThisThreadsScratch();
    std::vector<std::vector<float>> out;
    out.reserve(texts.size());
    for (const std::string& text : texts) {
      out.push_back(EmbedOne([&](TermSink* sink) { tokenizer_->ForEachTerm(text, sink); },
                             &scratch));
    }
    return out;
  }

  const Tokenizer* document_tokenizer() const override { return tokenizer_.get(); }

  Result<std::vector<float>> EmbedTerms(const TermList& terms) override {
    return EmbedOne([&](TermSink* sink) { terms.Replay(sink); }, &ThisThreadsScratch());
  }

 private:
  // Appends the char 3-gram hashes of `term` (with boundary marks) to
  // s->grams.
  static void CharGrams(Scratch* s, std::string_view term) {
    s->marked.resize(term.size() + 2);
    s->marked.front() = '<';
    std::copy(term.begin(), term.end(), s->marked.begin() + 1);
    s->marked.back() = '>';
    s->starts.clear();
    for (size_t i = 0; i < s->marked.size();) {
      s->starts.push_back(i);
      i += Utf8SeqLen(static_cast<unsigned char>(s->marked[i]));
    }
    const size_t n = s->starts.size();
    if (n <= static_cast<size_t>(kCharGram)) {
      s->grams.push_back(FeatureHash(s->marked, kCharSeed));
      return;
    }
    for (size_t i = 0; i + kCharGram <= n; ++i) {
      const size_t begin = s->starts[i];
      const size_t end = i + kCharGram < n ? s->starts[i + kCharGram] : s->marked.size();
      s->grams.push_back(
          FeatureHash(std::string_view(s->marked).substr(begin, end - begin), kCharSeed));
    }
  }

  // The index in s->terms of `term`'s features, computed at its first use.
  static uint32_t FeaturesOf(Scratch* s, std::string_view term) {
    bool inserted = false;
    const size_t index = s->terms.Insert(term, &inserted);
    if (inserted) {
      TermFeatures& f = s->terms.Value(index);
      f.unigram = FeatureHash(term, kUnigramSeed);
      f.begin = static_cast<uint32_t>(s->grams.size());
      CharGrams(s, term);
      f.count = static_cast<uint32_t>(s->grams.size() - f.begin);
    }
    return static_cast<uint32_t>(index);
  }

  // The vector of the text whose terms `each_term(sink)` gives the sink.
  template <typename EachTerm>
  std::vector<float> EmbedOne(EachTerm&& each_term, Scratch* s) const {
    std::vector<float> vec(static_cast<size_t>(dimension_), 0.0f);
    s->features.Clear();
    if (s->terms.size() > kRememberedTerms) {
      s->terms.clear();
      s->grams.clear();
    }
    // Each token's features, by index in s->terms (no string per token).
    struct Sink final : TermSink {
      explicit Sink(Scratch* scratch) : s(scratch) {}
      void Term(std::string_view term) override { s->token_terms.push_back(FeaturesOf(s, term)); }
      Scratch* s;
    } sink(s);
    s->token_terms.clear();
    each_term(&sink);
    const size_t tokens = s->token_terms.size();
    // Per token: its unigram, the bigram with the next token, its char
    // 3-grams (this order of first counts fixes the float sums below). A
    // term seen before in the text adds only its bigram here: its unigram
    // and 3-grams were counted at its first occurrence, and get the counts
    // of its later ones at the end, in one addition each (the same counts,
    // features in the same order).
    const uint64_t text = ++s->texts;
    s->firsts.clear();
    s->refs.clear();
    for (size_t i = 0; i < tokens; ++i) {
      TermFeatures& f = s->terms.Value(s->token_terms[i]);
      const bool first = f.text != text;
      const auto refs_begin = static_cast<uint32_t>(s->refs.size());
      if (first) {
        f.text = text;
        f.first = static_cast<uint32_t>(s->firsts.size());
        s->refs.push_back(s->features.Add(f.unigram, kUnigramWeight));
      } else {
        ++s->firsts[f.first].occurrences;
      }
      if (i + 1 < tokens) {
        const uint64_t next = s->terms.Value(s->token_terms[i + 1]).unigram;
        s->features.Add(Mix(f.unigram * 31 + next + kBigramSeed), kBigramWeight);
      }
      if (!first) continue;
      for (uint32_t g = f.begin; g < f.begin + f.count; ++g) {
        s->refs.push_back(s->features.Add(s->grams[g], kCharWeight));
      }
      s->firsts.push_back(FirstOccurrence{
          refs_begin, static_cast<uint32_t>(s->refs.size()) - refs_begin, 1});
    }
    for (const FirstOccurrence& o : s->firsts) {
      if (o.occurrences == 1) continue;
      for (uint32_t r = o.begin; r < o.begin + o.count; ++r) {
        s->features.AddCount(s->refs[r], o.occurrences - 1);
      }
    }
    double norm2 = 0;
    s->features.ForEach([&](uint64_t hash, uint32_t tf, float weight) {
      const float value = tf == 1 ? weight : weight * (1.0f + std::log(static_cast<float>(tf)));
      // Bucket from the high bits (multiply-shift), sign from the lowest bit.
      const size_t bucket =
          static_cast<size_t>(((hash >> 32) * static_cast<uint64_t>(dimension_)) >> 32);
      vec[bucket] += (hash & 1) ? -value : value;
    });
    for (float v : vec) norm2 += static_cast<double>(v) * v;
    if (norm2 > 0) {
      const float inv = static_cast<float>(1.0 / std::sqrt(norm2));
      for (float& v : vec) v *= inv;
    }
    return vec;
  }

  const std::unique_ptr<Tokenizer> tokenizer_;
  const int dimension_;
  const std::string model_;
};

}  // namespace

uint64_t FeatureHash(std::string_view data, uint64_t seed) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  const size_t n = data.size();
  uint64_t h = seed ^ (n * 0x9E3779B97F4A7C15ull);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    h ^= Mix(Load64(p + i));
    h = h * 0x100000001B3ull + 0x632BE59BD9B4E019ull;
  }
  uint64_t tail = 0;
  for (size_t j = n; j > i; --j) tail = (tail << 8) | p[j - 1];
  h ^= Mix(tail ^ 0xA0761D6478BD642Full);
  return Mix(h);
}

Status HashingEmbedderOptions::Validate() const {
  if (dimension < 16 || dimension > 8192) {
    return Status::InvalidArgument(
        fmt::format("hashing embedder dimension must be between 16 and 8192, got {}", dimension));
  }
  return Status::Ok();
}

Result<std::unique_ptr<Embedder>> NewHashingEmbedder(std::unique_ptr<Tokenizer> tokenizer,
                                                     const HashingEmbedderOptions& options) {
  SKALD_RETURN_IF_ERROR(options.Validate());
  if (!tokenizer) return Status::InvalidArgument("hashing embedder needs a tokenizer");
  return std::unique_ptr<Embedder>(
      std::make_unique<HashingEmbedder>(std::move(tokenizer), options.dimension));
}

Result<std::unique_ptr<Embedder>> NewDefaultHashingEmbedder(const HashingEmbedderOptions& options) {
  SKALD_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tokenizer, NewIcuTokenizer());
  return NewHashingEmbedder(std::move(tokenizer), options);
}

}  // namespace skald
