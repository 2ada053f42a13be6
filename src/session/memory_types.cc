#include "session/memory_types.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <unordered_set>

#include "common/hash.h"
#include "common/strings.h"

namespace skald {
namespace {

constexpr std::array<std::pair<MemoryType, std::string_view>, 9> kNames = {{
    {MemoryType::kProfile, "profile"},
    {MemoryType::kPreferences, "preferences"},
    {MemoryType::kEntities, "entities"},
    {MemoryType::kEvents, "events"},
    {MemoryType::kCases, "cases"},
    {MemoryType::kPatterns, "patterns"},
    {MemoryType::kTools, "tools"},
    {MemoryType::kSkills, "skills"},
    {MemoryType::kIdentity, "identity"},
}};

// Function words that carry no fact: matching on them would make every two
// sentences look alike.
bool IsMatchStopWord(std::string_view w) {
  static const std::unordered_set<std::string_view> kStop = {
      "a",     "an",    "the",   "and",   "or",    "but",   "of",    "to",    "in",    "on",
      "at",    "for",   "with",  "by",    "from",  "is",    "are",   "was",   "were",  "be",
      "been",  "it",    "its",   "this",  "that",  "these", "those", "so",    "very",  "really",
      "just",  "as",    "i",     "me",    "my",    "we",    "our",   "us",    "you",   "your",
      "he",    "she",   "his",   "her",   "they",  "them",  "their", "s",     "m",     "ve",
      "d",     "ll",    "re",    "t",     "do",    "does",  "did",   "has",   "have",  "had",
      "am",    "will",  "would", "can",   "could", "about", "some",  "also",  "too",   "all"};
  return kStop.count(w) > 0;
}

}  // namespace

std::string_view MemoryTypeName(MemoryType type) {
  for (const auto& [t, name] : kNames) {
    if (t == type) return name;
  }
  return "profile";
}

bool ParseMemoryType(std::string_view name, MemoryType* out) {
  for (const auto& [t, n] : kNames) {
    if (n == name) {
      *out = t;
      return true;
    }
  }
  return false;
}

const std::vector<MemoryType>& AllMemoryTypes() {
  static const std::vector<MemoryType> kAll = [] {
    std::vector<MemoryType> v;
    for (const auto& [t, n] : kNames) v.push_back(t);
    return v;
  }();
  return kAll;
}

std::vector<std::string> MatchTerms(std::string_view text) {
  std::vector<std::string> out;
  std::string w;
  auto flush = [&]() {
    if (w.empty()) return;
    // Crude plural folding: "groups" and "group" match, "class" stays.
    if (w.size() > 3 && w.back() == 's' && w[w.size() - 2] != 's') w.pop_back();
    if (!IsMatchStopWord(w)) out.push_back(w);
    w.clear();
  };
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || u >= 0x80) {
      w.push_back(static_cast<char>(std::tolower(u)));
    } else {
      flush();
    }
  }
  flush();
  return out;
}

std::string NormalizeForMatch(std::string_view text) { return Join(MatchTerms(text), " "); }

std::string MemoryStableId(MemoryType type, std::string_view subject, std::string_view text) {
  std::string key(MemoryTypeName(type));
  key += '\n';
  key += NormalizeForMatch(subject);
  key += '\n';
  key += NormalizeForMatch(text);
  return Sha256Hex(key).substr(0, 16);
}

void AddQuotes(const std::vector<std::string>& from, std::vector<std::string>* into) {
  for (const std::string& quote : from) {
    if (quote.empty() || std::find(into->begin(), into->end(), quote) != into->end()) continue;
    into->push_back(quote);
  }
  if (into->size() > kMaxMemoryQuotes) {
    into->erase(into->begin(), into->end() - static_cast<std::ptrdiff_t>(kMaxMemoryQuotes));
  }
}

}  // namespace skald
