#include "text/directory_terms.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_set>

#include <fmt/format.h>

#include "common/strings.h"
#include "text/flat_string_map.h"
#include "text/text_util.h"

namespace skald {

DirectoryWords RankDirectoryWords(std::span<const std::vector<TextTerm>> entry_terms,
                                  std::span<const std::vector<TextTerm>> lead_terms,
                                  const TermStatistics* background) {
  struct Word {
    std::vector<std::pair<std::string, uint32_t>> forms;  // spelling, count
    size_t held = 0;
    double score = 0;
  };
  // By key, in order of first occurrence (the insertion index).
  FlatStringMap<Word> words;
  for (const std::vector<TextTerm>& terms : entry_terms) {
    for (const TextTerm& t : terms) {
      if (t.key.find(' ') != std::string::npos) continue;  // bigrams: their words count
      Word& w = words[t.key];
      auto form = std::find_if(w.forms.begin(), w.forms.end(),
                               [&](const auto& f) { return f.first == t.display; });
      if (form == w.forms.end()) {
        w.forms.emplace_back(t.display, t.count);
      } else {
        form->second += t.count;
      }
      ++w.held;
    }
  }
  const bool use_background = background != nullptr && background->documents() >= entry_terms.size();
  const double n = use_background ? static_cast<double>(background->documents())
                                  : static_cast<double>(entry_terms.size());
  std::vector<double> idf(words.size());
  for (size_t i = 0; i < words.size(); ++i) {
    double held = static_cast<double>(words.Value(i).held);
    double df = use_background ? std::max<double>(held, background->DocumentFrequency(words.Key(i)))
                               : held;
    idf[i] = std::log((n + 1) / (df + 0.5)) + (use_background ? 0 : 1);
  }
  // Each entry's words with their scores; the directory's score sums them.
  std::vector<std::vector<std::pair<double, size_t>>> per_entry(entry_terms.size());
  std::vector<std::string_view> lead;  // sorted
  for (size_t e = 0; e < entry_terms.size(); ++e) {
    lead.clear();
    if (e < lead_terms.size()) {
      for (const TextTerm& t : lead_terms[e]) lead.push_back(t.key);
    }
    std::sort(lead.begin(), lead.end());
    for (const TextTerm& t : entry_terms[e]) {
      if (t.key.find(' ') != std::string::npos) continue;  // not a word
      bool inserted = false;
      const size_t i = words.Insert(t.key, &inserted);  // there already (the loop above)
      if (inserted || i >= idf.size()) continue;        // never: kept in step with it
      // A word in more than about a third of the background tells nothing
      // apart (with no background every idf is above 1).
      if (idf[i] < 1) continue;
      const bool in_lead = std::binary_search(lead.begin(), lead.end(), std::string_view(t.key));
      double score = (1 + std::log(static_cast<double>(std::max<uint32_t>(t.count, 1)))) *
                     idf[i] * idf[i] * (in_lead ? kLeadWordWeight : 1);
      per_entry[e].push_back({score, i});
      words.Value(i).score += score;
    }
  }
  std::vector<size_t> order;
  for (size_t i = 0; i < words.size(); ++i) {
    if (words.Value(i).score > 0) order.push_back(i);
  }
  // Deterministic: score, then first occurrence.
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (words.Value(a).score != words.Value(b).score) {
      return words.Value(a).score > words.Value(b).score;
    }
    return a < b;
  });
  DirectoryWords out;
  std::vector<size_t> rank(words.size(), 0);
  for (size_t r = 0; r < order.size(); ++r) {
    Word& w = words.Value(order[r]);
    rank[order[r]] = r;
    out.keys.emplace_back(words.Key(order[r]));
    // The spelling used most; ties to the smallest, for determinism.
    auto best = std::min_element(w.forms.begin(), w.forms.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    out.display.push_back(best->first);
  }
  out.entries.resize(entry_terms.size());
  for (size_t e = 0; e < per_entry.size(); ++e) {
    auto& list = per_entry[e];
    std::sort(list.begin(), list.end(), [&](const auto& a, const auto& b) {
      if (a.first != b.first) return a.first > b.first;
      return rank[a.second] < rank[b.second];
    });
    for (const auto& [score, word] : list) out.entries[e].push_back(rank[word]);
  }
  return out;
}

std::string SalientWordList(const DirectoryWords& words, size_t max_chars,
                            std::unordered_set<std::string>* said) {
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < words.keys.size(); ++i) {
    if (said->count(words.keys[i])) continue;
    size_t add = Utf8Length(words.display[i]) + (out.empty() ? 0 : 2);
    if (chars + add > max_chars) break;
    if (!out.empty()) out += ", ";
    out += words.display[i];
    chars += add;
    said->insert(words.keys[i]);
  }
  return out;
}

std::string EntryWordGroups(const DirectoryWords& words, size_t max_chars,
                            std::unordered_set<std::string>* said) {
  const size_t n = words.entries.size();
  std::vector<std::vector<size_t>> chosen(n);
  std::vector<size_t> next(n, 0);
  // The rendered length: each word with ", " or "; " before it but the first.
  size_t chars = 0;
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t e = 0; e < n; ++e) {
      const std::vector<size_t>& list = words.entries[e];
      size_t& k = next[e];
      while (k < list.size() && said->count(words.keys[list[k]])) ++k;
      if (k == list.size()) continue;
      size_t add = Utf8Length(words.display[list[k]]) + (chars == 0 ? 0 : 2);
      if (chars + add > max_chars) {
        k = list.size();  // this entry's words are too long now; others may fit
        continue;
      }
      chosen[e].push_back(list[k]);
      said->insert(words.keys[list[k]]);
      chars += add;
      ++k;
      progress = true;
    }
  }
  std::string out;
  for (const std::vector<size_t>& group : chosen) {
    if (group.empty()) continue;
    if (!out.empty()) out += "; ";
    for (size_t j = 0; j < group.size(); ++j) {
      if (j > 0) out += ", ";
      out += words.display[group[j]];
    }
  }
  return out;
}

namespace {

// Keyphrases ranked per directory.
constexpr size_t kDirectoryKeyphrases = 200;
// `## Where to Look` maps this many leading topics to at most
// kWhereEntries entries each.
constexpr size_t kWhereTopics = 5;
constexpr size_t kWhereEntries = 3;

// "a, b, c" of phrases[first..] within `max_chars` (whole phrases);
// `*next` gets the index of the first phrase left out.
std::string PhraseList(const std::vector<Keyphrase>& phrases, size_t first, size_t max_chars,
                       size_t* next) {
  std::string out;
  size_t i = first;
  for (; i < phrases.size(); ++i) {
    std::string phrase = OneLine(phrases[i].text);
    if (Utf8Length(out) + Utf8Length(phrase) + (out.empty() ? 0 : 2) > max_chars) break;
    if (!out.empty()) out += ", ";
    out += phrase;
  }
  *next = i;
  return out;
}

}  // namespace

DirectoryTopics DirectoryTopicsOf(std::span<const EntrySummary> all,
                                  std::span<const std::string> leads,
                                  const TermStatistics* background) {
  std::vector<std::vector<TextTerm>> terms, lead_terms;
  terms.reserve(all.size());
  lead_terms.reserve(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    const EntrySummary& e = all[i];
    std::string name = OneLine(e.name);
    std::replace_if(name.begin(), name.end(), [](char c) { return c == '_' || c == '-'; }, ' ');
    if (size_t dot = name.rfind('.'); !e.is_dir && dot != std::string::npos && dot > 0) {
      name.resize(dot);
    }
    terms.push_back(ExtractTerms(name + ". " + e.summary));
    lead_terms.push_back(ExtractTerms(name + ". " + (i < leads.size() ? leads[i] : "")));
  }
  DirectoryTopics topics;
  topics.phrases = RankKeyphrasesOfTerms(terms, background, kDirectoryKeyphrases);
  if (topics.phrases.empty()) return topics;
  // "Covers " and the final "." take 8 characters.
  std::string list = PhraseList(topics.phrases, 0, kAbstractMaxChars - 8, &topics.in_brief);
  if (topics.in_brief == 0) return DirectoryTopics{};
  topics.brief = "Covers " + list + ".";
  for (const TextTerm& t : ExtractTerms(list)) {
    if (t.key.find(' ') == std::string::npos) topics.brief_keys.insert(t.key);
  }
  topics.words = RankDirectoryWords(terms, lead_terms, background);
  return topics;
}

std::string TopicSections(const DirectoryTopics& topics, std::span<const EntrySummary> all,
                          size_t topics_chars, size_t where_chars, size_t entry_chars) {
  std::string out;
  std::unordered_set<std::string> said = topics.brief_keys;
  if (std::string more = SalientWordList(topics.words, topics_chars, &said); !more.empty()) {
    out += "\n\n## Topics\n\nAlso: " + more + ".";
  }
  if (all.size() > 1 && where_chars > 0) {
    std::string where;
    for (size_t i = 0; i < topics.phrases.size() && i < kWhereTopics; ++i) {
      const std::vector<size_t>& sources = topics.phrases[i].sources;
      std::string line = "\n- " + OneLine(topics.phrases[i].text) + ": ";
      for (size_t j = 0; j < sources.size() && j < kWhereEntries; ++j) {
        const EntrySummary& e = all[sources[j]];
        line += (j > 0 ? ", " : "") + OneLine(e.name) + (e.is_dir ? "/" : "");
      }
      if (sources.size() > kWhereEntries) {
        line += fmt::format(" and {} more", sources.size() - kWhereEntries);
      }
      if (Utf8Length(where) + Utf8Length(line) > where_chars) break;
      where += line;
    }
    if (!where.empty()) out += "\n\n## Where to Look\n" + where;
  }
  if (all.size() > 1 && entry_chars > 0) {
    if (std::string groups = EntryWordGroups(topics.words, entry_chars, &said); !groups.empty()) {
      out += "\n\n## Entry Keywords\n\nWhat else each entry is about, entry by entry in "
             "listing order: " + groups + ".";
    }
  }
  return out;
}

}  // namespace skald
