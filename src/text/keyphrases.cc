// Keyphrases of a group of texts (keyphrases.h).

#include "text/keyphrases.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <unordered_set>

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
  return !KeyphraseStopWords().count(Lower(surface));
}

// Spellings of one term with their counts.
struct Spellings {
  std::map<std::string, uint32_t> forms;
  uint32_t count = 0;
  size_t first = 0;  // order of first occurrence
  // The most frequent spelling; ties go to the lower-case, then the smaller.
  std::string Best() const {
    const std::string* best = nullptr;
    uint32_t top = 0;
    for (const auto& [form, n] : forms) {
      bool better = n > top || (n == top && Lower(form) == form && Lower(*best) != *best);
      if (better) best = &form, top = n;
    }
    return best ? *best : std::string();
  }
};

// Weight of a term by kind: a bigram said twice or more is a phrase (1.5);
// one said once is as likely a chance pairing and ranks below its words.
double PhraseFactor(const std::string& key, uint32_t count) {
  if (key.find(' ') == std::string::npos) return 1.0;
  return count >= 2 ? 1.5 : 0.75;
}

// A term with its score, before selection.
struct Scored {
  std::string key;
  Keyphrase phrase;
  uint32_t count = 0;  // occurrences over the texts
  size_t first = 0;    // order of first occurrence over the texts
};

// The best `limit` of `scored` under the dropping and tie rules of
// RankKeyphrases.
std::vector<Keyphrase> Select(std::vector<Scored> scored, size_t limit) {
  std::sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    if (a.phrase.score != b.phrase.score) return a.phrase.score > b.phrase.score;
    if (a.count != b.count) return a.count > b.count;
    if (a.first != b.first) return a.first < b.first;
    return a.phrase.text < b.phrase.text;
  });
  std::vector<Keyphrase> out;
  std::map<std::string, size_t> covered;  // unigram key -> most texts of a chosen bigram holding it
  std::unordered_set<std::string> shown;  // lower-cased spellings already chosen
  for (Scored& s : scored) {
    if (out.size() >= limit) break;
    const std::string& key = s.key;
    size_t space = key.find(' ');
    if (space == std::string::npos) {
      auto it = covered.find(key);
      if (it != covered.end() && it->second >= s.phrase.sources.size()) continue;
    } else {
      for (std::string part : {key.substr(0, space), key.substr(space + 1)}) {
        size_t& most = covered[part];
        most = std::max(most, s.phrase.sources.size());
      }
    }
    if (!shown.insert(Lower(s.phrase.text)).second) continue;
    out.push_back(std::move(s.phrase));
  }
  return out;
}

}  // namespace

std::vector<TextTerm> ExtractTerms(std::string_view text) {
  const Tokenizer* tokenizer = SharedTokenizer();
  if (tokenizer == nullptr) return {};
  std::vector<Token> tokens;
  tokenizer->Tokenize(text, &tokens);
  std::map<std::string, Spellings> terms;
  auto add = [&](std::string key, std::string form) {
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
    Spellings& s = terms[key];
    if (s.count++ == 0) s.first = terms.size();
    ++s.forms[std::move(form)];
  };
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    std::string_view surface = text.substr(t.begin, t.end - t.begin);
    if (!Salient(surface)) continue;
    add(t.term, std::string(surface));
    if (i + 1 == tokens.size()) continue;
    const Token& n = tokens[i + 1];
    std::string_view gap = text.substr(t.end, n.begin - t.end);
    bool adjacent = gap == "-" || (!gap.empty() && gap.find_first_not_of(' ') == gap.npos);
    std::string_view next = text.substr(n.begin, n.end - n.begin);
    if (adjacent && Salient(next)) {
      std::string key = t.term + " " + n.term;
      std::string form = std::string(surface) + std::string(gap.substr(0, 1)) + std::string(next);
      // A whole item of a list ("Covers a, insulin resistance, b.": the
      // keyphrases of a sub-directory's abstract) was a phrase already:
      // it counts as said twice.
      std::string_view head = text.substr(0, t.begin);
      while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
      size_t after = text.find_first_not_of(' ', n.end);
      bool item = (head.ends_with(',') || head.ends_with("Covers")) &&
                  (after == std::string_view::npos || text[after] == ',' || text[after] == '.');
      add(key, form);
      if (item) add(key, form);
    }
  }
  std::vector<TextTerm> out;
  out.reserve(terms.size());
  std::vector<size_t> order;
  for (auto& [key, s] : terms) {
    out.push_back({key, s.Best(), s.count});
    order.push_back(s.first);
  }
  std::vector<size_t> index(out.size());
  for (size_t i = 0; i < index.size(); ++i) index[i] = i;
  std::sort(index.begin(), index.end(), [&](size_t a, size_t b) { return order[a] < order[b]; });
  std::vector<TextTerm> sorted;
  sorted.reserve(out.size());
  for (size_t i : index) sorted.push_back(std::move(out[i]));
  return sorted;
}

void TermStatistics::Add(std::string_view text) {
  ++documents_;
  for (const TextTerm& term : ExtractTerms(text)) ++frequency_[term.key];
}

uint32_t TermStatistics::DocumentFrequency(const std::string& key) const {
  auto it = frequency_.find(key);
  return it == frequency_.end() ? 0 : it->second;
}

std::vector<Keyphrase> RankKeyphrases(std::span<const std::string> texts,
                                      const TermStatistics* background, size_t limit) {
  struct Candidate {
    Spellings spellings;
    std::vector<size_t> sources;
  };
  std::map<std::string, Candidate> candidates;
  for (size_t i = 0; i < texts.size(); ++i) {
    for (TextTerm& term : ExtractTerms(texts[i])) {
      Candidate& c = candidates[term.key];
      if (c.sources.empty()) c.spellings.first = candidates.size();
      c.spellings.forms[term.display] += term.count;
      c.spellings.count += term.count;
      c.sources.push_back(i);
    }
  }
  const bool use_background = background != nullptr && background->documents() >= texts.size();
  const double n = use_background ? static_cast<double>(background->documents())
                                  : static_cast<double>(texts.size());
  std::vector<Scored> scored;
  for (auto& [key, c] : candidates) {
    double held = static_cast<double>(c.sources.size());
    double df = use_background ? std::max<double>(held, background->DocumentFrequency(key)) : held;
    // Against siblings alone, a term every entry shares is what they are
    // about, not noise: the idf is smoothed so that it still counts.
    double idf = std::log((n + 1) / (df + 0.5)) + (use_background ? 0 : 1);
    if (idf <= 0) continue;
    // idf squared: a directory is told apart by what is rare elsewhere
    // (measured by bench/routing_eval: routing@3 0.620 with idf, 0.659 with
    // idf squared on the tune half).
    double score = held * PhraseFactor(key, c.spellings.count) * idf * idf;
    scored.push_back({key, {c.spellings.Best(), score, c.sources}, c.spellings.count,
                      c.spellings.first});
  }
  return Select(std::move(scored), limit);
}

std::vector<Keyphrase> TextKeyphrases(std::string_view text, const TermStatistics* background,
                                      size_t limit) {
  std::vector<TextTerm> terms = ExtractTerms(text);
  const bool use_background = background != nullptr && background->documents() > 0;
  const double n = use_background ? static_cast<double>(background->documents()) : 0;
  std::vector<Scored> scored;
  size_t first = 0;
  for (TextTerm& term : terms) {
    double score = 1 + std::log(static_cast<double>(term.count));
    if (use_background) {
      double df = std::max<double>(1, background->DocumentFrequency(term.key));
      score *= std::log((n + 1) / (df + 0.5));
      if (score <= 0) continue;
    }
    score *= PhraseFactor(term.key, term.count);
    scored.push_back(
        {std::move(term.key), {std::move(term.display), score, {0}}, term.count, first++});
  }
  return Select(std::move(scored), limit);
}

}  // namespace skald
