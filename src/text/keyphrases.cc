// Keyphrases of a group of texts (keyphrases.h).

#include "text/keyphrases.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <unordered_set>

#include "text/flat_string_map.h"
#include "text/tokenizer.h"

namespace skald {

namespace {

// Words that carry no topic: function words and the generic vocabulary of
// documents. Lower-case; matched against a word's lower-cased spelling.
const std::unordered_set<std::string_view>& KeyphraseStopWords() {
  static const std::unordered_set<std::string_view> kWords = {
      "about", "above", "across", "after", "again", "against", "all", "almost", "also",
      "although", "always", "among", "amongst", "and", "another", "any", "are", "around",
      "because", "been", "before", "being", "below", "between", "both", "but", "can",
      "cannot", "could", "did", "does", "doing", "done", "down", "during", "each", "either",
      "else", "enough", "even", "ever", "every", "few", "for", "from", "further", "had", "has",
      "have", "having", "her", "here", "hers", "herself", "him", "himself", "his", "how",
      "however", "into", "its", "itself", "just", "least", "less", "many", "may", "might",
      "more", "most", "much", "must", "neither", "never", "nor", "not", "now", "off", "often",
      "once", "one", "only", "onto", "other", "others", "otherwise", "our", "ours",
      "ourselves", "out", "over", "own", "per", "perhaps", "quite", "rather", "same", "several",
      "shall", "she", "should", "since", "some", "such", "than", "that", "the", "their",
      "theirs", "them", "themselves", "then", "there", "thereby", "therefore", "these", "they",
      "this", "those", "though", "through", "throughout", "thus", "too", "toward", "towards",
      "under", "until", "upon", "very", "via", "was", "were", "what", "whatever", "when",
      "where", "whereas", "whether", "which", "while", "who", "whom", "whose", "why", "will",
      "with", "within", "without", "would", "yet", "you", "your", "yours", "yourself",
      // Generic words of documents and reports.
      "use", "used", "uses", "using", "based", "well", "new", "show", "shows", "shown",
      "showed", "found", "find", "including", "include", "includes", "included", "two",
      "three", "four", "five", "first", "second", "third", "like", "make", "makes", "made",
      "get", "gets", "see", "seen", "way", "ways", "thing", "things", "part", "given", "give",
      "gives", "take", "takes", "set", "sets", "number", "result", "results", "example",
      "examples", "case", "cases", "note", "notes", "e.g", "i.e", "etc", "yes", "non",
      "related", "various", "different", "similar", "following", "describe", "describes",
      "described", "contains", "contain", "provide", "provides", "provided", "able", "need",
      "needs", "must", "want", "known", "whole", "overall", "general", "specific", "certain",
      "likely", "possible", "important", "significant", "significantly", "increased",
      "decreased", "higher", "lower", "large", "small", "level", "levels", "total", "data",
      "study", "studies", "studied", "report", "reports", "reported", "suggest", "suggests",
      "observed", "associated", "compared", "respectively", "present", "previously", "recent",
      "recently", "addition", "additional", "approach", "analysis", "effect", "effects",
      "role", "evidence", "demonstrate", "demonstrated", "investigated", "identified",
      "determine", "determined", "method", "methods", "conclusion", "conclusions",
      "background", "objective", "design", "setting", "participants", "main", "measures",
      "outcome", "outcomes", "entries", "entry", "file", "files", "directory", "directories",
      "contains", "topics", "summary", "covers"};
  return kWords;
}

const Tokenizer* SharedTokenizer() {
  static const std::unique_ptr<Tokenizer> tokenizer = [] {
    Result<std::unique_ptr<Tokenizer>> made = NewIcuTokenizer();
    return made.ok() ? std::move(*made) : nullptr;
  }();
  return tokenizer.get();
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsLower(std::string_view s) {
  return std::none_of(s.begin(), s.end(), [](char c) {
    return std::tolower(static_cast<unsigned char>(c)) != static_cast<unsigned char>(c);
  });
}

// Length of the longest keyphrase stop word: longer words are never one.
size_t LongestStopWord() {
  static const size_t longest = [] {
    size_t n = 0;
    for (std::string_view w : KeyphraseStopWords()) n = std::max(n, w.size());
    return n;
  }();
  return longest;
}

// A word that may be part of a keyphrase.
bool Salient(std::string_view surface) {
  if (surface.size() < 3) return false;
  size_t letters = 0, digits = 0;
  for (char c : surface) {
    if (std::isalpha(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80) {
      ++letters;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      ++digits;
    }
  }
  // "p53" and "covid19" name things; "e1000" and "2024" number them.
  if (letters == 0 || digits > letters + 1) return false;
  // Hex ids such as the hash a memory's file name ends with ("afc1dbf8")
  // name a file, not a topic.
  if (digits > 0 && surface.size() >= 6 &&
      std::all_of(surface.begin(), surface.end(),
                  [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; })) {
    return false;
  }
  if (surface.size() > LongestStopWord()) return true;
  char lower[64];
  for (size_t i = 0; i < surface.size(); ++i) {
    lower[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(surface[i])));
  }
  return !KeyphraseStopWords().count(std::string_view(lower, surface.size()));
}

// Spellings of one term with their counts, in order of first occurrence.
using Forms = std::vector<std::pair<std::string, uint32_t>>;

void AddForm(Forms* forms, std::string_view form, uint32_t count) {
  for (auto& [f, n] : *forms) {
    if (f == form) {
      n += count;
      return;
    }
  }
  forms->emplace_back(form, count);
}

// The most frequent spelling; ties go to the lower-case, then the smaller.
const std::string& Best(Forms* forms) {
  static const std::string kNone;
  if (forms->size() == 1) return forms->front().first;
  std::sort(forms->begin(), forms->end());
  const std::string* best = nullptr;
  uint32_t top = 0;
  for (const auto& [form, n] : *forms) {
    bool better = n > top || (n == top && IsLower(form) && !IsLower(*best));
    if (better) best = &form, top = n;
  }
  return best ? *best : kNone;
}

// Weight of a term by kind: a bigram said twice or more is a phrase (1.5);
// one said once is as likely a chance pairing and ranks below its words.
double PhraseFactor(std::string_view key, uint32_t count) {
  if (key.find(' ') == std::string_view::npos) return 1.0;
  return count >= 2 ? 1.5 : 0.75;
}

// One distinct term of a text while it is scanned.
struct TermCount {
  uint32_t count = 0;
  Forms forms;  // empty when the spellings are not wanted
};

// Counts the terms of `text` into `terms` (cleared first), in order of first
// occurrence; with `spellings`, each occurrence's spelling too.
void ScanTerms(std::string_view text, bool spellings, FlatStringMap<TermCount>* terms) {
  terms->clear();
  const Tokenizer* tokenizer = SharedTokenizer();
  if (tokenizer == nullptr) return;
  thread_local std::vector<Token> tokens;
  thread_local std::vector<char> salient;
  thread_local std::string key, form;
  tokens.clear();
  tokenizer->Tokenize(text, &tokens);
  salient.resize(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    salient[i] = Salient(text.substr(tokens[i].begin, tokens[i].end - tokens[i].begin));
  }
  auto add = [&](std::string_view term_key, uint32_t times) {
    TermCount& term = (*terms)[term_key];
    term.count += times;
    if (!spellings) return;
    // A word capitalized only at its start ("Insulin") is shown lower-case;
    // acronyms and mixed case ("DNA", "mRNA") keep their spelling.
    for (size_t w = 0; w < form.size();) {
      size_t end = form.find_first_of(" -", w);
      if (end == std::string::npos) end = form.size();
      bool capitalized = std::isupper(static_cast<unsigned char>(form[w])) &&
                         std::none_of(form.begin() + w + 1, form.begin() + end, [](char c) {
                           return std::isupper(static_cast<unsigned char>(c));
                         });
      if (capitalized) form[w] = static_cast<char>(std::tolower(static_cast<unsigned char>(form[w])));
      w = end + 1;
    }
    AddForm(&term.forms, form, times);
  };
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (!salient[i]) continue;
    const Token& t = tokens[i];
    std::string_view surface = text.substr(t.begin, t.end - t.begin);
    if (spellings) form.assign(surface);
    add(t.term, 1);
    if (i + 1 == tokens.size()) continue;
    const Token& n = tokens[i + 1];
    std::string_view gap = text.substr(t.end, n.begin - t.end);
    bool adjacent = gap == "-" || (!gap.empty() && gap.find_first_not_of(' ') == gap.npos);
    if (adjacent && salient[i + 1]) {
      key.assign(t.term).append(" ").append(n.term);
      if (spellings) {
        form.assign(surface).append(gap.substr(0, 1)).append(text.substr(n.begin, n.end - n.begin));
      }
      // A whole item of a list ("Covers a, insulin resistance, b.": the
      // keyphrases of a sub-directory's abstract) was a phrase already:
      // it counts as said twice.
      std::string_view head = text.substr(0, t.begin);
      while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
      size_t after = text.find_first_not_of(' ', n.end);
      bool item = (head.ends_with(',') || head.ends_with("Covers")) &&
                  (after == std::string_view::npos || text[after] == ',' || text[after] == '.');
      add(key, item ? 2 : 1);
    }
  }
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
  std::sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.count != b.count) return a.count > b.count;
    return a.first < b.first;
  });
  std::vector<Keyphrase> out;
  std::map<std::string, size_t, std::less<>> covered;  // unigram key -> most texts of a chosen bigram holding it
  std::unordered_set<std::string> shown;  // lower-cased spellings already chosen
  for (const Scored& s : scored) {
    if (out.size() >= limit) break;
    std::string_view key = key_of(s.index);
    size_t held = held_of(s.index);
    size_t space = key.find(' ');
    if (space == std::string_view::npos) {
      auto it = covered.find(key);
      if (it != covered.end() && it->second >= held) continue;
    } else {
      for (std::string_view part : {key.substr(0, space), key.substr(space + 1)}) {
        auto it = covered.find(part);
        if (it == covered.end()) it = covered.emplace(std::string(part), 0).first;
        it->second = std::max(it->second, held);
      }
    }
    Keyphrase phrase = phrase_of(s.index, s.score);
    if (!shown.insert(Lower(phrase.text)).second) continue;
    out.push_back(std::move(phrase));
  }
  return out;
}

}  // namespace

std::vector<TextTerm> ExtractTerms(std::string_view text) {
  thread_local FlatStringMap<TermCount> terms;
  ScanTerms(text, true, &terms);
  std::vector<TextTerm> out;
  out.reserve(terms.size());
  for (size_t i = 0; i < terms.size(); ++i) {
    TermCount& term = terms.Value(i);
    out.push_back({std::string(terms.Key(i)), Best(&term.forms), term.count});
  }
  return out;
}

void TermStatistics::Add(std::string_view text) {
  ++documents_;
  thread_local FlatStringMap<TermCount> terms;
  ScanTerms(text, false, &terms);
  for (size_t i = 0; i < terms.size(); ++i) ++frequency_[terms.Key(i)];
}

void TermStatistics::Add(const TermKeys& keys) {
  ++documents_;
  size_t begin = 0;
  for (uint32_t end : keys.ends) {
    ++frequency_[std::string_view(keys.bytes).substr(begin, end - begin)];
    begin = end;
  }
}

TermKeys TermStatistics::KeysOf(std::string_view text) {
  thread_local FlatStringMap<TermCount> terms;
  ScanTerms(text, false, &terms);
  TermKeys keys;
  keys.ends.reserve(terms.size());
  for (size_t i = 0; i < terms.size(); ++i) {
    keys.bytes.append(terms.Key(i));
    keys.ends.push_back(static_cast<uint32_t>(keys.bytes.size()));
  }
  return keys;
}

uint32_t TermStatistics::DocumentFrequency(std::string_view key) const {
  const uint32_t* n = frequency_.Find(key);
  return n == nullptr ? 0 : *n;
}

namespace {

// A term of a group of texts while they are ranked.
struct Candidate {
  uint32_t count = 0;
  Forms forms;
  std::vector<size_t> sources;
};

// RankKeyphrases over the terms of `texts` texts, counted into `candidates`.
std::vector<Keyphrase> RankCandidates(FlatStringMap<Candidate>& candidates, size_t texts,
                                      const TermStatistics* background, size_t limit) {
  const bool use_background = background != nullptr && background->documents() >= texts;
  const double n = use_background ? static_cast<double>(background->documents())
                                  : static_cast<double>(texts);
  std::vector<Scored> scored;
  for (size_t k = 0; k < candidates.size(); ++k) {
    const Candidate& c = candidates.Value(k);
    std::string_view key = candidates.Key(k);
    double held = static_cast<double>(c.sources.size());
    double df = use_background ? std::max<double>(held, background->DocumentFrequency(key)) : held;
    // Against siblings alone, a term every entry shares is what they are
    // about, not noise: the idf is smoothed so that it still counts.
    double idf = std::log((n + 1) / (df + 0.5)) + (use_background ? 0 : 1);
    if (idf <= 0) continue;
    // idf squared: a directory is told apart by what is rare elsewhere
    // (measured by bench/routing_eval: routing@3 0.620 with idf, 0.659 with
    // idf squared on the tune half).
    double score = held * PhraseFactor(key, c.count) * idf * idf;
    scored.push_back({score, c.count, k + 1, k});
  }
  return Select(
      std::move(scored), limit, [&](size_t k) { return candidates.Key(k); },
      [&](size_t k) { return candidates.Value(k).sources.size(); },
      [&](size_t k, double score) {
        Candidate& c = candidates.Value(k);
        return Keyphrase{Best(&c.forms), score, c.sources};
      });
}

}  // namespace

std::vector<Keyphrase> RankKeyphrases(std::span<const std::string> texts,
                                      const TermStatistics* background, size_t limit) {
  FlatStringMap<Candidate> candidates;
  thread_local FlatStringMap<TermCount> terms;
  for (size_t i = 0; i < texts.size(); ++i) {
    // ExtractTerms(texts[i]), without copying its terms out.
    ScanTerms(texts[i], true, &terms);
    for (size_t k = 0; k < terms.size(); ++k) {
      TermCount& term = terms.Value(k);
      Candidate& c = candidates[terms.Key(k)];
      AddForm(&c.forms, Best(&term.forms), term.count);
      c.count += term.count;
      c.sources.push_back(i);
    }
  }
  return RankCandidates(candidates, texts.size(), background, limit);
}

std::vector<Keyphrase> RankKeyphrasesOfTerms(std::span<const std::vector<TextTerm>> texts,
                                             const TermStatistics* background, size_t limit) {
  FlatStringMap<Candidate> candidates;
  for (size_t i = 0; i < texts.size(); ++i) {
    for (const TextTerm& term : texts[i]) {
      Candidate& c = candidates[term.key];
      AddForm(&c.forms, term.display, term.count);
      c.count += term.count;
      c.sources.push_back(i);
    }
  }
  return RankCandidates(candidates, texts.size(), background, limit);
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
