// Term scanning and the terms of a group of texts (term_group.h).

#include "text/term_group.h"

#include <algorithm>
#include <memory>
#include <unordered_set>

#include "text/text_util.h"

namespace skald {

namespace {

// Appends spelling `text` (seen `count` times) to `term`'s list of forms:
// its bytes to `bytes`, the form to `forms`, linked after the term's last.
template <typename Form, typename Term>
void AppendForm(std::vector<Form>* forms, std::string* bytes, Term* term, std::string_view text,
                uint32_t count) {
  forms->push_back(Form{bytes->size(), text.size(), count, 0});
  bytes->append(text);
  const auto added = static_cast<uint32_t>(forms->size());
  if (term->last_form != 0) {
    (*forms)[term->last_form - 1].next = added;
  } else {
    term->first_form = added;
  }
  term->last_form = added;
}

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

bool IsLower(std::string_view s) {
  return std::none_of(s.begin(), s.end(), [](char c) {
    return IsAsciiUpper(c);
  });
}

// KeyphraseStopWords in a flat map (looked up for most words of every
// text scanned), with the length of the longest: longer words are never one.
struct StopWordSet {
  FlatStringMap<char> words;
  size_t longest = 0;
};
const StopWordSet& StopWords() {
  static const StopWordSet set = [] {
    StopWordSet s;
    for (std::string_view w : KeyphraseStopWords()) {
      s.words.Insert(w);
      s.longest = std::max(s.longest, w.size());
    }
    return s;
  }();
  return set;
}

// A word that may be part of a keyphrase.
// (`*capital`: whether the surface holds an ASCII capital, when salient.)
bool Salient(std::string_view surface, bool* capital) {
  if (surface.size() < 3) return false;
  size_t letters = 0, digits = 0;
  bool upper = false;
  for (char c : surface) {
    if (IsAsciiAlpha(c) || static_cast<unsigned char>(c) >= 0x80) {
      ++letters;
      upper = upper || IsAsciiUpper(c);
    } else if (IsAsciiDigit(c)) {
      ++digits;
    }
  }
  *capital = upper;
  // "p53" and "covid19" name things; "e1000" and "2024" number them.
  if (letters == 0 || digits > letters + 1) return false;
  // Hex ids such as the hash a memory's file name ends with ("afc1dbf8")
  // name a file, not a topic.
  if (digits > 0 && surface.size() >= 6 &&
      std::all_of(surface.begin(), surface.end(),
                  [](char c) { return IsAsciiHexDigit(c); })) {
    return false;
  }
  const StopWordSet& stop = StopWords();
  if (surface.size() > stop.longest) return true;
  char lower[64];
  for (size_t i = 0; i < surface.size(); ++i) {
    lower[i] = AsciiToLower(surface[i]);
  }
  return stop.words.Find(std::string_view(lower, surface.size())) == nullptr;
}

// The best of spellings (form, count) given one by one, under "the most
// used; ties to a lower-case one (when `prefer_lower`), then to the
// smallest". Spellings are distinct, so the order they come in does not
// matter.
class BestSpelling {
 public:
  explicit BestSpelling(bool prefer_lower) : prefer_lower_(prefer_lower) {}
  void Offer(std::string_view form, uint32_t count) {
    const bool lower = prefer_lower_ && IsLower(form);
    bool better = !any_ || count > count_ ||
                  (count == count_ && (lower != lower_ ? lower : form < best_));
    if (better) any_ = true, best_ = form, count_ = count, lower_ = lower;
  }
  std::string_view best() const { return best_; }

 private:
  bool prefer_lower_;
  bool any_ = false;
  std::string_view best_;
  uint32_t count_ = 0;
  bool lower_ = false;
};

}  // namespace

void TermScanner::Add(std::string_view key, uint32_t times, bool spellings, bool after_mark,
                      bool in_lead) {
  Term& term = terms_[key];
  term.count += times;
  term.after_mark = term.after_mark || after_mark;
  term.in_lead = term.in_lead || in_lead;
  if (!spellings) return;
  for (uint32_t f = term.first_form; f != 0; f = forms_[f - 1].next) {
    Form& form = forms_[f - 1];
    if (std::string_view(form_bytes_).substr(form.offset, form.size) == form_) {
      form.count += times;
      return;
    }
  }
  AppendForm(&forms_, &form_bytes_, &term, form_, times);
}

namespace {

// A word capitalized only at its start ("Insulin") is shown lower-case;
// acronyms and mixed case ("DNA", "mRNA") keep their spelling. One pass over
// the words of `form` (split at ' ' and '-').
void LowerCapitals(std::string* form) {
  std::string& f = *form;
  size_t word = 0;
  bool later_capital = false;  // in the word, after its first char
  for (size_t i = 0; i <= f.size(); ++i) {
    if (i == f.size() || f[i] == ' ' || f[i] == '-') {
      if (i > word && !later_capital) f[word] = AsciiToLower(f[word]);
      word = i + 1;
      later_capital = false;
    } else if (i > word && IsAsciiUpper(f[i])) {
      later_capital = true;
    }
  }
}

}  // namespace

void TermScanner::Scan(std::string_view text, bool spellings, size_t mark, size_t lead_end) {
  scanned_bytes_ = text.size();
  terms_.clear();
  forms_.clear();
  form_bytes_.clear();
  const Tokenizer* tokenizer = SharedTokenizer();
  if (tokenizer == nullptr) return;
  tokens_.clear();
  tokenizer->Tokenize(text, &tokens_);
  // A unigram and a bigram at most per token: no slot array regrown
  // (from 16 slots) while the text is scanned.
  terms_.Reserve(2 * tokens_.size());
  // Per token: bit 1 salient, bit 2 holding a capital (else its spelling
  // needs no LowerCapitals).
  salient_.resize(tokens_.size());
  for (size_t i = 0; i < tokens_.size(); ++i) {
    bool capital = false;
    const bool salient =
        Salient(text.substr(tokens_[i].begin, tokens_[i].end - tokens_[i].begin), &capital);
    salient_[i] = static_cast<char>((salient ? 1 : 0) | (capital ? 2 : 0));
  }
  for (size_t i = 0; i < tokens_.size(); ++i) {
    if (!(salient_[i] & 1)) continue;
    const Token& t = tokens_[i];
    std::string_view surface = text.substr(t.begin, t.end - t.begin);
    if (spellings) {
      form_.assign(surface);
      if (salient_[i] & 2) LowerCapitals(&form_);
    }
    const bool after_mark = t.begin >= mark;
    Add(t.term, 1, spellings, after_mark, t.end <= lead_end);
    if (i + 1 == tokens_.size()) continue;
    const Token& n = tokens_[i + 1];
    std::string_view gap = text.substr(t.end, n.begin - t.end);
    bool adjacent = gap == "-" || (!gap.empty() && gap.find_first_not_of(' ') == gap.npos);
    if (adjacent && (salient_[i + 1] & 1)) {
      key_.assign(t.term).append(" ").append(n.term);
      if (spellings) {
        form_.assign(surface).append(gap.substr(0, 1)).append(text.substr(n.begin, n.end - n.begin));
        if ((salient_[i] | salient_[i + 1]) & 2) LowerCapitals(&form_);
      }
      // A whole item of a list ("Covers a, insulin resistance, b.": the
      // keyphrases of a sub-directory's abstract) was a phrase already:
      // it counts as said twice.
      std::string_view head = text.substr(0, t.begin);
      while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
      size_t after = text.find_first_not_of(' ', n.end);
      bool item = (head.ends_with(',') || head.ends_with("Covers")) &&
                  (after == std::string_view::npos || text[after] == ',' || text[after] == '.');
      Add(key_, item ? 2 : 1, spellings, after_mark, n.end <= lead_end);
    }
  }
}

std::shared_ptr<TermList> TermScanner::TermsFrom(size_t mark) const {
  const Tokenizer* tokenizer = SharedTokenizer();
  if (tokenizer == nullptr) return nullptr;
  const size_t from = std::min(mark, scanned_bytes_);
  auto terms = std::make_shared<TermList>(tokenizer->Name(), scanned_bytes_ - from);
  for (const Token& t : tokens_) {
    if (t.begin >= mark) terms->Term(t.term);
  }
  return terms;
}

std::string_view TermScanner::Display(size_t term) const {
  const Term& t = terms_.Value(term);
  if (t.first_form != 0 && t.first_form == t.last_form) {  // one spelling: no contest
    const Form& form = forms_[t.first_form - 1];
    return std::string_view(form_bytes_).substr(form.offset, form.size);
  }
  BestSpelling best(/*prefer_lower=*/true);
  for (uint32_t f = t.first_form; f != 0; f = forms_[f - 1].next) {
    const Form& form = forms_[f - 1];
    best.Offer(std::string_view(form_bytes_).substr(form.offset, form.size), form.count);
  }
  return best.best();
}

void TermGroup::Add(std::string_view key, uint64_t hash, std::string_view display,
                    uint32_t count) {
  const auto text = static_cast<uint32_t>(text_ends_.size());
  bool inserted = false;
  const size_t index = terms_.Insert(key, hash, &inserted);
  Term& term = terms_.Value(index);
  if (inserted) term.word = key.find(' ') == std::string_view::npos;
  term.count += count;
  // Spellings merge as RankKeyphrases merges them: the text's spelling
  // with the text's count.
  bool known = false;
  for (uint32_t f = term.first_form; f != 0; f = forms_[f - 1].next) {
    if (FormText(forms_[f - 1]) == display) {
      forms_[f - 1].count += count;
      known = true;
      break;
    }
  }
  if (!known) AppendForm(&forms_, &form_bytes_, &term, display, count);
  // A text's terms are distinct: each text is a term's source once.
  sources_.push_back(Source{text, 0});
  const auto source = static_cast<uint32_t>(sources_.size());
  if (term.last_source != 0) {
    sources_[term.last_source - 1].next = source;
  } else {
    term.first_source = source;
  }
  term.last_source = source;
  ++term.held;
  refs_.push_back(TextTermRef{static_cast<uint32_t>(index), count, false});
}

void TermGroup::AddText(const TermScanner& scan) {
  for (size_t k = 0; k < scan.size(); ++k) {
    Add(scan.Key(k), scan.HashAt(k), scan.Display(k), scan.Count(k));
  }
  text_ends_.push_back(refs_.size());
}

void TermGroup::AddText(std::span<const TextTerm> terms) {
  for (const TextTerm& t : terms) {
    Add(t.key, FlatStringMap<Term>::Hash(t.key), t.display, t.count);
  }
  text_ends_.push_back(refs_.size());
}

void TermGroup::Reserve(size_t texts, size_t term_refs) {
  text_ends_.reserve(text_ends_.size() + texts);
  refs_.reserve(refs_.size() + term_refs);
  sources_.reserve(sources_.size() + term_refs);
}

void TermGroup::AddEntry(const EntryTerms& entry) {
  const size_t begin = refs_.size();
  for (const EntryTerms::Term& t : entry.terms) {
    const std::string_view key = entry.Key(t);
    Add(key, FlatStringMap<Term>::Hash(key), entry.Display(t), t.count);
  }
  for (size_t k = 0; k < entry.terms.size(); ++k) refs_[begin + k].in_lead = entry.terms[k].in_lead;
  text_ends_.push_back(refs_.size());
}

void TermGroup::MarkLead(const TermScanner& lead) {
  if (text_ends_.empty()) return;
  const size_t begin = text_ends_.size() < 2 ? 0 : text_ends_[text_ends_.size() - 2];
  for (size_t r = begin; r < refs_.size(); ++r) {
    refs_[r].in_lead = lead.Contains(terms_.Key(refs_[r].term), terms_.HashAt(refs_[r].term));
  }
}

void TermGroup::MarkLead(std::span<const TextTerm> lead) {
  if (text_ends_.empty()) return;
  FlatStringMap<char> keys;
  for (const TextTerm& t : lead) keys.Insert(t.key);
  const size_t begin = text_ends_.size() < 2 ? 0 : text_ends_[text_ends_.size() - 2];
  for (size_t r = begin; r < refs_.size(); ++r) {
    refs_[r].in_lead =
        keys.Find(terms_.Key(refs_[r].term), terms_.HashAt(refs_[r].term)) != nullptr;
  }
}

std::vector<size_t> TermGroup::Sources(size_t term) const {
  std::vector<size_t> out;
  out.reserve(Held(term));
  for (uint32_t s = terms_.Value(term).first_source; s != 0; s = sources_[s - 1].next) {
    out.push_back(sources_[s - 1].text);
  }
  return out;
}

std::string_view TermGroup::KeyphraseSpelling(size_t term) const {
  return Spelling(term, /*prefer_lower=*/true);
}

std::string_view TermGroup::WordSpelling(size_t term) const {
  return Spelling(term, /*prefer_lower=*/false);
}

std::string_view TermGroup::Spelling(size_t term, bool prefer_lower) const {
  const Term& t = terms_.Value(term);
  if (t.first_form != 0 && t.first_form == t.last_form) return FormText(forms_[t.first_form - 1]);
  BestSpelling best(prefer_lower);
  for (uint32_t f = t.first_form; f != 0; f = forms_[f - 1].next) {
    best.Offer(FormText(forms_[f - 1]), forms_[f - 1].count);
  }
  return best.best();
}

std::vector<uint32_t> TermGroup::DocumentFrequencies(const TermStatistics& background) const {
  std::vector<std::string_view> keys(terms_.size());
  std::vector<uint64_t> hashes(terms_.size());
  for (size_t k = 0; k < terms_.size(); ++k) {
    keys[k] = terms_.Key(k);
    hashes[k] = terms_.HashAt(k);
  }
  std::vector<uint32_t> out(terms_.size());
  background.DocumentFrequencies(keys, hashes, out);
  return out;
}

}  // namespace skald
