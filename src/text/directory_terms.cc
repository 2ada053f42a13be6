#include "text/directory_terms.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string_view>
#include <unordered_set>

#include <fmt/format.h>

#include "common/strings.h"
#include "text/sentences.h"
#include "text/term_group.h"
#include "text/text_util.h"

namespace skald {

namespace {

// RankDirectoryWords over the texts of `group`, whose terms' document
// frequencies in `background` are `df` (computed here when empty).
DirectoryWords RankGroupWords(const TermGroup& group, const TermStatistics* background,
                              std::span<const uint32_t> df) {
  const size_t texts = group.texts();
  const bool use_background = background != nullptr && background->documents() >= texts;
  const double n = use_background ? static_cast<double>(background->documents())
                                  : static_cast<double>(texts);
  std::vector<uint32_t> own_df;
  if (use_background && df.size() != group.size()) {
    own_df = group.DocumentFrequencies(*background);
    df = own_df;
  }
  // By term index; only words (no bigram: their words count) are scored.
  std::vector<double> idf(group.size(), 0), total(group.size(), 0);
  for (size_t k = 0; k < group.size(); ++k) {
    if (!group.IsWord(k)) continue;
    double held = static_cast<double>(group.Held(k));
    double term_df = use_background ? std::max<double>(held, df[k]) : held;
    idf[k] = std::log((n + 1) / (term_df + 0.5)) + (use_background ? 0 : 1);
  }
  // Each entry's words with their scores; the directory's score sums them.
  std::vector<std::vector<std::pair<double, size_t>>> per_entry(texts);
  for (size_t e = 0; e < texts; ++e) {
    for (const TermGroup::TextTermRef& t : group.TermsOf(e)) {
      if (!group.IsWord(t.term)) continue;
      // A word in more than about a third of the background tells nothing
      // apart (with no background every idf is above 1).
      if (idf[t.term] < 1) continue;
      double score = (1 + std::log(static_cast<double>(std::max<uint32_t>(t.count, 1)))) *
                     idf[t.term] * idf[t.term] * (t.in_lead ? kLeadWordWeight : 1);
      per_entry[e].push_back({score, t.term});
      total[t.term] += score;
    }
  }
  std::vector<size_t> order;
  for (size_t k = 0; k < group.size(); ++k) {
    if (total[k] > 0) order.push_back(k);
  }
  // Deterministic: score, then first occurrence (term indices are in the
  // order of first occurrence).
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (total[a] != total[b]) return total[a] > total[b];
    return a < b;
  });
  DirectoryWords out;
  std::vector<size_t> rank(group.size(), 0);
  out.keys.reserve(order.size());
  out.display.reserve(order.size());
  for (size_t r = 0; r < order.size(); ++r) {
    rank[order[r]] = r;
    out.keys.emplace_back(group.Key(order[r]));
    // The spelling used most; ties to the smallest, for determinism.
    out.display.emplace_back(group.WordSpelling(order[r]));
  }
  out.entries.resize(texts);
  for (size_t e = 0; e < per_entry.size(); ++e) {
    auto& list = per_entry[e];
    std::sort(list.begin(), list.end(), [&](const auto& a, const auto& b) {
      if (a.first != b.first) return a.first > b.first;
      return rank[a.second] < rank[b.second];
    });
    out.entries[e].reserve(list.size());
    for (const auto& [score, word] : list) out.entries[e].push_back(rank[word]);
  }
  return out;
}

}  // namespace

DirectoryWords RankDirectoryWords(std::span<const std::vector<TextTerm>> entry_terms,
                                  std::span<const std::vector<TextTerm>> lead_terms,
                                  const TermStatistics* background) {
  TermGroup group;
  for (size_t e = 0; e < entry_terms.size(); ++e) {
    group.AddText(entry_terms[e]);
    if (e < lead_terms.size()) group.MarkLead(lead_terms[e]);
  }
  return RankGroupWords(group, background, {});
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

// An entry's name as its text starts: the extension of a file dropped, '_'
// and '-' as spaces.
std::string EntryName(const EntrySummary& e) {
  std::string name = OneLine(e.name);
  std::replace_if(name.begin(), name.end(), [](char c) { return c == '_' || c == '-'; }, ' ');
  if (size_t dot = name.rfind('.'); !e.is_dir && dot != std::string::npos && dot > 0) {
    name.resize(dot);
  }
  return name;
}

}  // namespace

FileEntryScan ScanFileEntry(std::string_view name, std::string_view summary,
                            bool with_summary_terms) {
  thread_local TermScanner scan, lead_scan;
  const std::string entry_name = EntryName(EntrySummary{std::string(name), false, ""});
  // The entry's text as DirectoryTopicsOf scans it; its summary starts at
  // `mark`, and its terms from there on are the summary's own (a ". "
  // joins no bigram, so the summary scans to the same terms alone).
  std::string text = entry_name + ". ";
  const size_t mark = text.size();
  text.append(summary);
  // The lead is the name and the summary's first sentence (collapsed).
  // When collapsing changes nothing and the sentence ends at a space (or
  // the end), the lead is a prefix of `text`, tokenized alike: the one scan
  // marks its terms (an occurrence within it). Else it is scanned apart.
  size_t lead_end = 0;
  if (IsCollapsedSpace(summary)) {
    const std::string_view first = FirstSentence(summary);
    if (summary.empty()) {
      lead_end = mark;
    } else if (!first.empty() && first.data() == summary.data() &&
               (first.size() == summary.size() || summary[first.size()] == ' ')) {
      lead_end = mark + first.size();
    }
  }
  scan.Scan(text, /*spellings=*/true, mark, lead_end);
  if (lead_end == 0) {
    lead_scan.Scan(entry_name + ". " + std::string(FirstSentence(CollapseSpace(summary))),
                   /*spellings=*/false);
  }
  FileEntryScan out;
  auto entry = std::make_shared<EntryTerms>();
  entry->terms.resize(scan.size());
  // Each term's key and shown spelling (unless the same), copied into one
  // buffer sized first.
  thread_local std::vector<std::string_view> displays;
  displays.resize(scan.size());
  size_t key_bytes = 0, all_bytes = 0;
  for (size_t k = 0; k < scan.size(); ++k) {
    const std::string_view key = scan.Key(k);
    displays[k] = scan.Display(k);
    if (displays[k].size() >= EntryTerms::kSameAsKey) displays[k] = key;  // see term_group.h
    all_bytes += key.size() + (displays[k] == key ? 0 : displays[k].size());
    if (scan.AfterMark(k)) key_bytes += key.size();
  }
  entry->bytes.resize(all_bytes);
  char* bytes = entry->bytes.data();
  size_t at = 0;
  for (size_t k = 0; k < scan.size(); ++k) {
    const std::string_view key = scan.Key(k);
    EntryTerms::Term& t = entry->terms[k];
    t.key_begin = static_cast<uint32_t>(at);
    t.key_size = static_cast<uint16_t>(key.size());
    std::memcpy(bytes + at, key.data(), key.size());
    at += key.size();
    if (displays[k] == key) {
      t.display_size = EntryTerms::kSameAsKey;
    } else {
      t.display_size = static_cast<uint16_t>(displays[k].size());
      std::memcpy(bytes + at, displays[k].data(), displays[k].size());
      at += displays[k].size();
    }
    t.count = scan.Count(k);
    t.in_lead = lead_end > 0 ? scan.InLead(k) : lead_scan.Contains(key, scan.HashAt(k));
  }
  // The summary's keys (TermStatistics::KeysOf of the summary, in another
  // order, which counting does not see).
  out.keys.bytes.reserve(key_bytes);
  for (size_t k = 0; k < scan.size(); ++k) {
    if (!scan.AfterMark(k)) continue;
    out.keys.bytes.append(scan.Key(k));
    out.keys.ends.push_back(static_cast<uint32_t>(out.keys.bytes.size()));
    out.keys.hashes.push_back(scan.HashAt(k));
  }
  out.bytes = sizeof(EntryTerms) + entry->bytes.capacity() +
              entry->terms.capacity() * sizeof(EntryTerms::Term);
  // The summary's own terms, for its record's lexical abstract: those of the
  // tokens from `mark` on. The ". " before them breaks every word, and a
  // summary that starts with an ASCII letter or digit is segmented from
  // there as it is alone (no rule of word breaking reaches across the space).
  if (with_summary_terms && !summary.empty() &&
      (IsAsciiAlpha(summary[0]) || IsAsciiDigit(summary[0]))) {
    out.summary_terms = scan.TermsFrom(mark);
  }
  out.entry = std::move(entry);
  return out;
}

DirectoryTopics DirectoryTopicsOf(std::span<const EntrySummary> all,
                                  std::span<const std::string> leads,
                                  const TermStatistics* background,
                                  std::span<const EntryTerms* const> scanned) {
  // Each entry's text is scanned once, into one group that both the
  // keyphrases and the words are ranked from; each term's document
  // frequency is looked up once.
  thread_local TermScanner scan, lead_scan;
  TermGroup group;
  size_t scanned_terms = 0;
  for (const EntryTerms* entry : scanned) scanned_terms += entry ? entry->terms.size() : 0;
  group.Reserve(all.size(), scanned_terms);
  std::string name, text;
  for (size_t i = 0; i < all.size(); ++i) {
    if (i < scanned.size() && scanned[i] != nullptr) {
      group.AddEntry(*scanned[i]);
      continue;
    }
    const EntrySummary& e = all[i];
    name = EntryName(e);
    text.assign(name).append(". ").append(e.summary);
    scan.Scan(text, /*spellings=*/true);
    group.AddText(scan);
    text.assign(name).append(". ").append(i < leads.size() ? std::string_view(leads[i]) : "");
    lead_scan.Scan(text, /*spellings=*/false);
    group.MarkLead(lead_scan);
  }
  std::vector<uint32_t> df;
  if (background != nullptr && background->documents() >= all.size()) {
    df = group.DocumentFrequencies(*background);
  }
  DirectoryTopics topics;
  topics.phrases = RankGroupKeyphrases(group, background, df, kDirectoryKeyphrases);
  if (topics.phrases.empty()) return topics;
  // "Covers " and the final "." take 8 characters.
  std::string list = PhraseList(topics.phrases, 0, kAbstractMaxChars - 8, &topics.in_brief);
  if (topics.in_brief == 0) return DirectoryTopics{};
  topics.brief = "Covers " + list + ".";
  for (const TextTerm& t : ExtractTerms(list)) {
    if (t.key.find(' ') == std::string::npos) topics.brief_keys.insert(t.key);
  }
  topics.words = RankGroupWords(group, background, df);
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
