#pragma once

// Synthetic text for the benchmarks that need a corpus (ingest_bench,
// find_bench): a fixed vocabulary of made-up words and a Zipf-like pick, so
// BM25 and the hashing embedder see realistic term statistics.

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace skald::bench {

// `n` words of 2 to 4 syllables, the same for every run.
inline std::vector<std::string> Vocabulary(size_t n) {
  static const char* kSyllables[] = {"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo",
                                     "ze", "pa", "qu", "ex", "dra", "fen", "gor", "hil"};
  std::vector<std::string> words;
  std::mt19937_64 rng(7);
  while (words.size() < n) {
    std::string w;
    int parts = 2 + static_cast<int>(rng() % 3);
    for (int i = 0; i < parts; ++i) w += kSyllables[rng() % 16];
    words.push_back(w);
  }
  return words;
}

// Zipf-like pick in [0, n): low indexes are common, high ones rare.
inline size_t Pick(std::mt19937_64& rng, size_t n) {
  double u = std::uniform_real_distribution<double>(0, 1)(rng);
  return std::min(n - 1, static_cast<size_t>(std::pow(static_cast<double>(n), u)) - 1);
}

}  // namespace skald::bench
