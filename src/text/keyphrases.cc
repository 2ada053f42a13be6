// Keyphrases of a group of texts (keyphrases.h).

#include "text/keyphrases.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "text/flat_string_map.h"
#include "text/term_group.h"

namespace skald {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Weight of a term by kind: a bigram said twice or more is a phrase (1.5);
// one said once is as likely a chance pairing and ranks below its words.
double PhraseFactor(std::string_view key, uint32_t count) {
  if (key.find(' ') == std::string_view::npos) return 1.0;
  return count >= 2 ? 1.5 : 0.75;
}

// A term with its score, before selection; `index` is the caller's.
struct Scored {
  double score = 0;
  uint32_t count = 0;  // occurrences over the texts
  size_t first = 0;    // order of first occurrence over the texts (distinct)
  size_t index = 0;
};

// The best `limit` of `scored` under the dropping and tie rules of
// RankKeyphrases. `key_of(index)` is a term's key, `held_of(index)` how
// many texts hold it, and `phrase_of(index, score)` makes its Keyphrase
// (only for the terms looked at).
template <typename KeyOf, typename HeldOf, typename PhraseOf>
std::vector<Keyphrase> Select(std::vector<Scored> scored, size_t limit, const KeyOf& key_of,
                              const HeldOf& held_of, const PhraseOf& phrase_of) {
  auto before = [](const Scored& a, const Scored& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.count != b.count) return a.count > b.count;
    return a.first < b.first;
  };
  std::vector<Keyphrase> out;
  FlatStringMap<size_t> covered;  // unigram key -> most texts of a chosen bigram holding it
  FlatStringMap<char> shown;      // lower-cased spellings already chosen
  // Sorted only as far as it is read, a stretch at a time (`first` is
  // distinct, so the order is total and each stretch is what a full sort
  // puts there).
  size_t sorted = 0;
  for (size_t i = 0; i < scored.size() && out.size() < limit; ++i) {
    if (i == sorted) {
      size_t stretch = std::max(sorted, limit < scored.size() ? 2 * limit + 16 : scored.size());
      size_t end = std::min(scored.size(), sorted + stretch);
      if (end < scored.size()) {
        std::nth_element(scored.begin() + sorted, scored.begin() + end, scored.end(), before);
      }
      std::sort(scored.begin() + sorted, scored.begin() + end, before);
      sorted = end;
    }
    const Scored& s = scored[i];
    std::string_view key = key_of(s.index);
    size_t held = held_of(s.index);
    size_t space = key.find(' ');
    if (space == std::string_view::npos) {
      const size_t* most = covered.Find(key);
      if (most != nullptr && *most >= held) continue;
    } else {
      for (std::string_view part : {key.substr(0, space), key.substr(space + 1)}) {
        size_t& most = covered[part];
        most = std::max(most, held);
      }
    }
    Keyphrase phrase = phrase_of(s.index, s.score);
    bool inserted = false;
    shown.Insert(Lower(phrase.text), &inserted);
    if (!inserted) continue;
    out.push_back(std::move(phrase));
  }
  return out;
}

// The term scanner of the calling thread for ExtractTerms and
// TermStatistics (not for callers holding its result across them).
TermScanner& ThreadScanner() {
  thread_local TermScanner scanner;
  return scanner;
}

}  // namespace

std::vector<TextTerm> ExtractTerms(std::string_view text) {
  TermScanner& scan = ThreadScanner();
  scan.Scan(text, true);
  std::vector<TextTerm> out;
  out.reserve(scan.size());
  for (size_t i = 0; i < scan.size(); ++i) {
    out.push_back({std::string(scan.Key(i)), std::string(scan.Display(i)), scan.Count(i)});
  }
  return out;
}

template <typename KeyAt, typename HashAt>
void TermStatistics::CountDocument(size_t n, const KeyAt& key, const HashAt& hash) {
  ++documents_;
  // No slot moves while the document is counted, so the slots and keys
  // prefetched for a batch are the ones its inserts read.
  frequency_.Reserve(frequency_.size() + n);
  constexpr size_t kBatch = 16;
  for (size_t begin = 0; begin < n; begin += kBatch) {
    const size_t end = std::min(n, begin + kBatch);
    for (size_t i = begin; i < end; ++i) frequency_.Prefetch(hash(i));
    for (size_t i = begin; i < end; ++i) frequency_.PrefetchKey(hash(i));
    for (size_t i = begin; i < end; ++i) ++frequency_.Value(frequency_.Insert(key(i), hash(i)));
  }
}

void TermStatistics::Add(std::string_view text) {
  TermScanner& scan = ThreadScanner();
  scan.Scan(text, false);
  CountDocument(
      scan.size(), [&](size_t i) { return scan.Key(i); }, [&](size_t i) { return scan.HashAt(i); });
}

void TermStatistics::Add(const TermKeys& keys) {
  const size_t n = keys.ends.size();
  std::vector<std::string_view> views(n);
  size_t begin = 0;
  for (size_t i = 0; i < n; ++i) {
    views[i] = std::string_view(keys.bytes).substr(begin, keys.ends[i] - begin);
    begin = keys.ends[i];
  }
  if (keys.hashes.size() == n) {
    CountDocument(
        n, [&](size_t i) { return views[i]; }, [&](size_t i) { return keys.hashes[i]; });
  } else {
    CountDocument(
        n, [&](size_t i) { return views[i]; },
        [&](size_t i) { return FlatStringMap<uint32_t>::Hash(views[i]); });
  }
}

void TermStatistics::Merge(TermStatistics&& other) {
  documents_ += other.documents_;
  other.documents_ = 0;
  if (other.frequency_.size() > 0) merged_.push_back(std::move(other.frequency_));
  for (FlatStringMap<uint32_t>& part : other.merged_) merged_.push_back(std::move(part));
  other.frequency_ = FlatStringMap<uint32_t>();
  other.merged_.clear();
}

TermKeys TermStatistics::KeysOf(std::string_view text) {
  TermScanner& scan = ThreadScanner();
  scan.Scan(text, false);
  TermKeys keys;
  size_t bytes = 0;
  for (size_t i = 0; i < scan.size(); ++i) bytes += scan.Key(i).size();
  keys.bytes.reserve(bytes);
  keys.ends.reserve(scan.size());
  keys.hashes.reserve(scan.size());
  for (size_t i = 0; i < scan.size(); ++i) {
    keys.bytes.append(scan.Key(i));
    keys.ends.push_back(static_cast<uint32_t>(keys.bytes.size()));
    keys.hashes.push_back(scan.HashAt(i));
  }
  return keys;
}

uint32_t TermStatistics::DocumentFrequency(std::string_view key) const {
  const uint64_t hash = FlatStringMap<uint32_t>::Hash(key);
  const uint32_t* n = frequency_.Find(key, hash);
  uint32_t total = n == nullptr ? 0 : *n;
  for (const FlatStringMap<uint32_t>& part : merged_) {
    if (const uint32_t* m = part.Find(key, hash)) total += *m;
  }
  return total;
}

void TermStatistics::DocumentFrequencies(std::span<const std::string_view> keys,
                                         std::span<const uint64_t> hashes,
                                         std::span<uint32_t> out) const {
  constexpr size_t kBatch = 16;
  for (size_t begin = 0; begin < keys.size(); begin += kBatch) {
    const size_t end = std::min(keys.size(), begin + kBatch);
    for (size_t i = begin; i < end; ++i) frequency_.Prefetch(hashes[i]);
    for (size_t i = begin; i < end; ++i) frequency_.PrefetchKey(hashes[i]);
    for (size_t i = begin; i < end; ++i) {
      const uint32_t* n = frequency_.Find(keys[i], hashes[i]);
      out[i] = n == nullptr ? 0 : *n;
    }
    for (const FlatStringMap<uint32_t>& part : merged_) {
      for (size_t i = begin; i < end; ++i) part.Prefetch(hashes[i]);
      for (size_t i = begin; i < end; ++i) part.PrefetchKey(hashes[i]);
      for (size_t i = begin; i < end; ++i) {
        if (const uint32_t* m = part.Find(keys[i], hashes[i])) out[i] += *m;
      }
    }
  }
}

std::vector<Keyphrase> RankGroupKeyphrases(const TermGroup& group,
                                           const TermStatistics* background,
                                           std::span<const uint32_t> df, size_t limit) {
  const size_t texts = group.texts();
  const bool use_background = background != nullptr && background->documents() >= texts;
  const double n = use_background ? static_cast<double>(background->documents())
                                  : static_cast<double>(texts);
  std::vector<uint32_t> own_df;
  if (use_background && df.size() != group.size()) {
    own_df = group.DocumentFrequencies(*background);
    df = own_df;
  }
  std::vector<Scored> scored;
  scored.reserve(group.size());
  for (size_t k = 0; k < group.size(); ++k) {
    std::string_view key = group.Key(k);
    double held = static_cast<double>(group.Held(k));
    double term_df = use_background ? std::max<double>(held, df[k]) : held;
    // Against siblings alone, a term every entry shares is what they are
    // about, not noise: the idf is smoothed so that it still counts.
    double idf = std::log((n + 1) / (term_df + 0.5)) + (use_background ? 0 : 1);
    if (idf <= 0) continue;
    // idf squared: a directory is told apart by what is rare elsewhere
    // (measured by bench/routing_eval: routing@3 0.620 with idf, 0.659 with
    // idf squared on the tune half).
    double score = held * PhraseFactor(key, group.Count(k)) * idf * idf;
    scored.push_back({score, group.Count(k), k + 1, k});
  }
  return Select(
      std::move(scored), limit, [&](size_t k) { return group.Key(k); },
      [&](size_t k) { return group.Held(k); },
      [&](size_t k, double score) {
        return Keyphrase{std::string(group.KeyphraseSpelling(k)), score, group.Sources(k)};
      });
}

std::vector<Keyphrase> RankKeyphrases(std::span<const std::string> texts,
                                      const TermStatistics* background, size_t limit) {
  TermGroup group;
  TermScanner& scan = ThreadScanner();
  for (const std::string& text : texts) {
    scan.Scan(text, true);
    group.AddText(scan);
  }
  return RankGroupKeyphrases(group, background, {}, limit);
}

std::vector<Keyphrase> RankKeyphrasesOfTerms(std::span<const std::vector<TextTerm>> texts,
                                             const TermStatistics* background, size_t limit) {
  TermGroup group;
  for (const std::vector<TextTerm>& terms : texts) group.AddText(terms);
  return RankGroupKeyphrases(group, background, {}, limit);
}

std::vector<Keyphrase> TextKeyphrases(std::string_view text, const TermStatistics* background,
                                      size_t limit) {
  std::vector<TextTerm> terms = ExtractTerms(text);
  const bool use_background = background != nullptr && background->documents() > 0;
  const double n = use_background ? static_cast<double>(background->documents()) : 0;
  std::vector<Scored> scored;
  size_t first = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    const TextTerm& term = terms[k];
    double score = 1 + std::log(static_cast<double>(term.count));
    if (use_background) {
      double df = std::max<double>(1, background->DocumentFrequency(term.key));
      score *= std::log((n + 1) / (df + 0.5));
      if (score <= 0) continue;
    }
    score *= PhraseFactor(term.key, term.count);
    scored.push_back({score, term.count, first++, k});
  }
  return Select(
      std::move(scored), limit, [&](size_t k) { return std::string_view(terms[k].key); },
      [](size_t) { return size_t{1}; },
      [&](size_t k, double score) {
        return Keyphrase{terms[k].display, score, {0}};
      });
}

}  // namespace skald
